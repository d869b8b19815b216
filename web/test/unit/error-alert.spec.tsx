import { renderToStaticMarkup } from 'react-dom/server';
import { ErrorAlert } from '../../src/components/ErrorAlert';

// The markup the stylesheet and the browser tests rely on: <p class="error" role="alert">.
describe('ErrorAlert', () => {
  it('is a paragraph with the error class and the alert role around its words', () => {
    expect(renderToStaticMarkup(<ErrorAlert>Stripe failed to load</ErrorAlert>)).toBe(
      '<p class="error" role="alert">Stripe failed to load</p>',
    );
  });

  it("shows a failed request's detail from the server, or the fallback words", () => {
    const failed = { status: 409, data: { code: 'conflict', detail: 'That reel is already shared.' } };
    expect(renderToStaticMarkup(<ErrorAlert error={failed} fallback="Sharing could not be changed." />)).toBe(
      '<p class="error" role="alert">That reel is already shared.</p>',
    );
    expect(renderToStaticMarkup(<ErrorAlert error={{ status: 'FETCH_ERROR' }} fallback="Sharing could not be changed." />)).toBe(
      '<p class="error" role="alert">Sharing could not be changed.</p>',
    );
  });

  it('keeps extra classes before error, a test id, and can be an inline span', () => {
    expect(renderToStaticMarkup(<ErrorAlert className="center">Failed to load YouTube content</ErrorAlert>)).toBe(
      '<p class="center error" role="alert">Failed to load YouTube content</p>',
    );
    expect(renderToStaticMarkup(<ErrorAlert data-testid="tray-refused">Not uploaded</ErrorAlert>)).toBe(
      '<p class="error" role="alert" data-testid="tray-refused">Not uploaded</p>',
    );
    expect(renderToStaticMarkup(<ErrorAlert inline error={undefined} fallback="Your rating could not be saved." />)).toBe(
      '<span class="error" role="alert">Your rating could not be saved.</span>',
    );
  });
});
