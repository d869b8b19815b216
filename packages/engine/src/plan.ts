/**
 * Edit planning: a pure, deterministic function from inputs, their analyses and the settings to
 * an edit decision list. Same inputs and settings give the same plan, byte for byte.
 *
 * The rules:
 * 1. Length. The reel is as long as the music. Without music it is as long as the material: the
 *    sum of the clips' durations (with Intelligence, minus their black and frozen stretches).
 * 2. Cuts. With beat mapping on and music present, every cut lands on a beat of the music. The
 *    pacing sets the target segment length: relaxed 8 beats (two bars of 4/4), standard 4 beats,
 *    high-energy 2 beats. A cut goes to the bar line nearest the target when one lies within a
 *    quarter of the target length, otherwise to the nearest beat. Without beat mapping (or music)
 *    segments are relaxed 4 s, standard 2.5 s, high-energy 1.2 s. A last piece shorter than half a
 *    segment is merged into the one before it.
 * 3. Order. Segments take the clips in the order given, round robin, so every clip is used when
 *    the reel has at least as many segments as there are clips.
 * 4. Moments. With Intelligence, each segment shows the best-scoring window of its clip (sharp,
 *    well exposed, moving) that does not cross a scene change and avoids black, frozen and blurred
 *    frames. It prefers fresh material, then shows clean material again rather than black or
 *    frozen frames; windows flush against an edge win ties, so good stretches stay in one piece.
 *    Without Intelligence, a clip used k times shows k evenly spaced moments, in order.
 * 5. Short clips. A segment never asks a clip for more than it has: with beat mapping the cut
 *    moves to an earlier beat; if a clip is shorter than even one beat its last frame is held.
 * 6. Times are then snapped to output frames, so a cut is within half a frame of its beat.
 */
import { reelSeconds } from '@reelsmith/proto';
import type { ClipAnalysis } from './clip-analysis.js';
import type { MusicAnalysis } from './beat-fit.js';
import type { Pacing } from './settings.js';

export const PLAN_VERSION = 1;

export interface PlanClip {
  durationSec: number;
  analysis?: ClipAnalysis;
}

export interface PlanInput {
  clips: PlanClip[];
  music?: { durationSec: number; analysis?: MusicAnalysis };
  pacing: Pacing;
  beatMapping: boolean;
  intelligence: boolean;
  fps: number;
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
}

export interface EditPlan {
  version: number;
  totalSec: number;
  fps: number;
  beatAligned: boolean;
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

/** Rule 1, with the length rule shared with the orchestrator (which prices and caps by it). */
export function totalLength(input: PlanInput): number {
  const usable = input.clips.map((c) =>
    Math.max(Math.min(1, c.durationSec), c.durationSec - (input.intelligence ? unusableSec(c.analysis) : 0)),
  );
  return reelSeconds(usable, input.music?.durationSec);
}

/** Where the cuts go on the timeline: [0, c1, c2, ..., total]. */
function cutPoints(input: PlanInput, total: number, clipOf: (k: number) => PlanClip): number[] {
  const beats = input.music?.analysis?.beats ?? [];
  const beatAligned = input.beatMapping && Boolean(input.music) && beats.length >= 4;
  const cuts = [0];
  if (!beatAligned) {
    const len = SECONDS_PER_SEGMENT[input.pacing];
    let cur = 0;
    for (let k = 0; cur < total - EPS; k++) {
      const avail = clipOf(k).durationSec;
      let next = Math.min(total, cur + Math.min(len, Math.max(avail, 0.5)));
      if (total - next < len / 2) next = total;
      cuts.push(next);
      cur = next;
    }
    return cuts;
  }
  const inRange = beats.filter((b) => b > EPS && b < total - EPS);
  const bars = new Set((input.music?.analysis?.bars ?? []).map((b) => round6(b)));
  const period = input.music!.analysis!.beatPeriodSec;
  const target = BEATS_PER_SEGMENT[input.pacing] * period;
  let cur = 0;
  for (let k = 0; cur < total - EPS; k++) {
    const avail = clipOf(k).durationSec;
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

/** Mean score of a clip's analysis samples inside [s, e), with black/frozen/blurred penalised. */
function windowScore(a: ClipAnalysis, s: number, e: number): number {
  let sum = 0;
  let n = 0;
  for (let i = 0; i < a.times.length; i++) {
    const t = a.times[i]!;
    if (t < s - EPS || t >= e) continue;
    let q = a.score[i]!;
    if (a.black[i]) q -= 2;
    if (a.frozen[i]) q -= 1;
    if (a.blurred[i]) q -= 0.5;
    sum += q;
    n++;
  }
  return n ? sum / n : -1;
}

const crossesScene = (a: ClipAnalysis, s: number, e: number) => a.scenes.some((c) => c > s + 0.05 && c < e - 0.05);

interface Window {
  in: number;
  out: number;
}

/** Places where a window can sit flush: clip ends, shot boundaries, edges of bad stretches, used windows. */
function edgesOf(a: ClipAnalysis, duration: number, used: Window[]): number[] {
  const edges = [0, duration, ...a.scenes, ...used.flatMap((u) => [u.in, u.out])];
  for (let i = 1; i < a.times.length; i++) {
    const bad = (k: number) => a.black[k] || a.frozen[k];
    if (bad(i) !== bad(i - 1)) edges.push(a.times[i]! - a.sampleIntervalSec / 2);
  }
  return edges;
}

function bestWindow(a: ClipAnalysis, duration: number, len: number, used: Window[]): number {
  const step = Math.max(0.05, Math.min(0.25, a.sampleIntervalSec));
  const last = Math.max(0, duration - len);
  // A window flush against an edge leaves the rest of a good stretch in one piece for later
  // segments: a small bonus, smaller than any real difference in quality.
  const edges = edgesOf(a, duration, used);
  const flush = (x: number) => edges.some((e) => Math.abs(e - x) <= step / 2 + EPS);
  const hasBad = (s0: number, e: number) => a.times.some((t, i) => t >= s0 - EPS && t < e && (a.black[i] || a.frozen[i]));
  const starts: number[] = [];
  for (let s0 = 0; s0 < last - EPS; s0 += step) starts.push(s0);
  starts.push(last);
  // Search order: fresh clean material; clean material shown again; fresh material with black or
  // frozen frames; anything. Never across a shot boundary unless nothing else is left.
  const passes = [
    { overlap: false, bad: false, scenes: false },
    { overlap: true, bad: false, scenes: false },
    { overlap: false, bad: true, scenes: false },
    { overlap: true, bad: true, scenes: true },
  ];
  let best = { start: 0, score: -Infinity };
  for (const pass of passes) {
    for (const start of starts) {
      const e = start + len;
      if (!pass.scenes && crossesScene(a, start, e)) continue;
      if (!pass.overlap && used.some((u) => start < u.out - EPS && e > u.in + EPS)) continue;
      if (!pass.bad && hasBad(start, e)) continue;
      const score = windowScore(a, start, e) + (flush(start) || flush(e) ? 0.05 : 0);
      if (score > best.score + EPS) best = { start, score };
    }
    if (best.score > -Infinity) break;
  }
  return best.start;
}

export function planEdit(input: PlanInput): EditPlan {
  if (input.clips.length === 0) throw new Error('at least one clip is needed');
  const total = totalLength(input);
  const clipOf = (k: number) => input.clips[k % input.clips.length]!;
  const cuts = cutPoints(input, total, clipOf);
  const fps = input.fps;
  const frame = (t: number) => Math.round(t * fps) / fps;
  const beats = input.music?.analysis?.beats ?? [];
  const beatAligned = input.beatMapping && Boolean(input.music) && beats.length >= 4;

  // Timeline pieces, frame-aligned.
  const pieces = [];
  for (let k = 0; k + 1 < cuts.length; k++) {
    const start = frame(cuts[k]!);
    const end = k + 2 === cuts.length ? round6(total) : frame(cuts[k + 1]!);
    if (end - start > EPS) pieces.push({ clip: k % input.clips.length, start, end });
  }

  // Evenly spaced moments need to know how often each clip is used.
  const uses = new Map<number, number>();
  for (const p of pieces) uses.set(p.clip, (uses.get(p.clip) ?? 0) + 1);
  const seen = new Map<number, number>();
  const usedWindows = new Map<number, Window[]>();

  const segments: Segment[] = pieces.map((p) => {
    const clip = input.clips[p.clip]!;
    const len = p.end - p.start;
    const available = Math.min(len, clip.durationSec);
    const hold = round6(Math.max(0, len - clip.durationSec));
    const j = seen.get(p.clip) ?? 0;
    seen.set(p.clip, j + 1);
    let start: number;
    if (input.intelligence && clip.analysis && clip.analysis.times.length > 0) {
      const used = usedWindows.get(p.clip) ?? [];
      start = bestWindow(clip.analysis, clip.durationSec, available, used);
      used.push({ in: start, out: start + available });
      usedWindows.set(p.clip, used);
    } else {
      const k = uses.get(p.clip)!;
      const room = Math.max(0, clip.durationSec - available);
      start = k === 1 ? room / 2 : (room * j) / (k - 1);
    }
    return { clip: p.clip, in: round6(start), out: round6(start + available), start: p.start, end: p.end, hold };
  });
  return { version: PLAN_VERSION, totalSec: round6(total), fps, beatAligned, segments };
}
