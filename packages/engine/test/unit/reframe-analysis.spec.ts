import { mulberry32 } from '../../src/numeric';
import { analyseSubjects, subjectPresence } from '../../src/reframe';
import { globalShift } from '../../src/reframe/saliency';

const W = 320;
const H = 180;

/** A still textured ground wider than the frame: smooth blobs plus fine grain (seeded). */
function ground(seed: number, width: number): Float32Array {
  const r = mulberry32(seed);
  const gw = Math.ceil(width / 16) + 2,
    gh = Math.ceil(H / 16) + 2;
  const grid = Array.from({ length: gw * gh }, () => 70 + r() * 100);
  const out = new Float32Array(width * H);
  for (let y = 0; y < H; y++)
    for (let x = 0; x < width; x++) {
      const fx = x / 16,
        fy = y / 16;
      const x0 = Math.floor(fx),
        y0 = Math.floor(fy);
      const ax = fx - x0,
        ay = fy - y0;
      const g = (i: number, j: number) => grid[j * gw + i]!;
      const v = (1 - ay) * ((1 - ax) * g(x0, y0) + ax * g(x0 + 1, y0)) + ay * ((1 - ax) * g(x0, y0 + 1) + ax * g(x0 + 1, y0 + 1));
      out[y * width + x] = v + (r() - 0.5) * 16;
    }
  return out;
}

interface Scene {
  seed: number;
  /** Left edge of the subject (analysis pixels) at time t; its size. */
  x: (t: number) => number;
  w: number;
  h: number;
  /** Camera pan, analysis pixels per second. */
  pan?: number;
}

/** Frames 8 a second of a textured box (a grid over grain) on the ground. */
function frames(s: Scene, dur: number) {
  const pan = s.pan ?? 0;
  const gw = W + Math.ceil(Math.abs(pan) * dur) + 2;
  const g = ground(s.seed, gw);
  const r = mulberry32(s.seed + 1);
  const texture = Array.from({ length: s.w * s.h }, () => (r() - 0.5) * 40);
  const out: Array<{ t: number; pixels: Uint8Array }> = [];
  for (let i = 0; i < dur * 8; i++) {
    const t = i / 8;
    const off = Math.round(pan >= 0 ? pan * t : gw - W + pan * t);
    const px = new Uint8Array(W * H);
    for (let y = 0; y < H; y++) for (let x = 0; x < W; x++) px[y * W + x] = Math.max(0, Math.min(255, g[y * gw + x + off]!));
    const bx = Math.round(s.x(t)),
      by = 60;
    for (let y = 0; y < s.h; y++)
      for (let x = 0; x < s.w; x++) {
        const X = bx + x;
        if (X < 0 || X >= W) continue;
        const line = x % 6 < 1 || y % 8 < 1;
        px[(by + y) * W + X] = Math.max(0, Math.min(255, (line ? 220 : 110) + texture[y * s.w + x]!));
      }
    out.push({ t, pixels: px });
  }
  return out;
}

/** The biggest box's horizontal extent in analysis pixels. */
const main = (boxes: Array<{ x: number; w: number }>): [number, number] | undefined =>
  boxes[0] ? [boxes[0].x * W, (boxes[0].x + boxes[0].w) * W] : undefined;

describe('subject analysis', () => {
  it('finds a still textured figure on a textured ground (no motion to help)', () => {
    for (const seed of [1, 2]) {
      const x0 = 40 + seed * 90;
      const track = analyseSubjects(frames({ seed, x: () => x0, w: 30, h: 70 }, 1), []);
      expect(track.samples.length).toBe(4);
      for (const s of track.samples) {
        const [a, b] = main(s.boxes)!;
        // The box overlaps the figure and is not much larger than it.
        expect(a).toBeLessThan(x0 + 30);
        expect(b).toBeGreaterThan(x0);
        expect(b - a).toBeLessThan(30 * 2.5);
      }
    }
  });

  it('follows a figure crossing the frame, and marks it as moving', () => {
    const x = (t: number) => 10 + t * 60;
    const track = analyseSubjects(frames({ seed: 4, x, w: 30, h: 70 }, 3), []);
    const moving = track.samples.filter((s) => s.boxes[0]?.moving).length;
    expect(moving).toBeGreaterThan(track.samples.length / 2);
    for (const s of track.samples) {
      const [a, b] = main(s.boxes)!;
      const c = (a + b) / 2;
      expect(Math.abs(c - (x(s.t) + 15))).toBeLessThan(25);
    }
  });

  it("takes the camera's pan out: a figure the camera follows is found on a ground that moves", () => {
    const track = analyseSubjects(frames({ seed: 5, x: () => 200, w: 30, h: 70, pan: 40 }, 2), []);
    expect(track.cameraShift).toBeDefined();
    // The ground moves 5 analysis pixels a sample (1/64 of the width) to the left; shifts are whole
    // pixels of the half-size frame (160 wide) the shift is measured on.
    const shifts = track.cameraShift!.slice(1).map(([dx]) => dx);
    for (const dx of shifts) expect(Math.abs(dx + 2.5 / 160)).toBeLessThanOrEqual(0.5 / 160 + 0.001);
    for (const s of track.samples.slice(1)) {
      const [a, b] = main(s.boxes)!;
      expect(a).toBeLessThan(230);
      expect(b).toBeGreaterThan(200);
    }
  });

  it('estimates a global shift exactly on a shifted picture', () => {
    const g = ground(9, 200);
    const w = 160,
      h = 90;
    const crop = (off: number) => Float32Array.from({ length: w * h }, (_, i) => g[Math.floor(i / w) * 2 * 200 + (i % w) + off]!);
    // cur(x) = prev(x + dx): the picture moved dx pixels to the left.
    expect(globalShift(crop(7), crop(0), w, h)).toEqual([7, 0]);
    expect(globalShift(crop(0), crop(11), w, h)).toEqual([-11, 0]);
  });

  it('keeps a still camera still when a bright subject moves over a plain, grainy ground (a car on asphalt)', () => {
    const w = 160,
      h = 90;
    const rnd = mulberry32(5);
    // Asphalt: dark, with faint grain that is the same in both frames (the camera does not move).
    const asphalt = Float32Array.from({ length: w * h }, () => 40 + 3 * rnd());
    // A white car with stripes of its own, a quarter of the width, moving 8 px to the right.
    const frame = (carX: number) => {
      const f = asphalt.slice();
      for (let y = 35; y < 65; y++) for (let x = carX; x < carX + 40; x++) f[y * w + x] = 200 + 20 * Math.sin((x - carX) / 3);
      return f;
    };
    expect(globalShift(frame(58), frame(50), w, h)).toEqual([0, 0]);
  });

  it('follows a pan over a mostly plain picture (a strip of texture under a sky, grey noise in every frame)', () => {
    const w = 160,
      h = 90;
    const g = ground(13, 220);
    for (const seed of [1, 2, 3, 4]) {
      const rnd = mulberry32(seed);
      // Texture only in the bottom 24 rows; above it a plain sky. Each frame has its own noise.
      const frame = (off: number) =>
        Float32Array.from({ length: w * h }, (_, i) => {
          const [x, y] = [i % w, Math.floor(i / w)];
          return (y >= 66 ? g[y * 2 * 220 + x + off]! : 180) + 4 * (rnd() - 0.5);
        });
      // cur(x) = prev(x + 8): the camera panned 8 px to the right.
      expect(globalShift(frame(8), frame(0), w, h)).toEqual([8, 0]);
    }
  });
});

describe('subject presence', () => {
  it('is high where one region holds the salience and low on plain texture', () => {
    const withSubject = analyseSubjects(frames({ seed: 6, x: (t) => 100 + t * 30, w: 30, h: 70 }, 2), []);
    const empty = analyseSubjects(frames({ seed: 6, x: () => -100, w: 30, h: 70 }, 2), []);
    const times = [0.5, 1, 1.5];
    const p = subjectPresence(withSubject, times);
    const q = subjectPresence(empty, times);
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    expect(mean(p)).toBeGreaterThan(0.6);
    expect(mean(q)).toBeLessThan(mean(p) - 0.3);
  });

  it('gives a stretch a sparse decode left without samples the presence of the nearest sample in its shot', () => {
    const box = (weight: number) => ({ x: 0.4, y: 0.3, w: 0.1, h: 0.4, weight, moving: false });
    // A subject in the first two seconds, none in the last two; nothing sampled from 2 to 6 s.
    const samples = [
      ...[0, 0.5, 1, 1.5, 2].map((t) => ({ t, boxes: [box(0.9)] })),
      ...[6, 6.5, 7, 7.5].map((t) => ({ t, boxes: [box(0.1)] })),
    ];
    const track = { version: 1, intervalSec: 0.5, samples, shots: [] as number[] };
    expect(subjectPresence(track, [1, 3, 3.9, 4.1, 5, 7])).toEqual([1, 1, 1, 0, 0, 0]);
    // A cut at 3.5 s: the gap's first part is the first shot's, the rest the second's.
    expect(subjectPresence({ ...track, shots: [3.5] }, [2.2, 3.4, 3.6, 4.5])).toEqual([1, 1, 0, 0]);
    // A shot between cuts at 3 and 5 s with no sample in it has no presence.
    expect(subjectPresence({ ...track, shots: [3, 5] }, [2.5, 3.4, 5.5])).toEqual([1, 0, 0]);
  });
});
