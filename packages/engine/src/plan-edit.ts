/**
 * Plans made elsewhere (issue 20): a user sees the plan before paying, may lock segments, re-roll
 * others or move cuts, and the render then follows the plan exactly. So a plan that did not come
 * from `planEdit` a moment ago must be checked first (`validatePlan`, naming the first problem),
 * and re-rolling must keep what the user locked bit for bit (`rerollPlan`).
 */
import { PLAN_MAX_SEGMENTS } from '@reelsmith/proto';
import { EngineError } from './errors.js';
import { mulberry32 } from './numeric.js';
import {
  CHOICE_REASONS,
  PLAN_VERSION,
  forEachWindow,
  type Candidate,
  type EditPlan,
  type PlanInput,
  type Segment,
  type Used,
} from './plan.js';

/** The most segments a plan may have (the engine's segment cap). */
export const MAX_SEGMENTS = PLAN_MAX_SEGMENTS;

export interface PlanLimits {
  /** Each clip's duration, seconds, by index. */
  clipDurations: number[];
  /** The music's duration; undefined without music. */
  musicSec?: number;
  /** The output frame rate the render uses. */
  fps: number;
}

const EPS = 1e-6;
/** Tolerance on source times (seconds): probes and JSON round trips differ in the last digits. */
const SRC_TOL = 1e-3;
const fmt = (x: number) => String(Math.round(x * 1000) / 1000);
const onGrid = (t: number, fps: number) => Math.abs(t * fps - Math.round(t * fps)) <= 1e-3;

/**
 * The first problem of a plan against its clips and music, worded for the user
 * ('plan.segments[3]: out 12.5 is past the end of clip 1 (10 s)'), or null when it can be
 * rendered as it is: clip indexes exist, in/out inside the clip, segments contiguous from 0 to
 * the total, boundaries on the output frame grid (the reel's end may be the music's end), each
 * segment's source time plus hold equal to its length, the music's window (music_start plus the
 * total) within the music (or, without
 * music, the material), at most MAX_SEGMENTS segments.
 */
export function validatePlan(plan: EditPlan, limits: PlanLimits): string | null {
  const { fps } = limits;
  const num = (x: unknown) => typeof x === 'number' && Number.isFinite(x);
  if (plan.version !== PLAN_VERSION) return `plan.version: ${plan.version} is not a plan version this server makes (${PLAN_VERSION})`;
  if (plan.fps !== fps) return `plan.fps: ${plan.fps} is not the output frame rate (${fps})`;
  if (!Array.isArray(plan.segments) || plan.segments.length === 0) return 'plan.segments: a plan needs at least one segment';
  if (plan.segments.length > MAX_SEGMENTS) return `plan.segments: ${plan.segments.length} segments, at most ${MAX_SEGMENTS} are allowed`;
  if (!num(plan.totalSec) || plan.totalSec <= 0) return 'plan.total_sec must be a positive number of seconds';
  const n = limits.clipDurations.length;
  let prevEnd = 0;
  const last = plan.segments.length - 1;
  for (const [i, s] of plan.segments.entries()) {
    const at = `plan.segments[${i}]`;
    if (![s.in, s.out, s.start, s.end, s.hold].every(num)) return `${at}: in, out, start, end and hold must be numbers`;
    if (!Number.isInteger(s.clip) || s.clip < 0 || s.clip >= n)
      return `${at}: clip ${s.clip} does not exist (the request has ${n} clip${n === 1 ? '' : 's'})`;
    const dur = limits.clipDurations[s.clip]!;
    if (s.in < 0) return `${at}: in ${fmt(s.in)} is before the start of clip ${s.clip}`;
    if (s.in >= dur - EPS) return `${at}: in ${fmt(s.in)} is past the end of clip ${s.clip} (${fmt(dur)} s)`;
    if (s.out <= s.in) return `${at}: out ${fmt(s.out)} is not after in ${fmt(s.in)}`;
    if (s.out > dur + SRC_TOL) return `${at}: out ${fmt(s.out)} is past the end of clip ${s.clip} (${fmt(dur)} s)`;
    if (s.hold < 0) return `${at}: hold ${fmt(s.hold)} is negative`;
    if (Math.abs(s.start - prevEnd) > EPS)
      return i === 0
        ? `${at}: start ${fmt(s.start)} must be 0 (the reel starts with the first segment)`
        : `${at}: start ${fmt(s.start)} does not follow the previous segment's end ${fmt(prevEnd)} (segments must be contiguous)`;
    if (s.end <= s.start + EPS) return `${at}: end ${fmt(s.end)} is not after start ${fmt(s.start)}`;
    if (!onGrid(s.start, fps)) return `${at}: start ${fmt(s.start)} is not on the output frame grid (1/${fps} s)`;
    if (i < last && !onGrid(s.end, fps)) return `${at}: end ${fmt(s.end)} is not on the output frame grid (1/${fps} s)`;
    if (Math.round(s.end * fps) - Math.round(s.start * fps) < 1) return `${at}: shorter than one frame (1/${fps} s)`;
    const shown = s.out - s.in + s.hold;
    if (Math.abs(shown - (s.end - s.start)) > 1 / fps + EPS)
      return `${at}: out - in + hold is ${fmt(shown)} s but the segment lasts ${fmt(s.end - s.start)} s (end - start)`;
    prevEnd = s.end;
  }
  if (Math.abs(prevEnd - plan.totalSec) > EPS) return `plan.total_sec ${fmt(plan.totalSec)} is not the last segment's end ${fmt(prevEnd)}`;
  const musicStart = plan.musicStart ?? 0;
  if (!num(musicStart) || musicStart < 0) return 'plan.music_start must be a number of seconds, at least 0';
  if (limits.musicSec !== undefined) {
    if (musicStart >= limits.musicSec)
      return `plan.music_start ${fmt(musicStart)} is past the end of the music (${fmt(limits.musicSec)} s)`;
    if (musicStart + plan.totalSec > limits.musicSec + SRC_TOL)
      return musicStart > 0
        ? `plan.music_start ${fmt(musicStart)} + total_sec ${fmt(plan.totalSec)} is past the end of the music (${fmt(limits.musicSec)} s)`
        : `plan.total_sec ${fmt(plan.totalSec)} is longer than the music (${fmt(limits.musicSec)} s)`;
  } else {
    const material = limits.clipDurations.reduce((a, b) => a + b, 0);
    if (plan.totalSec > material + SRC_TOL)
      return `plan.total_sec ${fmt(plan.totalSec)} is longer than the material (${fmt(material)} s of clips)`;
  }
  return null;
}

export interface RerollOptions {
  /** Segment indexes to give new moments. */
  reroll: number[];
  /** Segment indexes kept exactly as they are (re-rolling one of them is refused). */
  locked?: number[];
  /** Varies the choice among the best few fresh moments; same seed, same result. */
  seed?: number;
}

const round6 = (x: number) => Math.round(x * 1e6) / 1e6;
const overlaps = (s: number, e: number, u: Used) => s < u.out - EPS && e > u.in + EPS;
/** How many of the best fresh moments a seed may choose between. */
const SEED_CHOICES = 3;

/**
 * The plan with the segments in `reroll` showing other moments of their clips: the next-best
 * moments (by the planner's own ranking, with Intelligence) that no other segment of the plan
 * shows, nor the segment itself; every other segment, locked or not, is kept as the same object.
 * A re-rolled segment keeps its clip, its place on the timeline and its length. Seed 0 takes the
 * best such moment; another seed picks among the best three. When a clip has no unused moment
 * left, the best moment other than the current one is taken (a repeat beats no change).
 * Throws INVALID_SETTINGS naming a bad index.
 */
export function rerollPlan(input: PlanInput, plan: EditPlan, opts: RerollOptions): EditPlan {
  const locked = new Set(opts.locked ?? []);
  const n = plan.segments.length;
  for (const [what, list] of [
    ['reroll', opts.reroll],
    ['locked', opts.locked ?? []],
  ] as const)
    for (const i of list)
      if (!Number.isInteger(i) || i < 0 || i >= n)
        throw new EngineError('INVALID_SETTINGS', `${what}: segment ${i} does not exist (the plan has ${n} segments)`);
  for (const i of opts.reroll) if (locked.has(i)) throw new EngineError('INVALID_SETTINGS', `segment ${i} is both locked and re-rolled`);
  const rand = mulberry32(opts.seed ?? 0);
  const segments = [...plan.segments];
  for (const r of [...new Set(opts.reroll)].sort((a, b) => a - b)) {
    const seg = segments[r]!;
    const clip = input.clips[seg.clip];
    if (!clip) throw new EngineError('INVALID_SETTINGS', `plan.segments[${r}]: clip ${seg.clip} does not exist`);
    const len = seg.out - seg.in;
    // Everything else on the reel from this clip, and this segment's own moment: none is fresh.
    const used: Used[] = segments
      .filter((s) => s.clip === seg.clip)
      .map((s) => ({ in: s.in, out: s.out, reelStart: s.start, reelEnd: s.end }));
    const pick = <T>(list: T[]) =>
      list.length ? list[opts.seed ? Math.floor(rand() * Math.min(SEED_CHOICES, list.length)) : 0] : undefined;
    let next: Segment | undefined;
    if (input.intelligence && clip.analysis && clip.analysis.times.length > 0) {
      const all: Candidate[] = [];
      forEachWindow(clip.analysis, clip.durationSec, len, used, seg.start, (c) => {
        all.push(c);
      });
      const byRank = (a: Candidate, b: Candidate) => a.tier - b.tier || b.rank - a.rank || a.start - b.start;
      const fresh = all.filter((c) => c.gap === Infinity).sort(byRank);
      const bestTier = fresh[0]?.tier;
      const chosen = pick(fresh.filter((c) => c.tier === bestTier)) ?? all.filter((c) => Math.abs(c.start - seg.in) > EPS).sort(byRank)[0];
      if (chosen)
        next = {
          ...seg,
          in: round6(chosen.start),
          out: round6(chosen.start + len),
          score: chosen.choice.quality,
          why: { ...chosen.choice, reason: CHOICE_REASONS[chosen.tier]! },
        };
    } else {
      // Without analysis: unused windows on a grid, the first ones after the current moment first.
      const room = Math.max(0, clip.durationSec - len);
      const step = Math.max(1 / input.fps, Math.min(0.5, len / 2));
      const starts: number[] = [];
      for (let t = 0; t <= room + EPS; t += step) starts.push(Math.min(room, t));
      if (starts.at(-1)! < room - EPS) starts.push(room);
      const order = (t: number) => (t > seg.in + EPS ? t - seg.in : t + clip.durationSec);
      const fresh = starts.filter((t) => !used.some((u) => overlaps(t, t + len, u))).sort((a, b) => order(a) - order(b));
      const other = starts.filter((t) => Math.abs(t - seg.in) > EPS).sort((a, b) => order(a) - order(b));
      const t = pick(fresh) ?? other[0];
      if (t !== undefined) {
        const { score: _s, why: _w, ...rest } = seg;
        next = { ...rest, in: round6(t), out: round6(t + len) };
      }
    }
    if (next) segments[r] = next;
  }
  return { ...plan, segments };
}
