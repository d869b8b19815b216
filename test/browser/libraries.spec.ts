import type { Browser, Page } from 'playwright-core';
import { Api } from '../support/api';
import { axeViolations, focusIn } from '../support/axe';
import { closeAll, launchBrowser, openPage, shot, signedIn } from '../support/browser';
import { sharedSystem, type SharedSystem } from '../support/shared-system';

/**
 * The stock libraries and My Reels in Chromium, on a fresh `npm start` whose only content is the
 * starter set it imports at first start (10 clips in 4 categories, 6 tracks of 2-3 minutes).
 */
describe('libraries and My Reels in Chromium', () => {
  let sys: SharedSystem;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    // One after the other: a start that fails must not leave a browser behind.
    sys = await sharedSystem('showcase');
    browser = await launchBrowser();
    page = await openPage(browser);
    // The starter import runs in the background after start, beside the first-start demo reels
    // (the showcase product renders them from the same library); wait until all of it is in.
    const api = new Api(sys.baseUrl, sys.dataDir);
    const deadline = Date.now() + 420_000;
    for (;;) {
      const v = await api.call<{ total: number }>('GET', '/video-library-detailed?limit=1');
      const m = await api.call<{ total: number }>('GET', '/music-library-detailed?limit=1');
      if (v.body.total === 10 && m.body.total === 6) break;
      if (Date.now() > deadline) throw new Error(`starter content not imported: ${v.body.total} clips, ${m.body.total} tracks`);
      await new Promise((r) => setTimeout(r, 1000));
    }
  }, 600_000);
  afterAll(() => closeAll(browser, undefined));

  it('/library: counts, search, category filter, hover preview and the player', async () => {
    await page.goto(`${sys.baseUrl}/library`);
    const counts = page.getByTestId('library-counts');
    await counts.getByText('Showing 10 of 10 videos · 10 total clips available').waitFor();
    expect(await page.getByTestId('clip-card').count()).toBe(10);
    // Thumbnails are real images behind URLs.
    await page.waitForFunction(
      () =>
        Array.from(document.querySelectorAll<HTMLImageElement>('.clip-card img')).filter((i) => i.complete && i.naturalWidth > 0).length ===
        10,
    );
    await page.screenshot({ path: shot('library-1-all'), fullPage: true });

    // Typed key by key; Tab to the category, arrow keys choose it.
    const search = page.getByLabel('Search videos');
    await search.pressSequentially('BUNNY');
    await counts.getByText('Showing 2 of 2 videos · 10 total clips available').waitFor();
    expect(await search.inputValue()).toBe('BUNNY');
    await page.keyboard.press('Control+A');
    await page.keyboard.press('Backspace');
    await page.getByLabel('Category').selectOption({ label: 'People' });
    await counts.getByText('Showing 4 of 4 videos').waitFor();
    await search.pressSequentially('no such clip');
    await page.getByText('No videos match your search').waitFor();
    expect(await search.inputValue()).toBe('no such clip');
    expect(await axeViolations(page)).toEqual([]);
    await page.keyboard.press('Control+A');
    await page.keyboard.press('Backspace');
    await page.getByLabel('Category').selectOption({ label: 'All Categories' });
    await counts.getByText('Showing 10 of 10 videos').waitFor();

    // Scrolled to the bottom with everything shown: nothing more is asked for.
    await page.mouse.wheel(0, 5000);
    await page.waitForTimeout(300);
    expect(await page.getByTestId('clip-card').count()).toBe(10);

    const first = page.getByTestId('clip-card').first();
    await first.hover();
    const preview = first.locator('video');
    await preview.waitFor();
    await page.waitForFunction(() => ((document.querySelector('.clip-card video') as HTMLVideoElement | null)?.currentTime ?? 0) >= 1);
    await first.getByRole('button').click();
    const player = page.getByRole('dialog');
    await player.locator('video[controls]').waitFor();
    await page.screenshot({ path: shot('library-2-player'), fullPage: true });
    expect(await axeViolations(page)).toEqual([]);
    await page.keyboard.press('Escape');
    await player.waitFor({ state: 'detached' });
    expect(await first.getByRole('button').evaluate((b) => b === document.activeElement)).toBe(true);
  }, 60_000);

  it('Home: picks library music (preview, BPM, waveform) and clips, makes a reel, and /reels shows it live and deletes it', async () => {
    const api = new Api(sys.baseUrl, sys.dataDir);
    await api.signUp(`libraries.${Date.now()}@example.com`);
    await page.evaluate((t) => localStorage.setItem('reelsmith.session_token', t), api.token);

    // My Reels open in another tab from the start: the reel must appear there without a reload.
    const reels = await browser.newPage({ viewport: { width: 390, height: 900 }, ...signedIn(sys.baseUrl, api.token) });
    await reels.goto(`${sys.baseUrl}/reels`);
    await reels.getByText('Your reels collection is empty').waitFor();

    await page.goto(`${sys.baseUrl}/`);
    await page.getByRole('button', { name: /@example\.com/ }).waitFor();

    // Music: preview one track, select another, see its tempo and beat markers, use it.
    const browseMusic = page.getByRole('button', { name: 'Browse Music Library' });
    await browseMusic.focus();
    await page.keyboard.press('Enter');
    const music = page.getByRole('dialog', { name: 'Music Library' });
    await music.getByTestId('track').first().waitFor();
    expect(await music.getByTestId('track').count()).toBe(6);
    // The search has the focus; typing (a space included) keeps it there and the dialog open.
    expect(await focusIn(page)).toEqual({ inDialog: 'Music Library', label: 'Search music' });
    await page.keyboard.type('neon ');
    await page.waitForFunction(() => document.querySelectorAll('dialog [data-testid=track]').length === 1);
    expect(await music.getByLabel('Search music').inputValue()).toBe('neon ');
    expect(await focusIn(page)).toEqual({ inDialog: 'Music Library', label: 'Search music' });
    expect(await axeViolations(page)).toEqual([]);
    for (let i = 0; i < 'neon '.length; i++) await page.keyboard.press('Backspace');
    await page.waitForFunction(() => document.querySelectorAll('dialog [data-testid=track]').length === 6);
    // Escape closes it and the focus is back on its button; Enter opens it again.
    await page.keyboard.press('Escape');
    await music.waitFor({ state: 'detached' });
    expect(await browseMusic.evaluate((b) => b === document.activeElement)).toBe(true);
    await page.keyboard.press('Enter');
    await music.getByTestId('track').first().waitFor();
    const slow = music.getByTestId('track').filter({ hasText: 'Paper Lanterns' });
    expect(await slow.textContent()).toContain('86 BPM');
    await slow.getByRole('button', { name: 'Play Paper Lanterns' }).click();
    await slow.getByRole('button', { name: 'Stop Paper Lanterns' }).waitFor();
    // Only one at a time: playing another stops the first.
    const fast = music.getByTestId('track').filter({ hasText: 'Neon Tide' });
    await fast.getByRole('button', { name: 'Play Neon Tide' }).click();
    await fast.getByRole('button', { name: 'Stop Neon Tide' }).waitFor();
    await slow.getByRole('button', { name: 'Play Paper Lanterns' }).waitFor();
    await fast.getByRole('button', { name: 'Stop Neon Tide' }).click();
    await fast.getByRole('button', { name: 'Play Neon Tide' }).waitFor();

    await slow.getByRole('button', { name: 'Paper Lanterns', exact: true }).click();
    await music.getByRole('img', { name: /Waveform with \d+ beat markers/ }).waitFor();
    // 2:40 at 86 BPM: about 228 beats.
    const markers = await music.getByTestId('beat-marker').count();
    expect(markers).toBeGreaterThan(210);
    expect(markers).toBeLessThan(245);
    await page.screenshot({ path: shot('libraries-1-music'), fullPage: true });
    await music.getByRole('button', { name: 'Use this track' }).click();
    const tray = page.getByRole('region', { name: 'Media tray' });
    await tray.getByTestId('tray-music').getByText('♪ Paper Lanterns', { exact: true }).waitFor();
    // The library knows its tempo and the tray draws its waveform once its analysis is read.
    await tray.getByTestId('music-facts').getByText('2:40 · 86 BPM').waitFor();
    await tray
      .getByTestId('tray-music')
      .getByRole('img', { name: /Waveform with \d+ beat markers/ })
      .waitFor();

    // Clips: the cap of the free plan is shown; pick the two short signing clips.
    await page.getByRole('button', { name: 'Browse Video Library' }).click();
    const videos = page.getByRole('dialog', { name: 'Video Library' });
    await videos.getByText('0 of up to 20 clips selected').waitFor();
    expect(await focusIn(page)).toEqual({ inDialog: 'Video Library', label: 'Search videos' });
    await page.keyboard.type('signing');
    expect(await videos.getByLabel('Search videos').inputValue()).toBe('signing');
    // The grid settles on the two matches before anything is clicked (no layout shift under the pointer).
    await page.waitForFunction(() => document.querySelectorAll('dialog[open] [data-testid=clip-card]').length === 2);
    await videos.getByRole('button', { name: 'Select signing-again.mp4', exact: true }).click();
    await videos.getByText('1 of up to 20 clips selected').waitFor();
    await videos.getByRole('button', { name: 'Select signing-walk.mp4', exact: true }).click();
    await videos.getByText('2 of up to 20 clips selected').waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await videos.getByRole('button', { name: 'Use 2 clips' }).click();
    await tray.getByText('signing-walk.mp4').waitFor();
    // Library clips are stored already: ready at once, with their thumbnail, in the order chosen.
    expect(await tray.getByTestId('tray-clip').count()).toBe(2);
    expect(await tray.getByTestId('tray-clip').first().getAttribute('data-state')).toBe('ready');
    expect(await tray.getByTestId('tray-clip').first().textContent()).toContain('signing-again.mp4');
    await page.waitForFunction(() => {
      const img = document.querySelector<HTMLImageElement>('[data-testid=tray-clip] img');
      return Boolean(img?.complete && img.naturalWidth > 0);
    });
    // A 15 s reel (the shortest preset; nothing here checks the length): the song is 2:40, and
    // the whole song is the default length.
    await page.getByRole('radio', { name: '15 s' }).click();
    expect(await page.getByRole('radio', { name: '15 s' }).isChecked()).toBe(true);
    await page
      .getByTestId('estimate')
      .getByText(/Estimated cost: \d+ credits/)
      .waitFor();
    await page.screenshot({ path: shot('libraries-2-home'), fullPage: true });

    // The instant preview plays the library track under the edit (its clock drives the playhead).
    await page.getByRole('button', { name: 'Preview edit' }).click();
    const studio = page.getByTestId('studio');
    await studio.waitFor({ timeout: 60_000 });
    await studio.getByTestId('preview-play').click();
    const played = await page.waitForFunction(
      () => {
        const a = document.querySelector<HTMLAudioElement>('.instant-preview audio');
        return a && !a.paused && a.currentTime > 0.5 ? a.src : false;
      },
      undefined,
      { timeout: 30_000 },
    );
    expect(await played.jsonValue()).toMatch(/\/api\/v1\/music-library\/preview\/[^/]+$/);
    await studio.getByRole('button', { name: 'Pause' }).click();

    await page.getByRole('button', { name: 'Generate This Edit' }).click();
    const card = page.getByTestId('job-card');
    await card.getByRole('link', { name: 'Download' }).waitFor({ timeout: 240_000 });

    // The other tab shows the finished reel by itself (it refreshes every 15 s).
    const reelCard = reels.getByTestId('reel-card');
    await reelCard.waitFor({ timeout: 30_000 });
    expect(await reelCard.textContent()).toMatch(/Music.*Beat/);
    expect(await reels.getByTestId('reel-expiry').textContent()).toMatch(/^Kept until /);
    await reels.getByText('Create More Reels').waitFor();
    expect(await axeViolations(reels)).toEqual([]);
    await reels.screenshot({ path: shot('libraries-3-reels'), fullPage: true });
    const href = (await reelCard.getByRole('link', { name: 'Download' }).getAttribute('href'))!;
    expect((await fetch(href.replace('localhost', '127.0.0.1'))).status).toBe(200);

    reels.once('dialog', (d) => void d.accept());
    await reelCard.getByRole('button', { name: /^Delete / }).click();
    await reels.getByText('Your reels collection is empty').waitFor();
    expect((await fetch(href.replace('localhost', '127.0.0.1'))).status).toBe(404);
    await reels.close();
  }, 360_000);
});
