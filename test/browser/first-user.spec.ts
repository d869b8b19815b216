import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { PlanResult } from '../../web/src/api/types.js' with { 'resolution-mode': 'import' };
import { Api } from '../support/api';
import { closeAll, launchBrowser, shot, signInByKeyboard, signedIn, trayDone } from '../support/browser';
import { BEAT_120, makeSong } from '../support/media';
import { sharedSystem, SHARED_START_MS, SHARED_TRACKS, type SharedSystem } from '../support/shared-system';

const MEDIA = path.resolve(__dirname, '..', '..', '..', 'shared', 'media');

/**
 * What a first-time user ran into (issue 42), each done as a person does it, by keyboard or by
 * touch: a tempo correction with the song window away from the song's start, Halve saying what it
 * changed, Pricing's price per credit, the progress card's words and bar, retrying a declined card,
 * signing out on a shared computer, the music library's Escape and empty search, and a phone.
 * One product for all of them (a product start is the dearest part of a browser spec).
 */
describe('A first-time user', () => {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'reelsmith-first-user-'));
  const song = path.join(work, 'beat-48.mp3');
  // The shared product's music library holds `first-user-beat`, imported at its first start.
  let sys: SharedSystem;
  let browser: Browser;

  beforeAll(async () => {
    // 120 BPM for 48 s: a 30 s reel plays a window of it.
    makeSong(song, BEAT_120, 48);
    [sys, browser] = await Promise.all([sharedSystem(), launchBrowser()]);
  }, SHARED_START_MS + 60_000);
  afterAll(() => closeAll(browser, undefined, work));

  let n = 0;
  /** A new verified account of this spec (its Api holds the session token). */
  const newUser = async (who: string) => {
    const api = new Api(sys.baseUrl, sys.dataDir);
    const email = `${who}.${Date.now()}.${++n}@example.com`;
    await api.signUp(email, 'typed-password');
    return { api, email };
  };
  /** A page of its own (storage, size, touch), signed in as `token` when given, at `route`. */
  const pageFor = async (token: string | null, route = '/', options: Parameters<Browser['newContext']>[0] = {}) => {
    const context: BrowserContext = await browser.newContext({
      viewport: { width: 1280, height: 1000 },
      ...(token ? signedIn(sys.baseUrl, token) : {}),
      ...options,
    });
    const page = await context.newPage();
    page.on('pageerror', (e) => console.error('page error:', e.message));
    await page.goto(`${sys.baseUrl}${route}`);
    if (token) await page.getByRole('button', { name: /@example\.com/ }).waitFor();
    return page;
  };
  const press = async (page: Page, locator: ReturnType<Page['getByRole']>, key = 'Enter') => {
    await locator.focus();
    await page.keyboard.press(key);
  };
  const focusedName = (page: Page) =>
    page.evaluate(() => {
      const a = document.activeElement as HTMLElement | null;
      return (a?.getAttribute('aria-label') || a?.textContent || '').trim();
    });
  /** No message on the page names an API field (snake_case), and none is an error. */
  const alerts = (page: Page) => page.getByRole('alert').allTextContents();

  it('corrects the tempo with the window at the song’s end (it moves to the nearest bar line), and Halve says what it changed', async () => {
    const { api } = await newUser('tempo');
    const page = await pageFor(api.token);
    const plans: PlanResult[] = [];
    page.on('response', (r) => {
      if (r.url().endsWith('/jobs/plan') && r.request().method() === 'POST' && r.status() === 200)
        void r.json().then((b: PlanResult) => plans.push(b));
    });
    await page.setInputFiles('input[type=file]', [path.join(MEDIA, 'counter.mp4'), path.join(MEDIA, 'testvideo.mp4'), song]);
    await trayDone(page);
    // 30 s, by the length picker's arrow keys.
    await press(page, page.getByRole('radio', { name: 'Whole song' }), 'ArrowLeft');
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('ArrowLeft');
    expect(await page.getByRole('radio', { name: '30 s' }).isChecked()).toBe(true);
    // The estimate in money as well as credits.
    await page
      .getByTestId('estimate')
      .filter({ hasText: /Estimated cost: \d+ credits \(worth \$\d+\.\d\d( to \$\d+\.\d\d)? in credit packs\)/ })
      .waitFor();

    await press(page, page.getByRole('button', { name: 'Preview edit' }));
    await page.getByTestId('song-window').waitFor({ timeout: 90_000 });
    const slider = page.getByRole('slider', { name: "Start of the reel's music" });
    const settled = async () => {
      await page.waitForFunction(
        () => !document.querySelector('[data-testid=window-start]')?.textContent?.includes('planning'),
        undefined,
        {
          timeout: 30_000,
        },
      );
      return Number(await slider.getAttribute('data-start'));
    };
    const before = plans.length;
    await press(page, slider, 'End');
    for (const end = Date.now() + 30_000; plans.length === before && Date.now() < end;) await page.waitForTimeout(100);
    const atEnd = await settled();
    expect(atEnd).toBeGreaterThan(10);
    const oldBars = plans.at(-1)!.music!.downbeats;

    // Tap tempo, 8 taps at 100 BPM, Enter: the tempo is used and the window stays near the end.
    // 100 is no simple ratio of the song's 120 (taps at 120 snap back onto the grid as found), so
    // the corrected grid has bar lines of its own and the window must move onto one of them.
    await press(page, page.getByRole('button', { name: 'Tap tempo' }));
    await page.getByTestId('tap-pad').waitFor();
    for (let i = 0; i < 8; i++) {
      await page.keyboard.press('t');
      await page.waitForTimeout(600);
    }
    await page.keyboard.press('Enter');
    await page
      .getByTestId('plan-tempo')
      .getByText(/tapped/)
      .waitFor({ timeout: 30_000 });
    const start = await settled();
    // The plan made on the tapped grid (the words can show before its answer arrives).
    for (const end = Date.now() + 30_000; !plans.at(-1)!.music?.tempo_corrections.includes('tap') && Date.now() < end;)
      await page.waitForTimeout(100);
    const tapped = plans.at(-1)!;
    const newBars = tapped.music!.downbeats;
    const bar = newBars[1]! - newBars[0]!;
    expect(newBars.some((b) => Math.abs(b - start) < 0.01)).toBe(true);
    // The nearest start of the corrected grid: within a bar or two of the old one (the last start moves a little with the tempo).
    expect(Math.abs(start - atEnd)).toBeLessThanOrEqual(2 * bar);
    expect(oldBars).not.toEqual(newBars);
    expect(await alerts(page)).toEqual([]);
    await page.screenshot({ path: shot('first-user-1-tapped'), fullPage: true });

    // Back to the beats as found; the window one bar from the song's start (Home, then →): an
    // odd bar line, which Halve (a bar line every other one) does not keep. Halve moves the window
    // to the nearest bar line it keeps, and the page says so.
    await press(page, page.getByRole('button', { name: 'Beats as found' }));
    await page.waitForFunction(() => !document.querySelector('[data-testid=plan-tempo]')?.textContent?.includes('tapped'), undefined, {
      timeout: 30_000,
    });
    await settled();
    const replanned = async (key: string) => {
      const n = plans.length;
      await press(page, slider, key);
      for (const end = Date.now() + 30_000; plans.length === n && Date.now() < end;) await page.waitForTimeout(100);
      return settled();
    };
    await replanned('Home');
    const oddBar = await replanned('ArrowRight');
    const found = plans.at(-1)!;
    expect(found.music!.downbeats.findIndex((b) => Math.abs(b - oddBar) < 0.01)).toBe(1);
    await press(page, page.getByRole('button', { name: 'Halve' }));
    await page
      .getByTestId('plan-tempo')
      .getByText(/halved/)
      .waitFor({ timeout: 30_000 });
    const halvedStart = await settled();
    const halved = plans.at(-1)!;
    const halvedBars = halved.music!.downbeats;
    expect(halvedBars.some((b) => Math.abs(b - halvedStart) < 0.01)).toBe(true);
    expect(Math.abs(halvedStart - oddBar)).toBeLessThanOrEqual(halvedBars[1]! - halvedBars[0]!);
    const clockOf = (t: number) => `0:${String(Math.round(t)).padStart(2, '0')}`;
    const note = (await page.getByTestId('correction-note').textContent()) ?? '';
    expect(note).toContain(
      `The part of the song on the reel moved from ${clockOf(oddBar)} to ${clockOf(halvedStart)}, the nearest bar line of the new beat.`,
    );
    // A new length is said too (the whole bars of the new tempo nearest the 30 s chosen).
    if (Math.abs(halved.plan.total_sec - found.plan.total_sec) >= 0.5)
      expect(note).toMatch(
        /^The reel is now \d:\d\d long \(it was \d:\d\d\): the whole bars of the new tempo nearest the 0:30 you chose\./,
      );
    expect(await alerts(page)).toEqual([]);
    await page.screenshot({ path: shot('first-user-2-halved'), fullPage: true });
    await page.context().close();
  }, 300_000);

  it('Pricing shows what a credit costs at each pack and plan, and no longer says 100 credits equal one dollar', async () => {
    const page = await pageFor(null, '/pricing');
    const packs = page.locator('.pack-grid [data-testid=credit-price]');
    await packs.first().waitFor();
    expect(await packs.allTextContents()).toEqual(['5¢ a credit', '5¢ a credit', '4¢ a credit', '3.2¢ a credit']);
    const plans = page.locator('.plan-grid [data-testid=credit-price]');
    expect(await plans.allTextContents()).toEqual(['5¢ a credit', '3.33¢ a credit', '2.5¢ a credit']);
    // Yearly, by keyboard: the radio group's arrow key.
    await press(page, page.getByRole('radio', { name: /Monthly/ }), 'ArrowRight');
    await page.getByRole('article', { name: 'Standard plan' }).getByText('4¢ a credit').waitFor();
    expect(await plans.allTextContents()).toEqual(['4¢ a credit', '2.67¢ a credit', '2¢ a credit']);
    const lead = await page.getByTestId('pricing-lead').textContent();
    expect(lead).toContain('A credit costs 2¢ to 5¢');
    expect(await page.locator('body').textContent()).not.toContain('100 credits equal one dollar');
    await page.context().close();
  }, 120_000);

  it('the progress card names the stage the bar is at: Initializing, then Processing at 55 %, then Finalizing', async () => {
    const { api } = await newUser('progress');
    const page = await pageFor(api.token);
    const job = '00000000-0000-4000-8000-000000000042';
    let status = { status: 'processing', progress: 5, message: 'Initializing' };
    // The job itself is the server's business: here the card is fed the reports a render makes.
    await page.routeWebSocket(/\/ws\//, (ws) => ws.close());
    await page.route('**/ws/**', (r) => r.abort());
    await page.route('**/api/v1/jobs/assemble', (r) => r.fulfill({ status: 202, json: { job_id: job } }));
    await page.route(`**/api/v1/jobs/${job}/status`, (r) =>
      r.fulfill({ json: { job_id: job, download_url: null, created_at: new Date().toISOString(), ...status } }),
    );
    await page.setInputFiles('input[type=file]', [path.join(MEDIA, 'counter.mp4')]);
    await trayDone(page);
    await press(page, page.getByRole('button', { name: 'Generate Reel' }));
    const card = page.getByTestId('job-card');
    const step = card.getByTestId('job-step');
    const bar = card.getByRole('progressbar');
    await step.getByText('Initializing').waitFor();
    status = { status: 'processing', progress: 55, message: 'Processing' };
    await card.locator('[role=progressbar][aria-valuenow="55"]').waitFor({ timeout: 10_000 });
    expect(await step.textContent()).toBe('Processing');
    expect(await card.locator('li.reached').allTextContents()).toEqual(['Queued', 'Initializing', 'Processing']);
    expect(await card.locator('li[aria-current=step]').textContent()).toBe('Processing');
    await page.screenshot({ path: shot('first-user-3-progress') });
    status = { status: 'processing', progress: 96, message: 'Finalizing' };
    await step.getByText('Finalizing').waitFor({ timeout: 10_000 });
    expect(await bar.getAttribute('aria-valuenow')).toBe('96');
    await page.context().close();
  }, 120_000);

  it('retries a declined card without typing it all again: the dialog starts on the card number, the old message goes, the payment is confirmed in view', async () => {
    const { api } = await newUser('payer');
    const page = await pageFor(api.token, '/pricing');
    await press(page, page.getByRole('article', { name: '1000 credits pack' }).getByRole('button', { name: 'Buy Now' }));
    const dialog = page.getByRole('dialog', { name: 'Buy credits' });
    await dialog.getByText('Test mode: no real money moves').waitFor();
    expect(await page.evaluate(() => document.activeElement?.closest('label')?.textContent?.trim())).toMatch(/^Card number/);
    const expiry = dialog.getByLabel('Expiry (MM/YY)');
    const cvc = dialog.getByLabel('CVC');
    // Placeholders that cannot be taken for values.
    expect([await expiry.getAttribute('placeholder'), await cvc.getAttribute('placeholder')]).toEqual(['MM/YY', '3 or 4 digits']);

    await page.keyboard.type('4000 0000 0000 0002');
    await page.keyboard.press('Tab');
    await page.keyboard.type('1234');
    await page.keyboard.press('Tab');
    await page.keyboard.type('123');
    await page.keyboard.press('Enter');
    const declined = dialog.getByText('Your card was declined.');
    await declined.waitFor({ timeout: 10_000 });
    // The expiry and CVC are still there.
    expect([await expiry.inputValue(), await cvc.inputValue()]).toEqual(['12/34', '123']);

    // Another card; the expiry emptied by mistake: only the new problem shows.
    await dialog.getByLabel('Card number').focus();
    await page.keyboard.press('Control+A');
    await page.keyboard.type('4242 4242 4242 4242');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Control+A');
    await page.keyboard.press('Backspace');
    await page.keyboard.press('Enter');
    await dialog.getByText('Enter the expiry as MM/YY.').waitFor();
    expect(await declined.count()).toBe(0);
    await page.keyboard.type('1234');
    await page.keyboard.press('Enter');
    await dialog.getByText(/Payment successful! 1,000 credits/).waitFor({ timeout: 10_000 });
    await dialog.waitFor({ state: 'detached', timeout: 5000 });
    // The confirmation stays in view once the dialog has gone.
    const notice = page.getByTestId('payment-notice');
    await notice.waitFor();
    expect(await notice.textContent()).toContain('Payment successful! 1,000 credits have been added to your account.');
    const box = (await notice.boundingBox())!;
    expect(box.y >= 0 && box.y + box.height <= 1000).toBe(true);
    await page.screenshot({ path: shot('first-user-4-paid') });
    await page.context().close();
  }, 120_000);

  it('signing out takes the clips, the song and the settings off Home at once; signing in again brings them back; Contact knows the e-mail', async () => {
    const { email } = await newUser('shared');
    const page = await pageFor(null);
    await signInByKeyboard(page, email, 'typed-password');
    await page.setInputFiles('input[type=file]', [path.join(MEDIA, 'counter.mp4'), song]);
    await trayDone(page);
    // Settings, by keyboard: 15 s, High energy, a title.
    await press(page, page.getByRole('radio', { name: 'Whole song' }), 'ArrowLeft');
    for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowLeft');
    expect(await page.getByRole('radio', { name: '15 s' }).isChecked()).toBe(true);
    await page.getByLabel('Pacing').focus();
    await page.keyboard.press('ArrowDown');
    expect(await page.getByLabel('Pacing').inputValue()).toBe('high-energy');
    await page.getByLabel('Title text').focus();
    await page.keyboard.press('Control+A');
    await page.keyboard.type('Shared desk');

    // Sign Out from the account menu.
    await press(page, page.getByRole('button', { name: email }));
    await press(page, page.getByRole('menuitem', { name: 'Sign Out' }));
    await page.getByRole('button', { name: 'Sign In' }).waitFor();
    expect(await page.getByTestId('tray-clip').count()).toBe(0);
    expect(await page.getByTestId('tray-music').count()).toBe(0);
    expect(await page.getByText(/Analysing/).count()).toBe(0);
    expect(await page.getByLabel('Title text').inputValue()).toBe('My Awesome Video');
    // No music in the tray now: the whole-length choice reads 'All the footage'.
    expect(await page.getByRole('radio', { name: 'All the footage' }).isChecked()).toBe(true);
    expect(await page.getByLabel('Pacing').inputValue()).toBe('standard');
    await page.screenshot({ path: shot('first-user-5-signed-out'), fullPage: true });

    await signInByKeyboard(page, email, 'typed-password');
    await page.waitForFunction(() => document.querySelectorAll('[data-testid=tray-clip]').length === 1, undefined, { timeout: 30_000 });
    await page.getByTestId('tray-music').waitFor();
    expect(await page.getByLabel('Title text').inputValue()).toBe('Shared desk');
    expect(await page.getByRole('radio', { name: '15 s' }).isChecked()).toBe(true);
    expect(await page.getByLabel('Pacing').inputValue()).toBe('high-energy');

    await page.goto(`${sys.baseUrl}/contact`);
    await page.waitForFunction((e) => (document.querySelector('input[type=email]') as HTMLInputElement | null)?.value === e, email);
    await page.context().close();
  }, 180_000);

  it('the music library: Escape in the search box closes it at once, focus back on its button; a search with no match disables Use this track', async () => {
    const { api } = await newUser('music');
    const anyone = new Api(sys.baseUrl, sys.dataDir);
    for (
      const end = Date.now() + 60_000;
      (await anyone.call<{ total: number }>('GET', '/music-library-detailed?limit=1')).body.total < SHARED_TRACKS.length;
    ) {
      if (Date.now() > end) throw new Error('the library track was not imported');
      await new Promise((r) => setTimeout(r, 500));
    }
    const page = await pageFor(api.token);
    const browse = page.getByRole('button', { name: 'Browse Music Library' });
    const library = page.getByRole('dialog', { name: 'Music Library' });
    await press(page, browse);
    await library.getByTestId('track').first().waitFor();
    await library.getByLabel('Search music').focus();
    await page.keyboard.type('beat');
    await page.keyboard.press('Escape');
    await library.waitFor({ state: 'detached', timeout: 2000 });
    expect(await focusedName(page)).toBe('Browse Music Library');

    await page.keyboard.press('Enter');
    const row = library.getByTestId('track').filter({ hasText: 'first-user-beat' });
    await row.waitFor();
    await press(page, row.getByRole('button', { name: 'first-user-beat', exact: true }));
    const use = library.getByRole('button', { name: 'Use this track' });
    expect(await use.isEnabled()).toBe(true);
    await library.getByLabel('Search music').focus();
    await page.keyboard.type('no such song');
    await library.getByText('No tracks match your search').waitFor();
    expect(await use.isDisabled()).toBe(true);
    await page.context().close();
  }, 120_000);

  it('on a phone, by touch: the menu closes on signing in, no keyboard hints, big radios, readable payment history and segments', async () => {
    const { api, email } = await newUser('phone');
    expect(await api.buyThousandCredits()).toBe(200);
    const page = await pageFor(null, '/', { viewport: { width: 375, height: 812 }, hasTouch: true, isMobile: true });
    await page.getByRole('button', { name: 'Open menu' }).tap();
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Pricing' }).waitFor();
    await page.getByRole('button', { name: 'Sign In' }).tap();
    const signIn = page.getByRole('dialog', { name: 'Sign In' });
    await signIn.waitFor();
    await signIn.getByLabel('Email').tap();
    await page.keyboard.type(email);
    await signIn.getByLabel('Password', { exact: true }).tap();
    await page.keyboard.type('typed-password');
    await page.keyboard.press('Enter');
    await page.getByRole('button', { name: email }).waitFor();
    expect(await page.getByRole('button', { name: /^(Open|Close) menu$/ }).getAttribute('aria-expanded')).toBe('false');
    expect(await page.getByRole('navigation', { name: 'Main' }).isVisible()).toBe(false);

    // No drag and drop on a touch screen; radios and checkboxes a finger can hit.
    expect(await page.getByText(/Drag and drop/).isVisible()).toBe(false);
    await page.getByText('Add video clips and one music track:').waitFor();
    for (const control of [page.getByRole('radio', { name: '30 s' }), page.getByRole('checkbox', { name: /Intelligence/ })]) {
      const b = (await control.boundingBox())!;
      expect([b.width >= 23, b.height >= 23]).toEqual([true, true]);
    }

    // The plan preview's segments are thumbnails, not slivers.
    await page.setInputFiles('input[type=file]', [path.join(MEDIA, 'counter.mp4'), path.join(MEDIA, 'testvideo.mp4'), song]);
    await trayDone(page);
    await page.getByRole('button', { name: 'Preview edit' }).tap();
    await page.getByTestId('segment').first().waitFor({ timeout: 90_000 });
    const widths = await page.getByTestId('segment').evaluateAll((els) => els.map((e) => e.getBoundingClientRect().width));
    expect(Math.min(...widths)).toBeGreaterThanOrEqual(43);
    expect(await page.getByText(/Keys on a segment/).isVisible()).toBe(false);
    await page.screenshot({ path: shot('first-user-6-phone-studio'), fullPage: true });

    // Payment history: every column in view, no sideways scroll.
    await page.goto(`${sys.baseUrl}/pricing`);
    const history = page.getByRole('table');
    await history.getByText('Test mode').first().waitFor();
    for (const label of ['Credits', 'Provider', 'Status']) {
      const cell = history.locator(`td[data-label=${label}]`).first();
      const b = (await cell.boundingBox())!;
      expect([label, b.x >= 0 && b.x + b.width <= 375]).toEqual([label, true]);
    }
    await history.scrollIntoViewIfNeeded();
    await page.screenshot({ path: shot('first-user-7-phone-history') });
    await page.context().close();
  }, 240_000);
});
