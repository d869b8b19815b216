import { centerFraming, cropSize, letterboxFraming, planCropPath } from '../../src/reframe/camera-path';
import { boundaryPrior } from '../../src/reframe/subject-select';
import { simplifyPath, solveAxis } from '../../src/reframe/path-solver';
import type { CropKey, SegmentFraming, SubjectBox, SubjectTrack } from '../../src/reframe/types';
import { mulberry32 } from '../../src/numeric';

const SRC = { w: 1280, h: 720 };
const VERTICAL = { w: 1080, h: 1920 };

/** A track sampled 4 times a second from `boxesAt(t)` (fractions of the picture). */
function track(dur: number, boxesAt: (t: number) => SubjectBox[], shots: number[] = []): SubjectTrack {
  const samples = [];
  for (let t = 0; t <= dur + 1e-9; t += 0.25) samples.push({ t: Math.round(t * 1000) / 1000, boxes: boxesAt(t) });
  return { version: 1, intervalSec: 0.25, samples, shots };
}

const box = (x: number, w = 0.1, extra: Partial<SubjectBox> = {}): SubjectBox => ({
  x,
  y: 0.3,
  w,
  h: 0.4,
  weight: 0.8,
  moving: false,
  ...extra,
});

/** The 9:16 framing of a 4 s segment of a 1280x720 clip whose track's boxes are `boxesAt(t)`. */
const vertical4 = (boxesAt: (t: number) => SubjectBox[]) => planCropPath(track(4, boxesAt), { srcStart: 0, srcEnd: 4 }, SRC, VERTICAL);

/** The crop's left edge at time t, as a render would interpolate the keys. */
function xAt(path: CropKey[], t: number): number {
  if (t <= path[0]!.t) return path[0]!.x;
  for (let i = 1; i < path.length; i++) {
    const [a, b] = [path[i - 1]!, path[i]!];
    if (t <= b.t) return a.x + ((b.x - a.x) * (t - a.t)) / (b.t - a.t);
  }
  return path[path.length - 1]!.x;
}

/** Frame-by-frame (30 fps) positions of the crop over [0, dur). */
const frames = (f: SegmentFraming, dur: number) => Array.from({ length: Math.round(dur * 30) }, (_, i) => xAt(f.path, i / 30));

describe('the crop of a segment', () => {
  it('is the largest rectangle of the output shape, and the whole picture when the shapes match (never cropped)', () => {
    expect(cropSize(SRC, VERTICAL)).toEqual({ w: 404, h: 720 });
    expect(cropSize(SRC, { w: 1080, h: 1080 })).toEqual({ w: 720, h: 720 });
    expect(cropSize({ w: 1080, h: 1920 }, { w: 1080, h: 1080 })).toEqual({ w: 1080, h: 1080 });
    const same = planCropPath(
      track(4, (t) => [box(0.1 + t * 0.2)]),
      { srcStart: 0, srcEnd: 4 },
      { w: 1920, h: 1080 },
      { w: 1280, h: 720 },
    );
    expect(same).toMatchObject({ mode: 'subject', width: 1920, height: 1080, camera: 'stationary', path: [{ t: 0, x: 0, y: 0 }] });
  });

  it('is the centre crop without a subject track, and letterbox and centre framings are what they say', () => {
    const seg = { srcStart: 1, srcEnd: 3 };
    expect(planCropPath(undefined, seg, SRC, VERTICAL)).toMatchObject({
      mode: 'subject',
      path: [{ t: 1, x: 438, y: 0 }],
      camera: 'stationary',
    });
    expect(centerFraming(seg, SRC, VERTICAL)).toMatchObject({ mode: 'center', width: 404, height: 720, path: [{ t: 1, x: 438, y: 0 }] });
    expect(letterboxFraming(seg, SRC)).toMatchObject({ mode: 'letterbox', width: 1280, height: 720, camera: 'letterbox' });
  });
});

describe('camera paths', () => {
  it('stay exactly still for a still subject whose box jitters by a few pixels', () => {
    const r = mulberry32(7);
    const f = planCropPath(
      track(6, () => [box(0.7 + (r() - 0.5) * 0.01, 0.1 + (r() - 0.5) * 0.006)]),
      { srcStart: 0, srcEnd: 6 },
      SRC,
      VERTICAL,
    );
    expect(f.camera).toBe('stationary');
    const xs = frames(f, 6);
    expect(Math.max(...xs) - Math.min(...xs)).toBeLessThanOrEqual(2);
    // The subject (0.7..0.8 of the width) is inside the crop.
    expect(xs[0]!).toBeLessThanOrEqual(0.7 * 1280);
    expect(xs[0]! + 404).toBeGreaterThanOrEqual(0.8 * 1280);
  });

  it('pan at a steady speed for a subject crossing steadily, keeping it inside and never jumping more than 1 % of the width a frame', () => {
    const f = planCropPath(
      track(8, (t) => [box(0.02 + (t / 8) * 0.86, 0.1, { moving: true })]),
      { srcStart: 0, srcEnd: 8 },
      SRC,
      VERTICAL,
    );
    expect(['pan', 'track']).toContain(f.camera);
    const xs = frames(f, 8);
    xs.forEach((x, i) => {
      const left = (0.02 + (i / 30 / 8) * 0.86) * 1280;
      expect(left).toBeGreaterThanOrEqual(x - 0.5);
      expect(left + 128).toBeLessThanOrEqual(x + 404 + 0.5);
      if (i) expect(Math.abs(x - xs[i - 1]!)).toBeLessThanOrEqual(12.8);
    });
  });

  it('smooth a jittery moving subject: bounded acceleration, no back-and-forth', () => {
    const r = mulberry32(3);
    const f = planCropPath(
      track(8, (t) => [box(0.1 + (t / 8) * 0.6 + (r() - 0.5) * 0.03, 0.1, { moving: true })]),
      { srcStart: 0, srcEnd: 8 },
      SRC,
      VERTICAL,
    );
    const xs = frames(f, 8);
    // Speed changes by at most 1 px/frame from one frame to the next, and the camera never reverses.
    for (let i = 2; i < xs.length; i++) expect(Math.abs(xs[i]! - 2 * xs[i - 1]! + xs[i - 2]!)).toBeLessThanOrEqual(1);
    for (let i = 1; i < xs.length; i++) expect(xs[i]!).toBeGreaterThanOrEqual(xs[i - 1]! - 0.5);
  });

  it('restart at a shot cut: a jump at the cut only, each shot framed on its own subject', () => {
    const f = planCropPath(
      track(6, (t) => [t < 3 ? box(0.05) : box(0.85)], [3]),
      { srcStart: 0, srcEnd: 6 },
      SRC,
      VERTICAL,
    );
    const before = xAt(f.path, 2.99);
    const after = xAt(f.path, 3.0);
    expect(before).toBeLessThanOrEqual(0.05 * 1280);
    expect(after + 404).toBeGreaterThanOrEqual(0.95 * 1280);
    // Still within each shot.
    expect(xAt(f.path, 0.5)).toBeCloseTo(before, 0);
    expect(xAt(f.path, 5.5)).toBeCloseTo(after, 0);
    const cutKeys = f.path.filter((k) => k.t > 2.9 && k.t <= 3);
    expect(cutKeys.map((k) => k.t)).toEqual([2.999, 3]);
  });

  it('stay inside the source when the subject is at its edge (clamped)', () => {
    for (const x of [0, 0.93]) {
      const f = planCropPath(
        track(3, () => [box(x, 0.07)]),
        { srcStart: 0, srcEnd: 3 },
        SRC,
        VERTICAL,
      );
      for (const k of f.path) {
        expect(k.x).toBeGreaterThanOrEqual(0);
        expect(k.x + f.width).toBeLessThanOrEqual(1280);
      }
      expect(f.path[0]!.x).toBe(x === 0 ? 0 : 1280 - 404);
    }
  });

  it('keep two subjects that fit together, the larger of two that do not, and letterbox two alike ones (saying why)', () => {
    const together = vertical4(() => [box(0.4, 0.06), box(0.55, 0.06, { weight: 0.7 })]);
    expect(together.mode).toBe('subject');
    expect(together.path[0]!.x).toBeLessThanOrEqual(0.4 * 1280);
    expect(together.path[0]!.x + 404).toBeGreaterThanOrEqual(0.61 * 1280);

    const larger = vertical4(() => [box(0.05, 0.08, { weight: 0.45 }), box(0.8, 0.12, { h: 0.6, weight: 0.45 })]);
    expect(larger.mode).toBe('subject');
    expect(larger.reason).toMatch(/larger/);
    expect(larger.path[0]!.x + 404).toBeGreaterThanOrEqual(0.92 * 1280);

    const alike = vertical4(() => [box(0.05, 0.1, { weight: 0.45 }), box(0.8, 0.1, { weight: 0.45 })]);
    expect(alike).toMatchObject({ mode: 'letterbox', camera: 'letterbox', width: 1280, height: 720 });
    expect(alike.reason).toMatch(/letterbox/);

    const mover = vertical4((t) => [box(0.05, 0.1, { weight: 0.45 }), box(0.7 + t * 0.02, 0.1, { weight: 0.45, moving: true })]);
    expect(mover.reason).toMatch(/moving/);
    expect(mover.path[0]!.x + 404).toBeGreaterThanOrEqual(0.8 * 1280);
  });

  it('take a still region lying along the picture border for background: a person beside a window in the corner is kept', () => {
    // A dark window filling the top-left corner (larger and more salient) and a person standing
    // inside the picture, too far apart for one 9:16 crop: the person is kept.
    const window: SubjectBox = { x: 0, y: 0, w: 0.23, h: 0.5, weight: 0.6, moving: false };
    const person: SubjectBox = { x: 0.48, y: 0.38, w: 0.17, h: 0.38, weight: 0.2, moving: false };
    const f = vertical4(() => [window, person]);
    expect(f.mode).toBe('subject');
    expect(f.path[0]!.x).toBeLessThanOrEqual(0.48 * 1280);
    expect(f.path[0]!.x + 404).toBeGreaterThanOrEqual(0.65 * 1280);
    // A fainter person: the window is the second subject, and the two cannot fit. Of the two the
    // person is the larger once the window's area is weighed by the boundary prior.
    const faint = vertical4(() => [window, { ...person, weight: 0.1 }]);
    expect(faint.reason).toMatch(/larger/);
    expect(faint.path[0]!.x).toBeLessThanOrEqual(0.48 * 1280);
    expect(faint.path[0]!.x + 404).toBeGreaterThanOrEqual(0.65 * 1280);
    // The same window moving (a door swinging open, say) is no background.
    expect(boundaryPrior({ ...window, moving: true })).toBe(1);
    expect(boundaryPrior(person)).toBe(1);
    expect(boundaryPrior(window)).toBeLessThan(0.2);
  });

  it('move on the free axis only: a tall source cropped to square moves vertically', () => {
    const f = planCropPath(
      track(4, () => [{ x: 0.3, y: 0.75, w: 0.4, h: 0.15, weight: 0.9, moving: false }]),
      { srcStart: 0, srcEnd: 4 },
      { w: 1080, h: 1920 },
      { w: 1080, h: 1080 },
    );
    expect(f).toMatchObject({ width: 1080, height: 1080 });
    expect(f.path[0]!.x).toBe(0);
    expect(f.path[0]!.y + 1080).toBeGreaterThanOrEqual(0.9 * 1920);
  });
});

describe('the path solver', () => {
  it('goes still where the allowed ranges overlap and follows where they move, inside the limits', () => {
    const n = 40;
    const still = solveAxis({
      desired: Array.from({ length: n }, (_, i) => 100 + (i % 2 ? 3 : -3)),
      lo: Array(n).fill(50),
      hi: Array(n).fill(150),
      min: 0,
      max: 500,
    });
    expect(Math.max(...still) - Math.min(...still)).toBeLessThan(1);
    const moving = solveAxis({
      desired: Array.from({ length: n }, (_, i) => i * 20),
      lo: Array.from({ length: n }, (_, i) => i * 20 - 30),
      hi: Array.from({ length: n }, (_, i) => i * 20 + 30),
      min: 0,
      max: 600,
    });
    moving.forEach((x, i) => {
      expect(x).toBeGreaterThanOrEqual(Math.min(600, Math.max(0, i * 20 - 30)) - 1);
      expect(x).toBeLessThanOrEqual(Math.min(600, i * 20 + 30) + 1);
    });
  });

  it('simplifies a straight path to its ends and keeps a corner', () => {
    const ts = [0, 1, 2, 3, 4];
    expect(simplifyPath(ts, [0, 10, 20, 30, 40])).toEqual([0, 4]);
    expect(simplifyPath(ts, [0, 10, 20, 20, 20])).toEqual([0, 2, 4]);
  });
});
