import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, FileChooser, Page } from 'playwright-core';
import type { JobRequest, PlanResult } from '../../web/src/api/types.js' with { 'resolution-mode': 'import' };
import { Api } from '../support/api';
import {
  closeAll,
  launchBrowser,
  nextFileChooser,
  openPage,
  shot,
  signInByKeyboard,
  tabTo as tabToIn,
  trayHolds,
} from '../support/browser';
import { makeSong } from '../support/media';
import { SHARED_START_MS, sharedSystem, type SharedSystem } from '../support/shared-system';

const MEDIA = path.resolve(__dirname, '..', '..', '..', 'shared', 'media');

/**
 * Issue 34, as a person does it: sign in by typing, add clips and a 48 s song, choose a 30 s reel
 * with the keyboard, open the plan preview, move the song's window a bar with the keyboard and
 * again by dragging it (each re-plans at once, on a bar line), generate that edit and download a
 * reel that lasts what the plan says.
 */
describe('Home: a 30 s reel from the part of the song the user picks', () => {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'reelsmith-length-'));
  const song = path.join(work, 'song.mp3');
  let sys: SharedSystem;
  let browser: Browser;
  let page: Page;
  let chooser: Promise<FileChooser>;

  beforeAll(async () => {
    // 120 BPM, 48 s: a quiet intro of 8 bars (the thump alone), a verse of 4 (thump and hi-hat), a
    // loud chorus of 8 (a chord over both), the verse again.
    const thump = 'sin(2*PI*55*t)*exp(-25*mod(t\\,0.5))';
    const hat = 'sin(2*PI*7000*t)*exp(-60*mod(t+0.25\\,0.5))';
    const chord = '(sin(2*PI*220*t)+sin(2*PI*277*t)+sin(2*PI*330*t))/3';
    const expr = `(0.2+0.35*gte(t\\,16))*${thump}+0.15*gte(t\\,16)*${hat}+0.25*gte(t\\,24)*lt(t\\,40)*${chord}`;
    makeSong(song, expr, 48);
    [sys, browser] = await Promise.all([sharedSystem(), launchBrowser()]);
    page = await openPage(browser);
    chooser = nextFileChooser(page);
    page.on('response', (r) => {
      if (r.url().endsWith('/jobs/plan') && r.request().method() === 'POST' && r.status() === 200)
        void r.json().then((b: PlanResult) => plans.push(b));
    });
  }, SHARED_START_MS);
  afterAll(() => closeAll(browser, undefined, work));

  const tabTo = (name: RegExp) => tabToIn(page, name);
  /** The plan preview's answers so far (200s only: a 409 while the song is analysed is asked again). */
  const plans: PlanResult[] = [];
  /** Does `act` and waits for the plan it asks for. */
  const replan = async (act: () => Promise<void>, timeoutMs = 30_000) => {
    const n = plans.length;
    await act();
    for (const end = Date.now() + timeoutMs; plans.length === n && Date.now() < end;) await page.waitForTimeout(100);
    // No new plan: the page's own words say why.
    const alert = plans.length === n ? [...(await page.getByRole('alert').allTextContents()), sys.output().slice(-3000)] : [];
    expect([plans.length > n, alert]).toEqual([true, []]);
    return plans[plans.length - 1]!;
  };
  const slider = () => page.getByRole('slider', { name: "Start of the reel's music" });
  /** The window's slider once its plan is in (no 'planning…'): where it starts and what it says. */
  const settled = async () => {
    await page.waitForFunction(() => !document.querySelector('[data-testid=window-start]')?.textContent?.includes('planning'), undefined, {
      timeout: 30_000,
    });
    const s = slider();
    return { start: Number(await s.getAttribute('data-start')), text: (await s.getAttribute('aria-valuetext')) ?? '' };
  };
  const nearestBar = (bars: number[], t: number) => bars.reduce((b, x) => (Math.abs(x - t) < Math.abs(b - t) ? x : b));
  const barOf = (text: string) => Number(/bar (\d+)$/.exec(text)?.[1]);

  it('by keyboard, signs in, chooses files and 30 s, moves the window (and by dragging), generates and downloads the plan’s length', async () => {
    const email = `length.${Date.now()}@example.com`;
    await new Api(sys.baseUrl, sys.dataDir).signUp(email, 'typed-password');
    await page.goto(`${sys.baseUrl}/`);
    await page.getByRole('heading', { level: 1, name: 'Create a Reel' }).waitFor();

    // Sign in, typed.
    await signInByKeyboard(page, email, 'typed-password');

    // Clips and the song, through Choose Files.
    await tabTo(/^Choose Files$/);
    // The listener is on since the page opened (Playwright turns file-chooser interception on
    // asynchronously: a listener added just before Enter can miss the chooser).
    await page.keyboard.press('Enter');
    let timer: NodeJS.Timeout | undefined;
    const opened = await Promise.race([chooser, new Promise<null>((r) => (timer = setTimeout(() => r(null), 30_000)))]);
    clearTimeout(timer);
    if (!opened) throw new Error('Enter on Choose Files opened no file chooser in 30 s');
    await opened.setFiles([
      path.join(MEDIA, 'counter.mp4'),
      path.join(MEDIA, 'bottle-detection.mp4'),
      path.join(MEDIA, 'testvideo.mp4'),
      song,
    ]);
    await trayHolds(page, 3);

    // 30 s in the length picker: the arrow keys move through its radio group.
    const whole = page.getByRole('radio', { name: 'Whole song' });
    expect(await whole.isChecked()).toBe(true);
    await whole.focus();
    for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowLeft');
    expect(await page.getByRole('radio', { name: '30 s' }).isChecked()).toBe(true);
    await page.getByText('Cut from the best part of the song, starting and ending on the bar.').waitFor();

    // Preview edit: the whole song with its sections, bar lines and the 30 s window.
    await page.getByRole('button', { name: 'Preview edit' }).waitFor({ timeout: 30_000 });
    let reply = await replan(async () => {
      await tabTo(/^Preview edit$/);
      await page.keyboard.press('Enter');
    }, 90_000);
    await page.getByTestId('song-window').waitFor({ timeout: 60_000 });
    const bars = reply.music!.downbeats;
    expect(reply.music!.duration_sec).toBeGreaterThan(47);
    expect(reply.plan.total_sec).toBeGreaterThan(29);
    expect(reply.plan.total_sec).toBeLessThan(31);
    expect(reply.music!.sections.length).toBeGreaterThanOrEqual(2);
    expect(await page.getByTestId('song-section').count()).toBe(reply.music!.sections.length);
    expect(await page.getByTestId('bar-line').count()).toBe(bars.length);
    const first = await settled();
    expect(first.start).toBeCloseTo(reply.plan.music_start, 6);
    expect(first.text).toMatch(/^Starts at \d+:\d\d, bar \d+$/);
    await page.screenshot({ path: shot('length-1-window'), fullPage: true });

    // The keyboard: Tab to the window, one bar later (or earlier at the last start) with the arrows.
    await tabTo(/^Start of the reel's music$/);
    const atEnd = (await slider().getAttribute('aria-valuenow')) === (await slider().getAttribute('aria-valuemax'));
    const shownBefore = await page.getByTestId('window-start').textContent();
    reply = await replan(() => page.keyboard.press(atEnd ? 'ArrowLeft' : 'ArrowRight'));
    const keyed = await settled();
    expect(barOf(keyed.text)).toBe(barOf(first.text) + (atEnd ? -1 : 1));
    expect(reply.plan.music_start).toBeCloseTo(keyed.start, 6);
    expect(Math.abs(nearestBar(bars, keyed.start) - keyed.start)).toBeLessThan(1e-6);
    expect(await page.getByTestId('window-start').textContent()).not.toBe(shownBefore);

    // Home: the first bar line the window can start on (bar 1), re-planned.
    reply = await replan(() => page.keyboard.press('Home'));
    const home = await settled();
    expect(home.text).toMatch(/, bar 1$/);
    expect(reply.plan.music_start).toBeCloseTo(bars[0]!, 6);

    // The pointer: drag the window about 6 bars (12 s) later; it lands on a bar line.
    const track = (await page.locator('.song-track').boundingBox())!;
    const frame = (await slider().boundingBox())!;
    const perSec = track.width / reply.music!.duration_sec;
    const y = frame.y + frame.height / 2;
    const x0 = frame.x + frame.width / 2;
    reply = await replan(async () => {
      await page.mouse.move(x0, y);
      await page.mouse.down();
      await page.mouse.move(x0 + 6 * perSec, y, { steps: 4 });
      await page.mouse.move(x0 + 12 * perSec, y, { steps: 4 });
      await page.mouse.up();
    });
    const dragged = await settled();
    expect(dragged.start).toBeGreaterThan(home.start + 9);
    expect(dragged.start).toBeLessThan(home.start + 15);
    expect(Math.abs(nearestBar(bars, dragged.start) - dragged.start)).toBeLessThan(1e-6);
    expect(reply.plan.music_start).toBeCloseTo(dragged.start, 6);
    const plan = reply.plan;
    expect(plan.total_sec).toBeGreaterThan(29);
    expect(plan.total_sec).toBeLessThan(31);
    await page.screenshot({ path: shot('length-2-moved'), fullPage: true });

    // At 390 px the song, its sections and the window fit the screen.
    await page.setViewportSize({ width: 390, height: 844 });
    const narrow = (await page.getByTestId('song-window').boundingBox())!;
    expect(narrow.x).toBeGreaterThanOrEqual(0);
    expect(narrow.x + narrow.width).toBeLessThanOrEqual(390);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await page.getByTestId('song-window').screenshot({ path: shot('length-3-phone') });
    await page.setViewportSize({ width: 1280, height: 1000 });

    // Generate This Edit: the job request names the window's bar line.
    const assemble = page.waitForRequest((r) => r.url().endsWith('/jobs/assemble') && r.method() === 'POST');
    await tabTo(/^Generate This Edit$/);
    await page.keyboard.press('Enter');
    const sent = (await assemble).postDataJSON() as Required<Pick<JobRequest, 'target_duration_sec' | 'music_start_sec' | 'plan'>>;
    expect(sent.target_duration_sec).toBe(30);
    expect(sent.music_start_sec).toBeCloseTo(dragged.start, 6);
    expect(sent.plan.music_start).toBeCloseTo(dragged.start, 6);
    const download = page.getByTestId('job-card').getByRole('link', { name: 'Download' });
    await download.waitFor({ timeout: 180_000 });
    await tabTo(/^Download$/);
    expect(await download.evaluate((a) => a === document.activeElement)).toBe(true);
    const res = await fetch((await download.getAttribute('href'))!.replace('localhost', '127.0.0.1'));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('video/mp4');
    const reel = path.join(work, 'reel.mp4');
    fs.writeFileSync(reel, Buffer.from(await res.arrayBuffer()));
    const probe = (entries: string, stream?: string) =>
      execFileSync(
        'ffprobe',
        ['-v', 'error', ...(stream ? ['-select_streams', stream] : []), '-show_entries', entries, '-of', 'csv=p=0', reel],
        { encoding: 'utf8' },
      ).trim();
    const seconds = Number(probe('format=duration'));
    const video = Number(probe('stream=duration', 'v:0'));
    console.log(`reel: plan ${plan.total_sec} s from ${plan.music_start} s; file ${seconds} s (video ${video} s)`);
    // Within a frame or so (30 fps) of the plan's length.
    expect(Math.abs(video - plan.total_sec)).toBeLessThanOrEqual(1.5 / 30);
    expect(Math.abs(seconds - plan.total_sec)).toBeLessThanOrEqual(2 / 30);
    await page.screenshot({ path: shot('length-4-done'), fullPage: true });
  }, 300_000);
});
