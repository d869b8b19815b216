import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { Api } from '../support/api';
import { axeViolations } from '../support/axe';
import { closeAll, launchBrowser, openPage, openSignedIn, shot, signedIn, trayDone } from '../support/browser';
import { BEAT_120, makeSong } from '../support/media';
import { until } from '../support/processes';
import { SHARED_START_MS, sharedSystem, type SharedSystem } from '../support/shared-system';

const MEDIA = path.resolve(__dirname, '..', '..', '..', 'shared', 'media');

describe('Home: the assembly flow in Chromium with real clips', () => {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'reelsmith-home-'));
  const music = path.join(work, 'beat.mp3');
  const longMusic = path.join(work, 'long-beat.mp3');
  // Named like a video, but text: the server refuses it.
  const notes = path.join(work, 'notes.mp4');
  fs.writeFileSync(notes, 'these are my notes, not a video\n'.repeat(40));
  let sys: SharedSystem;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    makeSong(music, BEAT_120, 8);
    // 90 s: a render long enough to reload and cancel while it runs.
    execFileSync('ffmpeg', ['-v', 'error', '-stream_loop', '11', '-i', music, '-t', '90', '-c:a', 'libmp3lame', '-b:a', '128k', longMusic]);
    [sys, browser] = await Promise.all([sharedSystem(), launchBrowser()]);
    page = await openPage(browser);
  }, SHARED_START_MS);
  afterAll(() => closeAll(browser, undefined, work));

  it('asks a signed-out visitor to sign in before generating', async () => {
    await page.goto(`${sys.baseUrl}/`);
    await page.getByRole('button', { name: 'Generate Reel' }).click();
    await page.getByRole('dialog', { name: 'Sign In' }).waitFor();
    await page.keyboard.press('Escape');
  });

  it('uploads each file as it is added into the tray, renders a vertical reel and plays it in place', async () => {
    const api = new Api(sys.baseUrl, sys.dataDir);
    await api.signUp(`home.${Date.now()}@example.com`);
    await openSignedIn(page, sys.baseUrl, api.token);

    // Nothing selected: the spec's message.
    await page.getByRole('button', { name: 'Generate Reel' }).click();
    await page.getByText('Please add at least one video file or select from library.').waitFor();

    // Step 1: files through the picker upload at once; a file the server refuses is marked with
    // its reason while the good ones stay.
    await page.setInputFiles('input[type=file]', [
      path.join(MEDIA, 'walk.mkv'),
      path.join(MEDIA, 'counter.mp4'),
      notes,
      path.join(MEDIA, 'again.mkv'),
      music,
    ]);
    const tray = page.getByRole('region', { name: 'Media tray' });
    const tiles = tray.getByTestId('tray-clip');
    await trayDone(page, ['ready', 'refused']);
    expect(await tiles.count()).toBe(4);
    const refused = tiles.filter({ hasText: 'notes.mp4' });
    expect(await refused.getAttribute('data-state')).toBe('refused');
    expect(await refused.getByRole('alert').textContent()).toMatch(/^Not uploaded: .+/);
    // Each stored clip shows its duration and resolution (from the server's probe) and a thumbnail.
    for (const name of ['walk.mkv', 'counter.mp4', 'again.mkv']) {
      const tile = tiles.filter({ hasText: name });
      expect(await tile.getAttribute('data-state')).toBe('ready');
      expect(await tile.getByTestId('tile-facts').textContent()).toMatch(/^\d+:\d\d · \d+p/);
      expect(await tile.locator('img').count()).toBe(1);
    }
    // The music: its duration and, once analysed, its tempo and waveform.
    await tray
      .getByTestId('music-facts')
      .getByText(/0:08 · \d+ BPM$/)
      .waitFor({ timeout: 60_000 });
    await tray
      .getByTestId('tray-music')
      .getByRole('img', { name: /Waveform with \d+ beat markers/ })
      .waitFor();
    // Reorder with the keyboard-reachable buttons: again.mkv moves before notes.mp4.
    await tray.getByRole('button', { name: 'Move again.mkv earlier' }).click();
    expect(await tiles.nth(2).textContent()).toContain('again.mkv');
    await page
      .getByTestId('estimate')
      .getByText(/Estimated cost: \d+ credits/)
      .waitFor();
    expect(await page.getByTestId('estimate').textContent()).toContain('free video of the day');
    expect(await axeViolations(page)).toEqual([]);
    await page.screenshot({ path: shot('home-1-media'), fullPage: true });

    // Step 2: settings in named groups, validated in the form with the server's limits.
    const title = page.getByRole('group', { name: 'Title' });
    await title.getByLabel('Title text').focus();
    await page.keyboard.press('Control+A');
    await page.keyboard.type('Signing Session');
    expect(await title.getByLabel('Title text').inputValue()).toBe('Signing Session');
    await title.getByLabel('Position').selectOption('top');
    await page.getByRole('group', { name: 'Editing' }).getByLabel('Pacing').selectOption('high-energy');
    expect(await page.getByRole('group', { name: 'Fades', exact: true }).getByRole('checkbox').count()).toBe(1);
    // Turning the title off hides its fields; on again, they are as they were.
    await title.getByLabel('Show a title').uncheck();
    expect(await title.getByLabel('Title text').count()).toBe(0);
    await title.getByLabel('Show a title').check();
    expect(await title.getByLabel('Title text').inputValue()).toBe('Signing Session');
    const size = title.getByLabel('Font size');
    await size.focus();
    await page.keyboard.press('Control+A');
    await page.keyboard.press('Backspace'); // clearing the field does not snap back
    expect(await size.inputValue()).toBe('');
    await page.getByText('Font size is required').waitFor();
    await page.keyboard.type('900');
    await page.getByText('Font size must be at most 400').waitFor();
    await page.getByRole('button', { name: 'Generate Reel' }).click();
    await page.getByRole('alert').filter({ hasText: 'Font size must be at most 400' }).first().waitFor();
    await size.focus();
    await page.keyboard.press('Control+A');
    await page.keyboard.type('64');
    expect(await size.inputValue()).toBe('64');
    await page.getByRole('radio', { name: /9:16/ }).check();
    expect(await axeViolations(page)).toEqual([]);
    await page.screenshot({ path: shot('home-2-settings'), fullPage: true });

    // Generate: the card, then the reel plays in place with Download and My Reels beside it.
    await page.getByRole('button', { name: 'Generate Reel' }).click();
    const card = page.getByTestId('job-card');
    await card.waitFor({ timeout: 60_000 });
    await page.screenshot({ path: shot('home-3-progress'), fullPage: true });
    const download = card.getByRole('link', { name: 'Download' });
    await download.waitFor({ timeout: 180_000 });
    expect(await card.getByText('Complete').first().isVisible()).toBe(true);
    expect(await card.getByRole('progressbar').getAttribute('aria-valuenow')).toBe('100');
    await card.getByRole('link', { name: 'My Reels' }).waitFor();
    const player = card.getByTestId('reel-player');
    await page.waitForFunction(
      () => (document.querySelector<HTMLVideoElement>('[data-testid=reel-player]')?.readyState ?? 0) >= 1,
      undefined,
      {
        timeout: 30_000,
      },
    );
    const shape = await player.evaluate((v: HTMLVideoElement) => ({ w: v.videoWidth, h: v.videoHeight, d: v.duration }));
    expect(shape.h).toBeGreaterThan(shape.w); // 9:16, as chosen
    expect(shape.d).toBeGreaterThan(7);
    expect(await axeViolations(page)).toEqual([]);
    await page.screenshot({ path: shot('home-4-complete'), fullPage: true });
    const href = (await download.getAttribute('href'))!;
    const res = await fetch(href.replace('localhost', '127.0.0.1'));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('video/mp4');
    const reel = path.join(work, 'home-reel.mp4');
    fs.writeFileSync(reel, Buffer.from(await res.arrayBuffer()));
    const probe = execFileSync(
      'ffprobe',
      ['-v', 'error', '-select_streams', 'v:0', '-show_entries', 'stream=width,height', '-of', 'csv=p=0', reel],
      {
        encoding: 'utf8',
      },
    ).trim();
    const [w, h] = probe.split(',').map(Number);
    expect(w! / h!).toBeCloseTo(9 / 16, 2);

    // The free video is used: the estimate line says so.
    await page.getByRole('button', { name: 'Create Another Video' }).click();
    await page.getByRole('button', { name: 'Generate Reel' }).waitFor();
    await page
      .getByTestId('estimate')
      .getByText(/free video for today is used/)
      .waitFor();
    await page.screenshot({ path: shot('home-5-again'), fullPage: true });
  }, 300_000);

  it('previews the edit before paying: lock one segment, re-roll another, and the render follows the plan shown', async () => {
    const api = new Api(sys.baseUrl, sys.dataDir);
    await api.signUp(`home.studio.${Date.now()}@example.com`);
    await openSignedIn(page, sys.baseUrl, api.token);
    await page.setInputFiles('input[type=file]', [
      path.join(MEDIA, 'counter.mp4'),
      path.join(MEDIA, 'bottle-detection.mp4'),
      path.join(MEDIA, 'testvideo.mp4'),
      music,
    ]);
    await trayDone(page);
    await page.getByLabel('Pacing').selectOption('high-energy');
    const account = (await api.call('GET', '/auth/me')).body;

    await page.getByRole('button', { name: 'Preview edit' }).click();
    const studio = page.getByTestId('studio');
    await studio.waitFor({ timeout: 60_000 });
    const segments = studio.getByTestId('segment');
    const n = await segments.count();
    expect(n).toBeGreaterThan(3);
    expect(await studio.getByTestId('beat-marker').count()).toBeGreaterThan(8);
    await studio
      .getByTestId('plan-estimate')
      .getByText(/Generating this edit: \d+ credits/)
      .waitFor();
    // One thumbnail per segment, loaded.
    await page.waitForFunction(
      (count) =>
        Array.from(document.querySelectorAll<HTMLImageElement>('[data-testid=segment] img')).filter((i) => i.complete && i.naturalWidth > 0)
          .length === count,
      n,
      { timeout: 30_000 },
    );
    expect(await axeViolations(page)).toEqual([]);
    await page.screenshot({ path: shot('home-studio-1-plan'), fullPage: true });

    // Lock the first segment (keyboard), re-roll the second.
    await segments.first().focus();
    await page.keyboard.press('l');
    expect(await segments.first().getAttribute('aria-label')).toContain('locked');
    const detail = studio.getByTestId('segment-detail');
    const first = await detail.textContent();
    const firstLabel = await segments.first().getAttribute('aria-label');
    await segments.nth(1).click();
    const before = await detail.textContent();
    await studio.getByRole('button', { name: 'Re-roll' }).click();
    await page.waitForFunction((old) => document.querySelector('[data-testid=segment-detail]')?.textContent !== old, before, {
      timeout: 30_000,
    });
    await segments.first().click();
    expect(await detail.textContent()).toBe(first); // the locked segment is exactly as it was
    expect(await segments.first().getAttribute('aria-label')).toBe(firstLabel);
    // Planning charged nothing.
    expect((await api.call('GET', '/auth/me')).body).toEqual(account);
    expect(await axeViolations(page)).toEqual([]);
    await page.screenshot({ path: shot('home-studio-2-edited'), fullPage: true });

    // The plan as shown: each segment's place on the reel and its clip.
    const shown = await segments.evaluateAll((els) =>
      els.map((e) => ({
        start: Number(e.getAttribute('data-start')),
        end: Number(e.getAttribute('data-end')),
        clip: /clip (\d+)/.exec(e.getAttribute('aria-label') ?? '')![1],
      })),
    );
    await page.getByRole('button', { name: 'Generate This Edit' }).click();
    const card = page.getByTestId('job-card');
    const download = card.getByRole('link', { name: 'Download' });
    await download.waitFor({ timeout: 180_000 });
    const res = await fetch((await download.getAttribute('href'))!.replace('localhost', '127.0.0.1'));
    const reel = path.join(work, 'studio-reel.mp4');
    fs.writeFileSync(reel, Buffer.from(await res.arrayBuffer()));

    // Cuts found in the pixels sit within one frame of the plan's boundaries between different clips.
    const fps = 30;
    const W = 32;
    const H = 18;
    const raw = execFileSync(
      'ffmpeg',
      ['-v', 'error', '-i', reel, '-vf', `fps=${fps},scale=${W}:${H},format=gray`, '-f', 'rawvideo', '-'],
      {
        maxBuffer: 64 * 1024 * 1024,
      },
    );
    const frames = raw.length / (W * H);
    const diff = [0];
    for (let k = 1; k < frames; k++) {
      let sum = 0;
      for (let p = 0; p < W * H; p++) sum += Math.abs(raw[k * W * H + p]! - raw[(k - 1) * W * H + p]!);
      diff.push(sum / (W * H));
    }
    const median = [...diff].sort((a, b) => a - b)[Math.floor(diff.length / 2)]!;
    const boundaries = shown
      .slice(1)
      .filter((s, i) => s.clip !== shown[i]!.clip)
      .map((s) => s.start);
    expect(boundaries.length).toBeGreaterThan(1);
    for (const t of boundaries) {
      const k = Math.round(t * fps);
      const spike = Math.max(diff[k - 1] ?? 0, diff[k] ?? 0, diff[k + 1] ?? 0);
      expect({ t, spike: spike > Math.max(4 * median, 6) }).toEqual({ t, spike: true });
    }
  }, 300_000);

  it('keeps a running job across a reload, and Start Over cancels it after asking', async () => {
    const api = new Api(sys.baseUrl, sys.dataDir);
    await api.signUp(`home.cancel.${Date.now()}@example.com`);
    await openSignedIn(page, sys.baseUrl, api.token);
    await page.setInputFiles('input[type=file]', [
      path.join(MEDIA, 'big_buck_bunny_0_30.webm'),
      path.join(MEDIA, 'testvideo.mp4'),
      longMusic,
    ]);
    await trayDone(page);
    await page.getByRole('button', { name: 'Generate Reel' }).click();
    await page.getByTestId('job-card').waitFor({ timeout: 60_000 });

    // A reload while the job runs brings its card back from the server.
    await page.evaluate(() => localStorage.removeItem('reelsmith.home.job')); // as in another tab: only the server knows
    await page.reload();
    const card = page.getByTestId('job-card');
    await card.waitFor({ timeout: 30_000 });

    await card.getByRole('button', { name: 'Start Over' }).click();
    const ask = page.getByRole('dialog', { name: 'Cancel this reel?' });
    await ask.getByRole('button', { name: 'Keep it running' }).click();
    await card.getByRole('button', { name: 'Start Over' }).click();
    await ask.getByRole('button', { name: 'Cancel the reel' }).click();
    await card.getByText('The reel was cancelled; nothing was charged.').waitFor({ timeout: 30_000 });
    await page.screenshot({ path: shot('home-6-cancelled'), fullPage: true });
    // Nothing charged: the free video of the day is given back (the orchestrator releases the
    // reservation just after it publishes the cancelled status, so a moment after the card says so).
    const freeUsed = async () => ((await api.call('GET', '/auth/me')).body as { user: { daily_free_used: boolean } }).user.daily_free_used;
    await until('the free video of the day to be given back', async () => (await freeUsed()) === false, 15_000);
    expect(await freeUsed()).toBe(false);
  }, 180_000);

  it('fits a 390 px wide phone: header, tray and job card without sideways scrolling', async () => {
    const api = new Api(sys.baseUrl, sys.dataDir);
    await api.signUp(`a.rather.long.address.for.a.phone.${Date.now()}@example.com`);
    const phone = await browser.newPage({ viewport: { width: 390, height: 844 }, ...signedIn(sys.baseUrl, api.token) });
    await phone.goto(`${sys.baseUrl}/`);
    await phone.setInputFiles('input[type=file]', [path.join(MEDIA, 'walk.mkv'), path.join(MEDIA, 'counter.mp4'), music]);
    await trayDone(phone);
    // A file that is not video or audio is not silently dropped: the tray says so.
    const txt = path.join(work, 'shopping list.txt');
    fs.writeFileSync(txt, 'eggs\n');
    await phone.setInputFiles('input[type=file]', [txt]);
    expect(await phone.getByTestId('tray-refused').textContent()).toBe(
      'shopping list.txt is not a video or audio file and was not added. Supported formats: MP4, MOV, AVI, MKV for video; MP3, WAV, AAC, M4A for audio.',
    );
    // The stored uploads survive a reload, in order, ready to use.
    await phone.reload();
    const tray = phone.getByRole('region', { name: 'Media tray' });
    await tray.getByTestId('tray-music').filter({ hasText: 'beat.mp3' }).waitFor({ timeout: 30_000 });
    const tiles = tray.getByTestId('tray-clip');
    expect(await tiles.count()).toBe(2);
    expect(await tiles.nth(0).textContent()).toContain('walk.mkv');
    expect(await tiles.nth(1).textContent()).toContain('counter.mp4');
    expect(await tiles.nth(0).getAttribute('data-state')).toBe('ready');
    expect(await phone.evaluate(() => document.scrollingElement!.scrollWidth)).toBeLessThanOrEqual(390);
    // Every id on the page is unique (Step 3 and Step 4 both had id="step3").
    const ids = await phone.evaluate(() => Array.from(document.querySelectorAll('[id]'), (e) => e.id));
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
    expect(await phone.getByRole('region', { name: '4 Generate' }).count()).toBe(1);
    expect(await axeViolations(phone)).toEqual([]);
    await phone.screenshot({ path: shot('home-7-phone'), fullPage: true });
    await phone.close();
  }, 120_000);
});
