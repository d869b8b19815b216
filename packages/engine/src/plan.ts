/**
 * Edit planning: a pure, deterministic function from inputs, their analyses and the settings to
 * an edit decision list. Same inputs and settings give the same plan, byte for byte.
 *
 * The rules:
 * 1. Length. Without a target length the reel is as long as the music. With a target
 *    (`targetSec`) the reel plays a window of the song (song-sections.ts `chooseMusicWindow`):
 *    the best part of the song, or from the user's bar line (`musicStartSec`), a whole number of
 *    bars nearest the target; a target at least the song's length gives the whole song. The plan's
 *    `musicStart` is where the window begins in the song; segment times stay on the reel's own
 *    clock (a cut at reel time t is at song time musicStart + t). Without music the reel is as
 *    long as the material: the sum of the clips' durations (with Intelligence, minus their black
 *    and frozen stretches), or the target when that is shorter.
 * 2. Cuts. With beat mapping on and music present, every cut lands on a beat of the music inside
 *    the window. The
 *    pacing sets the target segment length: relaxed 8 beats (two bars of 4/4), standard 4 beats,
 *    high-energy 2 beats, counted at the local tempo (the spacing of the tracked beats where the
 *    segment starts), so segments follow a tempo change. A cut goes to the bar line nearest the
 *    target when one lies within a quarter of the target length, otherwise to the nearest beat. Without beat mapping (or music)
 *    segments are relaxed 4 s, standard 2.5 s, high-energy 1.2 s. A last piece shorter than half a
 *    segment is merged into the one before it.
 * 3. Order. Segments take the clips in the order given, round robin, so every clip is used when
 *    the reel has at least as many segments as there are clips. With Intelligence the clips share
 *    the reel by their usable material: a segment goes to the clip whose best window for it is of
 *    the best kind (rule 4: fresh clean material first), then to a clip other than the one just
 *    before, then round robin. So a clip whose clean material is all on the reel gives its turn to
 *    one that still has some, and nothing is shown again while fresh clean material remains.
 * 4. Moments. With Intelligence, each segment shows a window of its clip chosen in this order
 *    (CHOICE_REASONS): fresh clean material (no black, frozen or blurred sample, no shot
 *    boundary inside, nothing of it on the reel yet), best quality first; then clean material
 *    shown again, the one whose last showing is longest ago on the reel (and among equals the one
 *    that repeats least of that latest showing); only then blurred, then
 *    black or frozen material; never the moment the segment just before showed while anything
 *    else exists, and across a shot boundary only as a last resort. Quality weighs sharpness
 *    over motion, so a sharp moment beats a blurred one of similar motion. Each segment records
 *    its score and the components behind it (`score`, `why`).
 *    Without Intelligence, a clip used k times shows k evenly spaced moments, in order.
 * 5. Short clips. A segment never asks a clip for more than it has: with beat mapping the cut
 *    moves to an earlier beat; if a clip is shorter than even one beat its last frame is held.
 * 6. Times are then snapped to output frames, so a cut is within half a frame of its beat.
 */
import { reelSeconds } from '@reelsmith/proto';
import type { ClipAnalysis } from './clip-analysis.js';
import { LOW_BEAT_CONFIDENCE, periodAt, type MusicAnalysis } from './beat-tracker.js';
import type { Pacing } from './settings.js';
import { chooseMusicWindow, type MusicWindow, type SongAnalysis } from './song-sections.js';

export const PLAN_VERSION = 2;

export interface PlanClip {
  durationSec: number;
  analysis?: ClipAnalysis;
}

export interface PlanInput {
  clips: PlanClip[];
  music?: { durationSec: number; analysis?: SongAnalysis };
  pacing: Pacing;
  beatMapping: boolean;
  intelligence: boolean;
  fps: number;
  /** The reel's target length, seconds; undefined: the whole song (or all the material). */
  targetSec?: number;
  /** Where in the song the reel's music starts (a bar line); undefined: the best part. */
  musicStartSec?: number;
}

export interface Segment {
  /** Index into the clips. */
  clip: number;
  /** Source in and out points, seconds. */
  in: number;
  out: number;
  /** Place on the reel's timeline, seconds (frame-aligned). */
  start: number;
  end: number;
  /** Seconds the clip's last frame is held to fill the segment (clips shorter than a beat). */
  hold: number;
  /** With Intelligence: the window's score (mean quality, 0..1) and why it was chosen. */
  score?: number;
  why?: SegmentChoice;
}

export interface EditPlan {
  version: number;
  totalSec: number;
  fps: number;
  beatAligned: boolean;
  /** Seconds into the song where the reel's music begins (0: from the start, or no music). */
  musicStart: number;
  /** Seconds the music fades out over at the reel's end (its last beat) when the window ends before the song. */
  musicFadeOutSec?: number;
  /** The target was longer than the song: the reel is the whole song. */
  clampedToSong?: boolean;
  segments: Segment[];
}

const BEATS_PER_SEGMENT: Record<Pacing, number> = { relaxed: 8, standard: 4, 'high-energy': 2 };
const SECONDS_PER_SEGMENT: Record<Pacing, number> = { relaxed: 4, standard: 2.5, 'high-energy': 1.2 };
const EPS = 1e-6;

const round6 = (x: number) => Math.round(x * 1e6) / 1e6;

/** Seconds of a clip that Intelligence would rather not show (black or frozen samples). */
function unusableSec(a?: ClipAnalysis): number {
  if (!a || a.times.length < 2) return 0;
  const step = a.sampleIntervalSec;
  let bad = 0;
  for (let i = 0; i < a.times.length; i++) if (a.black[i] || a.frozen[i]) bad += step;
  return bad;
}

/** Rule 1: the part of the song the reel plays (the whole song without a target). */
export function musicWindow(input: PlanInput): MusicWindow | undefined {
  const m = input.music;
  return m ? chooseMusicWindow(m.analysis, m.durationSec, input.targetSec, input.musicStartSec) : undefined;
}

/** Rule 1, with the length rule shared with the orchestrator (which prices and caps by it). */
export function totalLength(input: PlanInput, window = musicWindow(input)): number {
  if (window) return window.end - window.start;
  const usable = input.clips.map((c) =>
    Math.max(Math.min(1, c.durationSec), c.durationSec - (input.intelligence ? unusableSec(c.analysis) : 0)),
  );
  return reelSeconds(usable, undefined, input.targetSec);
}

/** The analysis on the reel's clock: beats and bars of the window, shifted by its start. */
function onReelClock(a: MusicAnalysis, start: number, total: number): MusicAnalysis {
  if (start === 0) return a;
  const shift = (xs: number[]) => xs.map((x) => round6(x - start)).filter((x) => x >= -EPS && x <= total + EPS);
  return { ...a, beats: shift(a.beats), bars: shift(a.bars), ...(a.onsets ? { onsets: shift(a.onsets) } : {}) };
}

/** Where the cuts go on the timeline: [0, c1, c2, ..., total]. */
function cutPoints(input: PlanInput, total: number, clipOf: (k: number, cur: number, len: number) => PlanClip): number[] {
  const beats = input.music?.analysis?.beats ?? [];
  const beatAligned = input.beatMapping && Boolean(input.music) && beats.length >= 4;
  const cuts = [0];
  if (!beatAligned) {
    const len = SECONDS_PER_SEGMENT[input.pacing];
    let cur = 0;
    for (let k = 0; cur < total - EPS; k++) {
      const avail = clipOf(k, cur, len).durationSec;
      let next = Math.min(total, cur + Math.min(len, Math.max(avail, 0.5)));
      if (total - next < len / 2) next = total;
      cuts.push(next);
      cur = next;
    }
    return cuts;
  }
  const analysis = input.music!.analysis!;
  // A beat grid the tracker doubts (solo rubato): cut on the strong onsets instead, no bar preference.
  const unsure = analysis.confidence < LOW_BEAT_CONFIDENCE && (analysis.onsets?.length ?? 0) >= 4;
  const inRange = (unsure ? analysis.onsets! : beats).filter((b) => b > EPS && b < total - EPS);
  const bars = new Set((unsure ? [] : analysis.bars).map((b) => round6(b)));
  let cur = 0;
  for (let k = 0; cur < total - EPS; k++) {
    // The local beat period: the music's tempo may change, so segment lengths follow it.
    const period = periodAt(analysis, cur + EPS);
    const target = BEATS_PER_SEGMENT[input.pacing] * period;
    const avail = clipOf(k, cur, target).durationSec;
    const desired = cur + target;
    const after = inRange.filter((b) => b > cur + period * 0.5 - EPS);
    if (after.length === 0 || total - cur < target * 1.5) {
      cuts.push(total);
      break;
    }
    // Never ask the clip for more than it has (unless it is shorter than one beat: held then).
    const fits = after.filter((b) => b - cur <= avail + EPS);
    const pool = fits.length ? fits : [after[0]!];
    const barCandidates = pool.filter((b) => bars.has(round6(b)) && Math.abs(b - desired) <= target / 4 + EPS);
    const choose = (list: number[]) => list.reduce((best, b) => (Math.abs(b - desired) < Math.abs(best - desired) - EPS ? b : best));
    let next = barCandidates.length ? choose(barCandidates) : choose(pool);
    if (total - next < target / 2) next = total;
    cuts.push(next);
    cur = next;
  }
  return cuts;
}

const crossesScene = (a: ClipAnalysis, s: number, e: number) => a.scenes.some((c) => c > s + 0.05 && c < e - 0.05);

/** A moment already on the reel: its source window and where it sits on the reel. */
export interface Used {
  in: number;
  out: number;
  reelStart: number;
  reelEnd: number;
}

/** Why a segment shows what it shows: the window's score and its components (plan JSON). */
export interface SegmentChoice {
  /** Rank of the window's kind, best first: see CHOICE_REASONS. */
  tier: number;
  reason: string;
  /** Means over the window's analysis samples, 0..1. */
  quality: number;
  sharpness: number;
  motion: number;
  exposure: number;
  /** Shares of the window's samples that are black, frozen or blurred. */
  black: number;
  frozen: number;
  blurred: number;
  /** For a moment shown again: reel seconds since it was last on screen. */
  repeatGapSec?: number;
}

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
function chooseWindow(a: ClipAnalysis, duration: number, len: number, used: Used[], reelStart: number): Candidate {
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
  visit: (c: Candidate) => void,
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
  const flush = (x: number) => edges.some((e) => Math.abs(e - x) <= step / 2 + EPS);
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
  const firstFrom = (t: number) => {
    let lo = 0,
      hi = a.times.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (a.times[mid]! < t - EPS) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  const previous = used.length ? used.reduce((p, u) => (u.reelEnd > p.reelEnd ? u : p)) : undefined;
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
    const n = hi - lo;
    const overlaps = used.filter((u) => start < u.out - EPS && end > u.in + EPS);
    const fresh = overlaps.length === 0;
    const gap = fresh ? Infinity : Math.min(...overlaps.map((u) => reelStart - u.reelEnd));
    const backToBack = !fresh && previous !== undefined && overlaps.includes(previous) && reelStart - previous.reelEnd <= EPS;
    const crosses = crossesScene(a, start, end);
    const tier = crosses ? 7 : backToBack ? 6 : black + frozen > 0 ? (fresh ? 4 : 5) : blurred > 0 ? (fresh ? 2 : 3) : fresh ? 0 : 1;
    const quality = mean(a.score, lo, hi, 0);
    // Fresh: quality (+ flush bonus). Again: the longest gap first (in half seconds), then the
    // least of the latest showing repeated (a short clip's windows all touch it), then the most
    // material not yet shown, then quality.
    const latest = fresh ? [] : overlaps.filter((u) => u.reelEnd >= Math.max(...overlaps.map((o) => o.reelEnd)) - EPS);
    const rank = fresh
      ? quality + (flush(start) || flush(end) ? 0.01 : 0)
      : Math.floor(Math.min(gap, 1e4) / 0.5) * 10 +
        3 * (1 - overlapSec(latest, start, end) / len) +
        2 * (1 - overlapSec(overlaps, start, end) / len) +
        quality / 2;
    const r3 = (x: number) => Math.round(x * 1000) / 1000;
    const c: Candidate = {
      start,
      tier,
      gap,
      rank,
      choice: {
        tier,
        reason: CHOICE_REASONS[tier]!,
        quality: r3(quality),
        sharpness: r3(mean(a.sharpness, lo, hi, a.blurred.slice(lo, hi).some(Boolean) ? 0 : 1)),
        motion: r3(mean(a.motion, lo, hi, 0)),
        exposure: r3(mean(a.exposure, lo, hi, 1)),
        black: r3(black / n),
        frozen: r3(frozen / n),
        blurred: r3(blurred / n),
        ...(fresh ? {} : { repeatGapSec: r3(Math.max(0, gap)) }),
      },
    };
    visit(c);
  }
}

/** a < b, comparing element by element. */
const lexLess = (a: number[], b: number[]) => {
  for (let j = 0; j < a.length; j++) {
    if (a[j]! < b[j]! - EPS) return true;
    if (a[j]! > b[j]! + EPS) return false;
  }
  return false;
};

/**
 * Rule 3 with Intelligence: which clip piece `k` (starting at `cur`, about `len` long) takes.
 * Called in order of k; the piece before k is known by then, so its window is chosen exactly as
 * planEdit will choose it (same inputs, same order: deterministic) and counted as used.
 */
function shareByMaterial(input: PlanInput, frame: (t: number) => number) {
  const n = input.clips.length;
  const used = input.clips.map((): Used[] => []);
  const usedSec = input.clips.map(() => 0);
  // Every clip the user gave is on the reel once before any clip's material is weighed (when
  // there are enough segments): a clip with no clean material still appears, just not again.
  const shown = input.clips.map(() => 0);
  let prev: { clip: number; start: number } | undefined;
  return (k: number, cur: number, len: number): number => {
    // The piece before is now complete (it is not the last: another follows).
    if (prev) {
      const start = frame(prev.start);
      const end = frame(cur);
      const clip = input.clips[prev.clip]!;
      const avail = Math.min(end - start, clip.durationSec);
      if (end - start > EPS) {
        usedSec[prev.clip] = usedSec[prev.clip]! + avail;
        if (clip.analysis && clip.analysis.times.length > 0) {
          const w = chooseWindow(clip.analysis, clip.durationSec, avail, used[prev.clip]!, start);
          used[prev.clip]!.push({ in: w.start, out: w.start + avail, reelStart: start, reelEnd: end });
        }
      }
    }
    const reelStart = frame(cur);
    const tierOf = (c: number) => {
      const clip = input.clips[c]!;
      const l = Math.min(len, clip.durationSec);
      if (clip.analysis && clip.analysis.times.length > 0)
        return chooseWindow(clip.analysis, clip.durationSec, l, used[c]!, reelStart).tier;
      return usedSec[c]! + l <= clip.durationSec + EPS ? 0 : 1;
    };
    const allShown = shown.every((x) => x > 0);
    let best = k % n;
    let bestKey: number[] | undefined;
    for (let i = 0; i < n; i++) {
      const c = (k + i) % n;
      const key = [shown[c]! > 0 ? 1 : 0, tierOf(c), prev && prev.clip === c ? 1 : 0];
      if (!bestKey || lexLess(key, bestKey)) {
        best = c;
        bestKey = key;
      }
      // Nothing can beat a clip not yet shown, or fresh clean material from another clip than the
      // one before (round-robin order).
      if (key[0] === 0 || (allShown && key[1] === 0 && key[2] === 0)) break;
    }
    shown[best] = shown[best]! + 1;
    prev = { clip: best, start: cur };
    return best;
  };
}

export function planEdit(input: PlanInput): EditPlan {
  if (input.clips.length === 0) throw new Error('at least one clip is needed');
  const window = musicWindow(input);
  const total = totalLength(input, window);
  if (window && input.music?.analysis) {
    // Cuts are planned on the reel's clock: the window's beats, shifted to start at 0.
    input = { ...input, music: { ...input.music, analysis: onReelClock(input.music.analysis, window.start, total) } };
  }
  const fps = input.fps;
  const frame = (t: number) => Math.round(t * fps) / fps;
  const order: number[] = [];
  const sharer = input.intelligence ? shareByMaterial(input, frame) : undefined;
  const clipOf = (k: number, cur: number, len: number) => {
    order[k] = sharer ? sharer(k, cur, len) : k % input.clips.length;
    return input.clips[order[k]!]!;
  };
  const cuts = cutPoints(input, total, clipOf);
  const beats = input.music?.analysis?.beats ?? [];
  const beatAligned = input.beatMapping && Boolean(input.music) && beats.length >= 4;

  // Timeline pieces, frame-aligned.
  const pieces = [];
  for (let k = 0; k + 1 < cuts.length; k++) {
    const start = frame(cuts[k]!);
    const end = k + 2 === cuts.length ? round6(total) : frame(cuts[k + 1]!);
    if (end - start > EPS) pieces.push({ clip: order[k] ?? k % input.clips.length, start, end });
  }

  // Evenly spaced moments need to know how often each clip is used.
  const uses = new Map<number, number>();
  for (const p of pieces) uses.set(p.clip, (uses.get(p.clip) ?? 0) + 1);
  const seen = new Map<number, number>();
  const usedWindows = new Map<number, Used[]>();

  const segments: Segment[] = pieces.map((p) => {
    const clip = input.clips[p.clip]!;
    const len = p.end - p.start;
    const available = Math.min(len, clip.durationSec);
    const hold = round6(Math.max(0, len - clip.durationSec));
    const j = seen.get(p.clip) ?? 0;
    seen.set(p.clip, j + 1);
    let start: number;
    let chosen: Candidate | undefined;
    if (input.intelligence && clip.analysis && clip.analysis.times.length > 0) {
      const used = usedWindows.get(p.clip) ?? [];
      chosen = chooseWindow(clip.analysis, clip.durationSec, available, used, p.start);
      start = chosen.start;
      used.push({ in: start, out: start + available, reelStart: p.start, reelEnd: p.end });
      usedWindows.set(p.clip, used);
    } else {
      const k = uses.get(p.clip)!;
      const room = Math.max(0, clip.durationSec - available);
      start = k === 1 ? room / 2 : (room * j) / (k - 1);
    }
    const seg: Segment = { clip: p.clip, in: round6(start), out: round6(start + available), start: p.start, end: p.end, hold };
    if (chosen) {
      seg.score = chosen.choice.quality;
      seg.why = chosen.choice;
    }
    return seg;
  });
  const plan: EditPlan = {
    version: PLAN_VERSION,
    totalSec: round6(total),
    fps,
    beatAligned,
    musicStart: round6(window?.start ?? 0),
    segments,
  };
  if (window?.fadeOutSec) plan.musicFadeOutSec = window.fadeOutSec;
  if (window?.clamped) plan.clampedToSong = true;
  return plan;
}
