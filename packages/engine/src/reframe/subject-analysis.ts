/**
 * Subject analysis (issue 43, AutoFlip's "salient regions"): from the grey 320x180 frames clip
 * analysis already decodes (8 a second), a compact subject track of a few samples a second.
 *
 * Each sample combines two saliency maps (saliency.ts) on a 64x32 grid: centre-surround contrast
 * (brightness and detail unlike their surroundings) and motion against the background (the camera's global shift
 * taken out, measured against the frame decoded just before). The combined map is thresholded,
 * nearby cells joined, and the biggest regions kept as boxes with their share of the salience and
 * whether they move. Frames arrive in any order (a sparse decode's second pass fills gaps later);
 * motion is measured only between frames at most MAX_MOTION_GAP_SEC apart.
 * Pure: clip-analysis.ts feeds it.
 */
import { GRID_H, GRID_W, contrastSaliency, downscale, globalShift, isCut, motionResidual, normalise, quarter } from './saliency.js';
import type { SubjectBox, SubjectSample, SubjectTrack } from './types.js';

/** 2: the camera's motion is what most blocks of the picture vote for (saliency.ts globalShift), not the whole picture's mean. */
export const SUBJECT_TRACK_VERSION = 2;
/** Seconds between stored samples (4 a second: enough to follow a subject crossing the frame in 2 s). */
export const SUBJECT_INTERVAL_SEC = 0.25;
/** At most this many boxes per sample. */
export const MAX_BOXES = 3;
/** Motion is measured between frames at most this far apart (two analysis slots and a bit). */
const MAX_MOTION_GAP_SEC = 0.3;
/** The size motion is measured at (half the analysis frame). */
const MID_W = 160;
const MID_H = 90;
/** A cell's mean residual (grey levels) below this is noise, not motion. */
const MOTION_FLOOR = 6;
/** Above this share of cells changing, the frame is not compared with the one before (a cut). */
const MAX_MOVING_SHARE = 0.4;
/** Share of the combined map's maximum a cell needs to be part of a region. */
const REGION_THRESHOLD = 0.4;
/** Regions with less of the sample's salience than this are dropped. */
const MIN_WEIGHT = 0.06;

/** Receives each decoded analysis frame (grey) with its clip time in seconds. */
export type FrameSink = (t: number, grey: Uint8Array) => void;

export interface SubjectAnalyser {
  /** One decoded analysis frame (grey, w x h) at clip time `t` seconds. */
  push: FrameSink;
  /** The track, samples in time order; `shots` are the clip analysis's scene cuts (its own cuts are added). */
  finish(shots: number[]): SubjectTrack;
}

const r3 = (x: number) => Math.round(x * 1000) / 1000;

/** A streaming analyser: keeps only the previous frame (at half size) and the samples so far. */
export function createSubjectAnalyser(w = 320, h = 180): SubjectAnalyser {
  const samples: Array<SubjectSample & { shift: [number, number] }> = [];
  const taken = new Set<number>();
  const cuts: number[] = [];
  let prev: { t: number; mid: Float32Array; q: Float32Array } | undefined;
  return {
    push(t, grey) {
      const slot = Math.round(t / SUBJECT_INTERVAL_SEC);
      const due = Math.abs(t - slot * SUBJECT_INTERVAL_SEC) < 0.07 && !taken.has(slot);
      const before = prev;
      const mid = downscale(grey, w, h, MID_W, MID_H);
      // Its quarter-size copy, made once: the cut check and the shift search compare it with the last frame's.
      const q = quarter(mid, MID_W, MID_H);
      prev = { t, mid, q };
      let usable = before && t > before.t && t - before.t <= MAX_MOTION_GAP_SEC ? before : undefined;
      // Every pair of consecutive frames is checked for a cut (the clip analysis's histogram misses
      // cuts between shots of the same colours); a frame is never compared across one.
      if (usable && isCut(mid, usable.mid, MID_W, MID_H, { cur: q, prev: usable.q })) {
        cuts.push(r3((usable.t + t) / 2));
        usable = undefined;
      }
      if (!due) return;
      taken.add(slot);
      samples.push(analyseFrame(t, mid, usable && { mid: usable.mid, q: usable.q }, q));
    },
    finish(shots) {
      samples.sort((a, b) => a.t - b.t);
      const anyShift = samples.some((s) => s.shift[0] !== 0 || s.shift[1] !== 0);
      return {
        version: SUBJECT_TRACK_VERSION,
        intervalSec: SUBJECT_INTERVAL_SEC,
        samples: samples.map(({ t, boxes }) => ({ t, boxes })),
        shots: mergeCuts(shots, cuts),
        ...(anyShift ? { cameraShift: samples.map((s) => s.shift) } : {}),
      };
    },
  };
}

/** The clip analysis's cuts, and this analysis's own where the clip analysis has none within 0.2 s. */
function mergeCuts(shots: number[], own: number[]): number[] {
  const extra = own.filter((c) => !shots.some((s) => Math.abs(s - c) < 0.2));
  return [...shots, ...extra].sort((a, b) => a - b);
}

/** The track of frames already in memory (tests, benches). */
export function analyseSubjects(frames: Array<{ t: number; pixels: Uint8Array }>, shots: number[], w = 320, h = 180): SubjectTrack {
  const a = createSubjectAnalyser(w, h);
  for (const f of frames) a.push(f.t, f.pixels);
  return a.finish(shots);
}

/** The boxes of one frame, given the frame before it (at half size) when there is one. */
function analyseFrame(
  t: number,
  mid: Float32Array,
  before: { mid: Float32Array; q: Float32Array } | undefined,
  q: Float32Array,
): SubjectSample & { shift: [number, number] } {
  const still = contrastSaliency(mid, MID_W, MID_H);
  let motion: Float32Array | undefined;
  let shift: [number, number] = [0, 0];
  if (before) {
    const prevMid = before.mid;
    const [dx, dy] = globalShift(mid, prevMid, MID_W, MID_H, undefined, { cur: q, prev: before.q });
    shift = [r3(-dx / MID_W), r3(-dy / MID_H)];
    const res = motionResidual(mid, prevMid, MID_W, MID_H, dx, dy);
    // Cells that change by less than the floor are noise; what is left is scaled by the strongest.
    let moving = 0;
    for (let i = 0; i < res.length; i++) {
      res[i] = Math.max(0, res[i]! - MOTION_FLOOR);
      if (res[i]! > 0) moving++;
    }
    // Change nearly everywhere is a cut, a flash or a shift not found: no motion cue then.
    if (moving > 0 && moving < MAX_MOVING_SHARE * res.length) motion = normalise(dilateMax(res, GRID_W, GRID_H, 1), MOTION_FLOOR);
  }
  const map = new Float32Array(GRID_W * GRID_H);
  for (let i = 0; i < map.length; i++) map[i] = motion ? 0.35 * still[i]! + 0.65 * motion[i]! : still[i]!;
  normalise(map);
  return { t: r3(t), boxes: regions(map, motion), shift };
}

/** Grey-level dilation (maximum over a (2r+1)^2 neighbourhood). */
function dilateMax(m: Float32Array, w: number, h: number, r: number): Float32Array {
  const out = new Float32Array(m.length);
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      let v = 0;
      for (let k = Math.max(0, y - r); k <= Math.min(h - 1, y + r); k++)
        for (let j = Math.max(0, x - r); j <= Math.min(w - 1, x + r); j++) v = Math.max(v, m[k * w + j]!);
      out[y * w + x] = v;
    }
  return out;
}

/**
 * Regions of the combined map: cells at or above REGION_THRESHOLD, joined across gaps of one cell
 * (the leading and trailing edges of a plain moving object are one object), biggest first.
 */
export function regions(map: Float32Array, motion?: Float32Array, w = GRID_W, h = GRID_H): SubjectBox[] {
  const on = new Uint8Array(w * h);
  for (let i = 0; i < on.length; i++) on[i] = map[i]! >= REGION_THRESHOLD ? 1 : 0;
  // Joining: a cell within one cell of a salient one belongs to the same region.
  const joined = new Uint8Array(w * h);
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      if (!on[y * w + x]) continue;
      for (let k = Math.max(0, y - 1); k <= Math.min(h - 1, y + 1); k++)
        for (let j = Math.max(0, x - 1); j <= Math.min(w - 1, x + 1); j++) joined[k * w + j] = 1;
    }
  const label = new Int32Array(w * h).fill(-1);
  const found: Array<{ x0: number; y0: number; x1: number; y1: number; mass: number; moving: number; cells: number }> = [];
  let total = 0;
  for (let i = 0; i < on.length; i++) if (on[i]) total += map[i]!;
  const stack: number[] = [];
  for (let i = 0; i < joined.length; i++) {
    if (!joined[i] || label[i]! >= 0) continue;
    const r = { x0: w, y0: h, x1: -1, y1: -1, mass: 0, moving: 0, cells: 0 };
    label[i] = found.length;
    stack.push(i);
    while (stack.length) {
      const c = stack.pop()!;
      const cx = c % w,
        cy = (c - cx) / w;
      if (on[c]) {
        // The box is the salient cells' extent (the joining cells only connect them).
        r.x0 = Math.min(r.x0, cx);
        r.x1 = Math.max(r.x1, cx);
        r.y0 = Math.min(r.y0, cy);
        r.y1 = Math.max(r.y1, cy);
        r.mass += map[c]!;
        r.moving += motion ? motion[c]! : 0;
        r.cells++;
      }
      for (let k = Math.max(0, cy - 1); k <= Math.min(h - 1, cy + 1); k++)
        for (let j = Math.max(0, cx - 1); j <= Math.min(w - 1, cx + 1); j++) {
          const n = k * w + j;
          if (joined[n] && label[n]! < 0) {
            label[n] = found.length;
            stack.push(n);
          }
        }
    }
    if (r.cells) found.push(r);
  }
  return found
    .map((r) => ({
      x: r3(r.x0 / w),
      y: r3(r.y0 / h),
      w: r3((r.x1 + 1 - r.x0) / w),
      h: r3((r.y1 + 1 - r.y0) / h),
      weight: r3(total > 0 ? r.mass / total : 0),
      moving: r.moving / r.cells > 0.3,
    }))
    .filter((b) => b.weight >= MIN_WEIGHT)
    .sort((a, b) => b.weight - a.weight)
    .slice(0, MAX_BOXES);
}
