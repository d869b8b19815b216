import type { Browser, Page } from 'playwright-core';
import { Api } from '../support/api';
import { closeAll, launchBrowser, openPage, openSignedIn, tabTo } from '../support/browser';
import { SHARED_ADMINS, SHARED_START_MS, sharedSystem, type SharedSystem } from '../support/shared-system';

/** Presses Tab until the focused field's label matches. */
async function tabToField(page: Page, label: RegExp, maxPresses = 150): Promise<void> {
  for (let i = 0; i < maxPresses; i++) {
    await page.keyboard.press('Tab');
    const text = await page.evaluate(() => {
      const a = document.activeElement as HTMLInputElement | null;
      return (a?.labels?.[0]?.textContent ?? '').trim();
    });
    if (label.test(text)) return;
  }
  throw new Error(`Tab never reached the field ${label}`);
}

/**
 * Settings' API keys in Chromium, by keyboard only (issue 45): an account with API access (the
 * shared product's spare admin) creates a key, sees its secret once, and revokes it.
 */
describe('API keys in Settings', () => {
  let sys: SharedSystem;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    [sys, browser] = await Promise.all([sharedSystem(), launchBrowser()]);
    page = await openPage(browser, { width: 1280, height: 900 });
  }, SHARED_START_MS);
  afterAll(() => closeAll(browser, undefined));

  it('creates a key by keyboard, shows its secret once, and revokes it', async () => {
    const api = new Api(sys.baseUrl, sys.dataDir);
    await api.signUp(SHARED_ADMINS.spare);
    await page.goto(`${sys.baseUrl}/`);
    await openSignedIn(page, sys.baseUrl, api.token);

    await tabTo(page, /@example\.com/);
    await page.keyboard.press('Enter');
    await tabTo(page, /^Settings$/);
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('heading', { name: 'API keys' }).waitFor();

    await tabToField(page, /^Key name/);
    await page.keyboard.type('Browser test key');
    await tabTo(page, /^Create API Key$/);
    await page.keyboard.press('Enter');

    const secretField = dialog.getByTestId('api-key-secret');
    await secretField.waitFor();
    const secret = await secretField.inputValue();
    expect(secret).toMatch(/^rs_live_[A-Za-z0-9_-]{43}$/);
    expect(await dialog.getByText('it will not be shown again').isVisible()).toBe(true);
    const list = dialog.getByRole('list', { name: 'Your API keys' });
    await list.locator('strong', { hasText: 'Browser test key' }).waitFor();
    expect(await list.textContent()).toContain(secret.slice(0, 14));

    // Done: the secret is gone from the page for good; the list shows only its prefix.
    await tabTo(page, /^Done$/);
    await page.keyboard.press('Enter');
    await secretField.waitFor({ state: 'detached' });
    expect(await page.content()).not.toContain(secret);
    expect((await api.call('GET', '/auth/me', undefined, { authorization: `Bearer ${secret}` })).status).toBe(200);

    await tabTo(page, /^Revoke Browser test key$/);
    await page.keyboard.press('Enter');
    await dialog.getByText('No API keys yet.').waitFor();
    expect((await api.call('GET', '/auth/me', undefined, { authorization: `Bearer ${secret}` })).status).toBe(401);
  }, 120_000);
});
