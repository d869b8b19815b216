/**
 * Rule 4 of planning (plan.ts): which moment of a clip a segment shows. Every candidate window is
 * ranked by its kind (CHOICE_REASONS), then by quality or by how long ago it was on the reel.
 */
import type { SegmentChoice } from '@reelsmith/proto';
import type { ClipAnalysis } from './clip-analysis.js';
import { subjectPresence } from './reframe/presence.js';

export const EPS = 1e-6;

export const round6 = (x: number) => Math.round(x * 1e6) / 1e6;

/**
 * Intelligence sees the subject (issue 43): with a subject track, a window's quality is scaled by
 * how much of it shows a subject (reframe/presence.ts), down to this share for none at all, so the
 * car beats the empty road it drove along. Presence per analysis sample, worked out once.
 */
const EMPTY_WINDOW_SHARE = 0.6;
const presenceOf = new WeakMap<ClipAnalysis, number[] | undefined>();
function presence(a: ClipAnalysis): number[] | undefined {
  if (!presenceOf.has(a)) presenceOf.set(a, a.subjects?.samples.length ? subjectPresence(a.subjects, a.times) : undefined);
  return presenceOf.get(a);
}

const crossesScene = (a: ClipAnalysis, s: number, e: number) => a.scenes.some((c) => c > s + 0.05 && c < e - 0.05);

/** A moment already on the reel: its source window and where it sits on the reel. */
export interface Used {
  in: number;
  out: number;
  reelStart: number;
  reelEnd: number;
}

/** Why a segment shows what it shows: the message `SegmentChoice` (proto/reelsmith/engine/v1/plan.proto). */
export type { SegmentChoice };

/**
 * The kinds of window, best first. A window is clean when it has no black, frozen or blurred
 * sample and does not cross a shot boundary; fresh when no moment of it is on the reel yet.
 */
export const CHOICE_REASONS = [
  'fresh clean material',
  'clean material shown again, as long ago as possible (no fresh clean material left)',
  'fresh but blurred (nothing clean left)',
  'blurred, shown again (nothing fresh or clean left)',
  'fresh with black or frozen frames (nothing better left)',
  'shown again with black or frozen frames (nothing better left)',
  'repeats the segment just before (nothing else left)',
  'crosses a shot boundary (nothing else left)',
] as const;

/** Seconds of [s, e) covered by the used windows (their union). */
function overlapSec(used: Used[], s: number, e: number): number {
  const parts = used.map((u) => [Math.max(s, u.in), Math.min(e, u.out)] as const).filter(([a, b]) => b > a);
  parts.sort((x, y) => x[0] - y[0]);
  let total = 0;
  let reach = s;
  for (const [a, b] of parts) {
    if (b > reach) total += b - Math.max(a, reach);
    reach = Math.max(reach, b);
  }
  return total;
}

export interface Candidate {
  start: number;
  tier: number;
  gap: number;
  rank: number;
  choice: SegmentChoice;
}

const r3 = (x: number) => Math.round(x * 1000) / 1000;

/**
 * What a fresh clean window loses in rank for each window-length of clean material it leaves
 * unusable beside it (see forEachWindow): the best moment moves a little to sit flush against its
 * neighbour rather than leave a sliver no later segment can show, so the clip's clean material
 * lasts for as many segments as it can hold before anything is shown again.
 */
const SLIVER_COST = 0.5;

/**
 * How much of the segment just before a window may show again without counting as a repeat of it
 * (tier 6): a frame or so at 24-30 fps, which reads as the same shot going on, not as the moment
 * shown twice. A beat placed 20 ms early makes a 0.967 s segment before 1 s ones; the clean
 * material then holds no 1 s window clear of its neighbour by a frame, and without this a blurred
 * one was chosen instead.
 */
const UNSEEN_REPEAT_SEC = 0.05;

/** What a window's choice is worked out from. */
interface WindowStats {
  lo: number;
  hi: number;
  black: number;
  frozen: number;
  blurred: number;
  quality: number;
  fresh: boolean;
}

/**
 * A candidate window. Its choice (the details shown in the plan) is worked out when read: a long
 * reel ranks thousands of windows per segment and keeps one.
 */
class Window implements Candidate {
  private details?: SegmentChoice;
  constructor(
    private readonly a: ClipAnalysis,
    readonly start: number,
    readonly tier: number,
    readonly gap: number,
    readonly rank: number,
    private readonly w: WindowStats,
  ) {}

  get choice(): SegmentChoice {
    const { a, w, tier, gap } = this;
    const n = w.hi - w.lo;
    this.details ??= {
      tier,
      reason: CHOICE_REASONS[tier]!,
      quality: r3(w.quality),
      sharpness: r3(mean(a.sharpness, w.lo, w.hi, a.blurred.slice(w.lo, w.hi).some(Boolean) ? 0 : 1)),
      motion: r3(mean(a.motion, w.lo, w.hi, 0)),
      exposure: r3(mean(a.exposure, w.lo, w.hi, 1)),
      black: r3(w.black / n),
      frozen: r3(w.frozen / n),
      blurred: r3(w.blurred / n),
      ...(w.fresh ? {} : { repeatGapSec: r3(Math.max(0, gap)) }),
    };
    return this.details;
  }
}

/** The first index of sorted `xs` whose value is >= x. */
function lowerBound(xs: readonly number[], x: number): number {
  let lo = 0,
    hi = xs.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (xs[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

const mean = (xs: number[] | undefined, lo: number, hi: number, dflt: number) => {
  if (!xs || hi <= lo) return dflt;
  let s = 0;
  for (let i = lo; i < hi; i++) s += xs[i]!;
  return s / (hi - lo);
};

/**
 * Rule 4: the window of `len` seconds this segment shows. Candidates start on a grid of the
 * analysis interval and flush against every edge (clip ends, shot boundaries, edges of black or
 * frozen stretches, windows already used). Each is ranked by its kind (CHOICE_REASONS), then:
 * fresh windows by quality (with a tiny bonus for sitting flush against an edge, which keeps the
 * rest of a good stretch in one piece); windows shown again by how long ago (reel time) their
 * material was last on screen, then quality. Deterministic: ties go to the earliest start.
 */
export function chooseWindow(a: ClipAnalysis, duration: number, len: number, used: Used[], reelStart: number): Candidate {
  let best: Candidate | undefined;
  forEachWindow(a, duration, len, used, reelStart, (c) => {
    if (!best || c.tier < best.tier || (c.tier === best.tier && c.rank > best.rank + EPS)) best = c;
  });
  return best!;
}

/** Every candidate window of `len` seconds (see chooseWindow), in order of start. */
export function forEachWindow(
  a: ClipAnalysis,
  duration: number,
  len: number,
  used: Used[],
  reelStart: number,
  /** Called with each candidate in turn; returning false stops the walk. */
  visit: (c: Candidate) => boolean | void,
  /** Only the tier is read (bestTier): the rank is not worked out (NaN). */
  tierOnly = false,
): void {
  const step = Math.max(0.05, Math.min(0.25, a.sampleIntervalSec));
  const last = Math.max(0, duration - len);
  const edges = [0, duration, ...a.scenes, ...used.flatMap((u) => [u.in, u.out])];
  const badAt = (k: number) => a.black[k] || a.frozen[k];
  for (let i = 1; i < a.times.length; i++) {
    if (badAt(i) !== badAt(i - 1) || a.blurred[i] !== a.blurred[i - 1]) edges.push(a.times[i]!);
  }
  const startSet = new Set<number>();
  for (let s0 = 0; s0 < last - EPS; s0 += step) startSet.add(round6(s0));
  startSet.add(round6(last));
  for (const e of edges)
    for (const s0 of [e, e - len]) if (s0 >= -EPS && s0 <= last + EPS) startSet.add(round6(Math.min(last, Math.max(0, s0))));
  const starts = [...startSet].sort((x, y) => x - y);
  // Sorted once: "flush against an edge" is a binary search, not a scan of every edge.
  const sortedEdges = [...edges].sort((x, y) => x - y);
  const flush = (x: number) => {
    const i = lowerBound(sortedEdges, x - step / 2 - EPS);
    return i < sortedEdges.length && sortedEdges[i]! <= x + step / 2 + EPS;
  };
  // Windows already used, by where they start in the clip: those overlapping [start, end) start
  // after start - longest and before end, so a long reel's many repeats are not all scanned.
  const byIn = [...used].sort((x, y) => x.in - y.in);
  const ins = byIn.map((u) => u.in);
  const longest = byIn.reduce((m, u) => Math.max(m, u.out - u.in), 0);
  const overlapping = (start: number, end: number) => {
    const out: Used[] = [];
    for (let i = lowerBound(ins, start - longest - EPS); i < byIn.length && byIn[i]!.in < end - EPS; i++) {
      const u = byIn[i]!;
      if (start < u.out - EPS && end > u.in + EPS) out.push(u);
    }
    return out;
  };
  // A sample at time t stands for [t, t + interval): the frame shown until the next sample.
  const firstAfter = (t: number) => {
    let lo = 0,
      hi = a.times.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (a.times[mid]! + a.sampleIntervalSec <= t + EPS) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  const firstFrom = (t: number) => lowerBound(a.times, t - EPS);
  const previous = used.length ? used.reduce((p, u) => (u.reelEnd > p.reelEnd ? u : p)) : undefined;
  // Clean material a fresh clean window would leave beside it too short for a window of its own:
  // the stretch it sits in runs from the nearest edge before it to the nearest edge after it.
  const sliverSec = (start: number, end: number) => {
    const i = lowerBound(sortedEdges, start + EPS);
    const before = i > 0 ? start - sortedEdges[i - 1]! : 0;
    const j = lowerBound(sortedEdges, end - EPS);
    const after = j < sortedEdges.length ? sortedEdges[j]! - end : 0;
    return [before, after].reduce((t, x) => t + (x > EPS && x < len - EPS ? x : 0), 0);
  };
  for (const start of starts) {
    const end = start + len;
    let lo = firstAfter(start);
    let hi = firstFrom(end);
    if (hi <= lo) {
      // A window shorter than a sample: the sample it sits in.
      lo = Math.min(a.times.length - 1, lo);
      hi = lo + 1;
    }
    let black = 0,
      frozen = 0,
      blurred = 0;
    for (let i = lo; i < hi; i++) {
      if (a.black[i]) black++;
      if (a.frozen[i]) frozen++;
      if (a.blurred[i]) blurred++;
    }
    const overlaps = overlapping(start, end);
    const fresh = overlaps.length === 0;
    const gap = fresh ? Infinity : Math.min(...overlaps.map((u) => reelStart - u.reelEnd));
    const backToBack =
      !fresh &&
      previous !== undefined &&
      overlaps.includes(previous) &&
      reelStart - previous.reelEnd <= EPS &&
      overlapSec([previous], start, end) > UNSEEN_REPEAT_SEC;
    const crosses = crossesScene(a, start, end);
    const tier = crosses ? 7 : backToBack ? 6 : black + frozen > 0 ? (fresh ? 4 : 5) : blurred > 0 ? (fresh ? 2 : 3) : fresh ? 0 : 1;
    const shown = presence(a);
    const quality = mean(a.score, lo, hi, 0) * (shown ? EMPTY_WINDOW_SHARE + (1 - EMPTY_WINDOW_SHARE) * mean(shown, lo, hi, 1) : 1);
    // Fresh: quality (+ flush bonus). Again: the longest gap first (in half seconds), then the
    // least of the latest showing repeated (a short clip's windows all touch it), then the most
    // material not yet shown, then quality. Not needed when only the tier is asked.
    let rank = NaN;
    if (!tierOnly) {
      if (fresh)
        rank =
          quality +
          (flush(start) || flush(end) ? 0.01 : 0) -
          (crosses || black + frozen + blurred > 0 ? 0 : (SLIVER_COST * sliverSec(start, end)) / len);
      else {
        const lastEnd = Math.max(...overlaps.map((o) => o.reelEnd));
        const latest = overlaps.filter((u) => u.reelEnd >= lastEnd - EPS);
        rank =
          Math.floor(Math.min(gap, 1e4) / 0.5) * 10 +
          3 * (1 - overlapSec(latest, start, end) / len) +
          2 * (1 - overlapSec(overlaps, start, end) / len) +
          quality / 2;
      }
    }
    const c = new Window(a, start, tier, gap, rank, { lo, hi, black, frozen, blurred, quality, fresh });
    if (visit(c) === false) return;
  }
}

/**
 * The best kind (tier) of window of `len` seconds this clip still has (see chooseWindow), without
 * ranking the windows: the planner asks it of every clip for every segment to share the reel.
 */
export function bestTier(a: ClipAnalysis, duration: number, len: number, used: Used[], reelStart: number): number {
  let best = Infinity;
  forEachWindow(
    a,
    duration,
    len,
    used,
    reelStart,
    (c) => {
      best = Math.min(best, c.tier);
      return best > 0; // nothing beats fresh clean material
    },
    true,
  );
  return best;
}
