/**
 * Camera paths per segment (issue 43, as AutoFlip plans them; pure). The crop is the largest
 * rectangle of the output's shape inside the source; it moves along the one axis where it is
 * smaller than the source. For each shot of the segment (a cut restarts the path), the subjects
 * the crop keeps are chosen (subject-select.ts) and the path is solved on a grid of 8 times a
 * second (path-solver.ts): still while the subject stays inside, a steady pan when it moves
 * steadily, a smooth track otherwise. The camera kind is read from the solved path: within
 * STILL_PX of still is stationary (and made exactly still), a straight line a pan, anything else a
 * track. A clip already of the output's shape is never cropped; no subject gives the centre crop.
 */
import { DEFAULT_WEIGHTS, simplifyPath, solveAxis } from './path-solver.js';
import { chooseSubjects, type LinkedSubject } from './subject-select.js';
import type { CameraKind, CropKey, SegmentFraming, Size, SourceWindow, SubjectBox, SubjectTrack } from './types.js';

/** Path grid: times per second. */
export const PATH_RATE = 8;
/** A path that moves less than this (source pixels) is stationary. */
export const STILL_PX = 2;
/** Room kept between the subject and the crop's edge, as a share of the crop's size on the free axis. */
const MARGIN = 0.04;
/** Shapes this close (relative) are the same. */
const SAME_SHAPE = 0.01;
/** A cut closer than this to a segment's end does not split it. */
const CUT_EDGE_SEC = 0.05;
/** The last key before a cut sits this long before it (the next shot's first key is at the cut). */
const CUT_GAP_SEC = 0.001;

const even = (x: number) => Math.max(2, 2 * Math.floor(x / 2));
const r3 = (x: number) => Math.round(x * 1000) / 1000;

/** The crop: the largest rectangle of the output's shape inside the source (even sizes). */
export function cropSize(source: Size, output: Size): Size {
  const out = output.w / output.h;
  if (sameShape(source, output)) return { w: source.w, h: source.h };
  return source.w / source.h > out
    ? { w: Math.min(source.w, even(source.h * out)), h: source.h }
    : { w: source.w, h: Math.min(source.h, even(source.w / out)) };
}

export const sameShape = (source: Size, output: Size) => Math.abs(source.w / source.h / (output.w / output.h) - 1) < SAME_SHAPE;

export function letterboxFraming(segment: SourceWindow, source: Size, reason?: string): SegmentFraming {
  return {
    mode: 'letterbox',
    width: source.w,
    height: source.h,
    path: [{ t: r3(segment.srcStart), x: 0, y: 0 }],
    camera: 'letterbox',
    ...(reason ? { reason } : {}),
  };
}

export function centerFraming(segment: SourceWindow, source: Size, output: Size): SegmentFraming {
  const c = cropSize(source, output);
  return {
    mode: 'center',
    width: c.w,
    height: c.h,
    path: [{ t: r3(segment.srcStart), x: Math.round((source.w - c.w) / 2), y: Math.round((source.h - c.h) / 2) }],
    camera: 'stationary',
  };
}

/** The framing of one segment with `subject` framing (see the file's comment). */
export function planCropPath(track: SubjectTrack | undefined, segment: SourceWindow, source: Size, output: Size): SegmentFraming {
  const crop = cropSize(source, output);
  if (crop.w === source.w && crop.h === source.h)
    return {
      mode: 'subject',
      width: source.w,
      height: source.h,
      path: [{ t: r3(segment.srcStart), x: 0, y: 0 }],
      camera: 'stationary',
      reason: "the clip already has the output's shape",
    };
  const horizontal = crop.w < source.w;
  const centred = centerFraming(segment, source, output);
  const samples = track?.samples ?? [];
  if (!samples.length) return { ...centred, mode: 'subject', reason: 'no subject track: centre crop' };
  const allCuts = track?.shots ?? [];
  const cuts = allCuts.filter((c) => c > segment.srcStart + CUT_EDGE_SEC && c < segment.srcEnd - CUT_EDGE_SEC);
  const bounds = [segment.srcStart, ...cuts, segment.srcEnd];
  const keys: CropKey[] = [];
  const kinds: CameraKind[] = [];
  const reasons: string[] = [];
  const span = horizontal ? source.w : source.h;
  const size = horizontal ? crop.w : crop.h;
  const margin = MARGIN * size;
  for (let k = 0; k + 1 < bounds.length; k++) {
    const [a, b] = [bounds[k]!, bounds[k + 1]!];
    // Samples a little beyond the piece's ends show the same shot, unless a cut lies between.
    const cutBetween = (x: number, y: number) => allCuts.some((c) => c > x && c <= y);
    const inShot = samples.filter(
      (x) =>
        (x.t >= a && x.t < b) ||
        (x.t < a && x.t >= a - 0.26 && !cutBetween(x.t, a + CUT_EDGE_SEC)) ||
        (x.t >= b && x.t <= b + 0.26 && !cutBetween(b - CUT_EDGE_SEC, x.t)),
    );
    const shot = shotPath(inShot, a, b, { horizontal, span, size, margin });
    if (shot.kind === 'letterbox') return letterboxFraming(segment, source, shot.reason);
    if (shot.reason && !reasons.includes(shot.reason)) reasons.push(shot.reason);
    kinds.push(shot.kind);
    // A piece before a cut ends with a key just before it (the next shot's first key is at the cut).
    const pieceKeys =
      k + 2 === bounds.length
        ? shot.keys
        : [...shot.keys.filter((x) => x.t < b - CUT_GAP_SEC), { t: b - CUT_GAP_SEC, x: shot.keys[shot.keys.length - 1]!.x }];
    for (const key of pieceKeys) {
      const pos = Math.round(key.x);
      keys.push({ t: r3(key.t), x: horizontal ? pos : centred.path[0]!.x, y: horizontal ? centred.path[0]!.y : pos });
    }
  }
  const camera: CameraKind = kinds.includes('track') ? 'track' : kinds.includes('pan') ? 'pan' : 'stationary';
  return { mode: 'subject', width: crop.w, height: crop.h, path: keys, camera, ...(reasons.length ? { reason: reasons.join('; ') } : {}) };
}

interface Axis {
  horizontal: boolean;
  /** The source's size and the crop's along the free axis (pixels), and the room kept inside it. */
  span: number;
  size: number;
  margin: number;
}

type ShotPath =
  | { kind: 'letterbox'; reason: string }
  | { kind: Exclude<CameraKind, 'letterbox'>; keys: Array<{ t: number; x: number }>; reason?: string };

/** One shot's piece [a, b] of the segment. */
function shotPath(samples: SubjectSample[], a: number, b: number, ax: Axis): ShotPath {
  const lo = (bx: SubjectBox) => (ax.horizontal ? bx.x : bx.y) * ax.span;
  const hi = (bx: SubjectBox) => (ax.horizontal ? bx.x + bx.w : bx.y + bx.h) * ax.span;
  const fits = (p: SubjectBox, q: SubjectBox) => Math.max(hi(p), hi(q)) - Math.min(lo(p), lo(q)) + 2 * ax.margin <= ax.size;
  const choice = chooseSubjects(samples, fits);
  const centre = (ax.span - ax.size) / 2;
  const n = Math.max(2, Math.ceil((b - a) * PATH_RATE) + 1);
  const ts = Array.from({ length: n }, (_, i) => a + ((b - a) * i) / (n - 1));
  if (choice.kind === 'letterbox') return choice;
  if (choice.kind === 'none') return { kind: 'stationary', keys: [{ t: a, x: centre }], reason: 'no subject found: centre crop' };
  // The subjects' joint extent at each grid time (linear between their samples, held at the ends).
  const extent = ts.map((t) => joint(choice.subjects, t, lo, hi));
  const desired: number[] = [];
  const los: number[] = [];
  const his: number[] = [];
  for (const e of extent) {
    if (!e) {
      desired.push(centre);
      los.push(0);
      his.push(ax.span - ax.size);
      continue;
    }
    desired.push((e[0] + e[1]) / 2 - ax.size / 2);
    // The corner keeps [e0, e1] inside with the margin; an extent wider than the crop is centred.
    los.push(e[1] + ax.margin - ax.size);
    his.push(e[0] - ax.margin);
  }
  const xs = solveAxis({ desired, lo: los, hi: his, min: 0, max: ax.span - ax.size }, DEFAULT_WEIGHTS);
  const min = Math.min(...xs),
    max = Math.max(...xs);
  if (max - min < STILL_PX) {
    const still = Math.round((min + max) / 2);
    return { kind: 'stationary', keys: [{ t: a, x: still }], reason: choice.reason };
  }
  const keep = simplifyPath(ts, xs, 0.5);
  const keys = keep.map((i) => ({ t: ts[i]!, x: xs[i]! }));
  // A straight line (within a pixel) is a pan.
  const line = simplifyPath(ts, xs, 1);
  return { kind: line.length === 2 ? 'pan' : 'track', keys, reason: choice.reason };
}

type SubjectSample = SubjectTrack['samples'][number];

/** [lo, hi] covering the subjects at time t (each interpolated between its own samples), or undefined. */
function joint(
  subjects: LinkedSubject[],
  t: number,
  lo: (b: SubjectBox) => number,
  hi: (b: SubjectBox) => number,
): [number, number] | undefined {
  let a = Infinity,
    b = -Infinity;
  for (const s of subjects) {
    const times = [...s.boxes.keys()];
    let i = 0;
    while (i < times.length && times[i]! < t) i++;
    const after = times[Math.min(i, times.length - 1)]!;
    const before = times[Math.max(0, i - 1)]!;
    const p = s.boxes.get(before)!,
      q = s.boxes.get(after)!;
    const f = after > before ? Math.min(1, Math.max(0, (t - before) / (after - before))) : 0;
    a = Math.min(a, lo(p) + f * (lo(q) - lo(p)));
    b = Math.max(b, hi(p) + f * (hi(q) - hi(p)));
  }
  return Number.isFinite(a) ? [a, b] : undefined;
}
