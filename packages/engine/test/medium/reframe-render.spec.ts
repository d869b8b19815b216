/**
 * Issue 43 end to end in the engine: a generated landscape clip with a red box crossing the whole
 * width of a textured background is rendered to 9:16. With subject framing the box must be wholly
 * in the picture in (nearly) every frame, and where the plan's crop path says; the centre crop
 * of the same clip loses it most of the time (so this test can fail).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { renderReel, type RenderResult } from '../../src/render';
import { CROSSING, crossingArgs, crossingBoxX, cropLeftAt } from '../../src/reframe/synthetic-clips';
import type { Segment } from '../../src/plan';
import { ffprobe, TEST_PRESET } from '../media';

const SRC = { w: CROSSING.width, h: CROSSING.height };
const BOX = CROSSING.box;
const SECONDS = CROSSING.seconds;
const boxX = crossingBoxX;
/** Frames are checked at this size (the output is 1080x1920) and rate. */
const CHECK = { w: 108, h: 192, fps: 10 };

/** Red pixels of each checked frame: count, touching the left or right edge, and their mean x. */
function redPerFrame(file: string): Array<{ t: number; count: number; edge: boolean; cx: number }> {
  const raw = execFileSync(
    'ffmpeg',
    ['-v', 'error', '-i', file, '-vf', `fps=${CHECK.fps},scale=${CHECK.w}:${CHECK.h}`, '-f', 'rawvideo', '-pix_fmt', 'rgb24', 'pipe:1'],
    { maxBuffer: 256 * 1024 * 1024 },
  );
  const size = CHECK.w * CHECK.h * 3;
  const frames = [];
  for (let f = 0; (f + 1) * size <= raw.length; f++) {
    let count = 0;
    let edge = false;
    let sx = 0;
    for (let y = 0; y < CHECK.h; y++)
      for (let x = 0; x < CHECK.w; x++) {
        const i = f * size + (y * CHECK.w + x) * 3;
        if (raw[i]! > 150 && raw[i + 1]! < 90 && raw[i + 2]! < 90) {
          count++;
          sx += x;
          if (x === 0 || x === CHECK.w - 1) edge = true;
        }
      }
    frames.push({ t: f / CHECK.fps, count, edge, cx: count ? sx / count : NaN });
  }
  return frames;
}

/** The box's red area in a checked frame when it is wholly inside (the crop is scaled by 1920/360). */
const WHOLE = (BOX.w * BOX.h * (1920 / SRC.h) ** 2) / (1920 / CHECK.h) ** 2;
const inside = (f: { count: number; edge: boolean }) => f.count >= 0.85 * WHOLE && !f.edge;

/** The crop's left edge at source time t along a segment's path. */
const cropX = (seg: Segment, t: number) => cropLeftAt(seg.framing!.path, t);

describe('reframing a crossing subject to 9:16', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'reframe-test-'));
  const clip = path.join(root, 'crossing.mp4');
  const settings = (framing: 'subject' | 'center') => ({
    aspect: '9:16' as const,
    framing,
    enable_intelligence: false,
    enable_fades: false,
    title_config: { enabled: false },
  });
  let subject: RenderResult;

  beforeAll(async () => {
    execFileSync('ffmpeg', crossingArgs(clip));
    // Two segments (standard pacing, 4 s of material), rendered as two chunks joined: a crop path
    // must not jump at a chunk's seam.
    subject = await renderReel({
      preset: TEST_PRESET,
      clips: [clip],
      output: path.join(root, 'subject.mp4'),
      settings: settings('subject'),
      batch: { maxSegments: 1 },
      tmpRoot: root,
    });
  }, 180_000);
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

  it('keeps the box wholly in the 9:16 picture, where the plan says', () => {
    expect(ffprobe(subject.output).video).toMatchObject({ width: 1080, height: 1920 });
    expect(subject.plan.segments.length).toBe(2);
    for (const s of subject.plan.segments) expect(s.framing).toMatchObject({ mode: 'subject', width: 202, height: 360 });
    expect(subject.plan.segments.some((s) => s.framing!.camera !== 'stationary')).toBe(true);

    const frames = redPerFrame(subject.output);
    expect(frames.length).toBeGreaterThanOrEqual(SECONDS * CHECK.fps - 1);
    const kept = frames.filter(inside).length / frames.length;
    expect(kept).toBeGreaterThanOrEqual(0.95);
    // The box is where the plan's crop path puts it (the plan preview draws the same path).
    const scale = 1920 / SRC.h / (1920 / CHECK.h);
    for (const f of frames.filter(inside)) {
      const seg = subject.plan.segments.find((s) => f.t >= s.start - 1e-6 && f.t < s.end)!;
      const src = seg.in + (f.t - seg.start);
      const expected = (boxX(src) + BOX.w / 2 - cropX(seg, src)) * scale;
      expect(Math.abs(f.cx - expected)).toBeLessThan(3);
    }
  });

  it('the centre crop of the same clip loses the box most of the time', async () => {
    const center = await renderReel({
      preset: TEST_PRESET,
      clips: [clip],
      output: path.join(root, 'center.mp4'),
      settings: settings('center'),
      tmpRoot: root,
    });
    for (const s of center.plan.segments) expect(s.framing).toMatchObject({ mode: 'center', camera: 'stationary' });
    const frames = redPerFrame(center.output);
    const kept = frames.filter(inside).length / frames.length;
    // By geometry about a quarter of the frames (the box is inside the centre third for ~1 s of 4).
    expect(kept).toBeLessThan(0.5);
    expect(kept).toBeGreaterThan(0.1);
  }, 120_000);
});
