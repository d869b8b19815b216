import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, FileChooser, Page } from 'playwright-core';
import { CROSSING, crossingArgs, crossingBoxX, cropLeftAt } from '../../packages/engine/src/reframe/synthetic-clips';
import type { JobRequest, PlanResult } from '../../web/src/api/types.js' with { 'resolution-mode': 'import' };
import { Api } from '../support/api';
import { closeAll, launchBrowser, nextFileChooser, openPage, shot, signInByKeyboard, tabTo as tabToIn, trayDone } from '../support/browser';
import { SHARED_START_MS, sharedSystem, type SharedSystem } from '../support/shared-system';

const SRC = { w: CROSSING.width, h: CROSSING.height };
const BOX = CROSSING.box;

/** A plan segment's framing (its crop path), as POST /jobs/plan answers it. */
type Framing = NonNullable<PlanResult['plan']['segments'][number]['framing']>;

/** The crop's left edge at source time t along a path. */
const cropX = (f: Framing, t: number) => cropLeftAt(f.path, t);

/** The red pixels of the file's frame at `t`, at 108x192: how many and their mean x. */
function redAt(file: string, t: number): { count: number; cx: number } {
  const raw = execFileSync(
    'ffmpeg',
    [
      '-v',
      'error',
      '-ss',
      String(t),
      '-i',
      file,
      '-frames:v',
      '1',
      '-vf',
      'scale=108:192',
      '-f',
      'rawvideo',
      '-pix_fmt',
      'rgb24',
      'pipe:1',
    ],
    { maxBuffer: 16 * 1024 * 1024 },
  );
  let count = 0;
  let sx = 0;
  for (let p = 0; p + 2 < raw.length; p += 3)
    if (raw[p]! > 150 && raw[p + 1]! < 90 && raw[p + 2]! < 90) {
      count++;
      sx += (p / 3) % 108;
    }
  return { count, cx: count ? sx / count : NaN };
}

/**
 * Issue 43, as a person does it: a landscape clip of a subject crossing the frame, a 9:16 reel
 * chosen with the keyboard (the shape tile says it follows the subject), the plan preview shows
 * the crop the plan's path gives, and the generated file's frames have the subject where that
 * same path puts it.
 */
describe('Home: a vertical reel that keeps the subject, previewed as rendered', () => {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'reelsmith-reframe-'));
  const clip = path.join(work, 'crossing.mp4');
  let sys: SharedSystem;
  let browser: Browser;
  let page: Page;
  let chooser: Promise<FileChooser>;
  const plans: PlanResult[] = [];

  beforeAll(async () => {
    execFileSync('ffmpeg', crossingArgs(clip));
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

  it('chooses 9:16, sees the crop that follows the subject, and gets a file framed the same way', async () => {
    const email = `reframe.${Date.now()}@example.com`;
    await new Api(sys.baseUrl, sys.dataDir).signUp(email, 'typed-password');
    await page.goto(`${sys.baseUrl}/`);
    await page.getByRole('heading', { level: 1, name: 'Create a Reel' }).waitFor();
    await signInByKeyboard(page, email, 'typed-password');

    await tabTo(/^Choose Files$/);
    await page.keyboard.press('Enter');
    await (await chooser).setFiles([clip]);
    await trayDone(page);

    // The shape: Tab into the group (on 16:9, letterbox for a landscape reel), then the arrow to 9:16.
    expect(await page.getByTestId('framing-of-16:9').textContent()).toContain('Letterbox');
    await page.getByRole('radio', { name: /^16:9/ }).focus();
    await page.keyboard.press('ArrowRight');
    expect(await page.getByRole('radio', { name: /^9:16/ }).isChecked()).toBe(true);
    expect(await page.getByTestId('framing-of-9:16').textContent()).toContain('Follow the subject');
    expect(await page.getByTestId('framing-note').textContent()).toMatch(/^9:16 · Follow the subject/);
    expect(await page.getByRole('radio', { name: 'Follow the subject', exact: true }).isChecked()).toBe(true);
    // No fades and no title: every frame of the short reel shows the clip as it is.
    // (A checkbox has no text of its own for tabTo to read: focus it as a click on its label would, then Space.)
    for (const name of ['Show a title', 'Fades']) {
      const box = page.getByRole('checkbox', { name, exact: true });
      if (!(await box.isChecked())) continue;
      await box.focus();
      await page.keyboard.press('Space');
      expect(await box.isChecked()).toBe(false);
    }

    // The plan preview: each segment framed by a crop path in source pixels; the preview draws it.
    await page.getByRole('button', { name: 'Preview edit' }).waitFor({ timeout: 60_000 });
    await tabTo(/^Preview edit$/);
    await page.keyboard.press('Enter');
    await page.getByTestId('studio').waitFor({ timeout: 120_000 });
    for (const end = Date.now() + 30_000; !plans.length && Date.now() < end;) await page.waitForTimeout(100);
    const { plan } = plans[plans.length - 1]!;
    expect(plan.aspect).toBe('9:16');
    for (const s of plan.segments) expect(s.framing).toMatchObject({ mode: 'subject', width: 202, height: 360 });
    expect(plan.segments.some((s) => s.framing!.camera !== 'stationary')).toBe(true);
    // At the start the preview shows the crop the first key gives: a 9:16 window on the left of the picture.
    const frame = page.getByTestId('preview-frame');
    await page.waitForFunction(() =>
      (document.querySelector('[data-testid=preview-frame]') as HTMLElement | null)?.dataset.view?.includes(','),
    );
    expect(await frame.getAttribute('data-framing')).toBe('subject');
    const [vx, , vw] = (await frame.getAttribute('data-view'))!.split(',').map(Number) as [number, number, number, number];
    const first = plan.segments[0]!;
    expect(vw).toBeCloseTo(202 / 640, 3);
    expect(vx).toBeCloseTo(cropX(first.framing!, first.in) / 640, 2);
    const box = (await frame.boundingBox())!;
    expect(box.height).toBeGreaterThan(box.width * 1.7);
    await page.screenshot({ path: shot('reframe-1-preview'), fullPage: true });

    // The first cut moved one step earlier by keyboard: the second segment now starts earlier
    // in its clip than its crop path did, so the server frames it anew, and the render follows that.
    expect(plan.segments.length).toBeGreaterThanOrEqual(2);
    const planned = plans.length;
    await tabTo(/^Segment 1:/);
    await page.keyboard.press('[');
    for (const end = Date.now() + 30_000; plans.length === planned && Date.now() < end;) await page.waitForTimeout(100);
    const moved = plans[plans.length - 1]!.plan;
    expect(moved.segments[0]!.end).toBeLessThan(plan.segments[0]!.end);
    const second = moved.segments[1]!;
    expect(second.in).toBeLessThan(plan.segments[1]!.in);
    expect(second.framing!.path[0]!.t).toBeLessThanOrEqual(second.in + 1 / 30);
    expect(moved.segments.slice(2)).toEqual(plan.segments.slice(2));

    // Generate this edit: the request carries the framing and the plan with its paths.
    const assemble = page.waitForRequest((r) => r.url().endsWith('/jobs/assemble') && r.method() === 'POST');
    await tabTo(/^Generate This Edit$/);
    await page.keyboard.press('Enter');
    const sent = (await assemble).postDataJSON() as Required<Pick<JobRequest, 'framing' | 'plan'>>;
    expect(sent.framing).toBe('subject');
    expect(sent.plan.segments.map((s) => s.framing)).toEqual(moved.segments.map((s) => s.framing));
    const card = page.getByTestId('job-card');
    const download = card.getByRole('link', { name: 'Download' });
    await download.waitFor({ timeout: 180_000 });

    // The finished player takes the reel's shape and shows a frame, not a wide black box.
    const player = card.getByTestId('reel-player');
    await page.waitForFunction(
      () => (document.querySelector<HTMLVideoElement>('[data-testid=reel-player]')?.readyState ?? 0) >= 2,
      undefined,
      {
        timeout: 30_000,
      },
    );
    const pbox = (await player.boundingBox())!;
    expect(pbox.height).toBeGreaterThan(pbox.width * 1.7);
    expect(await player.evaluate((v: HTMLVideoElement) => v.currentTime)).toBeGreaterThan(0.5);
    await page.screenshot({ path: shot('reframe-2-reel'), fullPage: true });

    const res = await fetch((await download.getAttribute('href'))!.replace('localhost', '127.0.0.1'));
    expect(res.status).toBe(200);
    const reel = path.join(work, 'reel.mp4');
    fs.writeFileSync(reel, Buffer.from(await res.arrayBuffer()));
    // Every half second: the whole box is in the frame, where the previewed path puts it.
    const scale = 1920 / SRC.h / (1920 / 192);
    const whole = BOX.w * BOX.h * scale * scale;
    for (let t = 0.25; t < moved.total_sec - 0.1; t += 0.5) {
      const s = moved.segments.find((x) => t >= x.start && t < x.end)!;
      const src = s.in + (t - s.start);
      const seen = redAt(reel, t);
      const expected = (crossingBoxX(src) + BOX.w / 2 - cropX(s.framing!, src)) * scale;
      expect([t, seen.count > 0.8 * whole, Math.abs(seen.cx - expected) < 4]).toEqual([t, true, true]);
    }
  }, 400_000);
});
