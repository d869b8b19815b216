/**
 * The edit plan's timeline, as data: widths, the segment under the playhead, and nudging a cut to
 * a beat while the plan stays one the server accepts (contiguous from 0, on the output frame grid,
 * each segment's source length plus its hold equal to its length on the reel). Pure, tested alone.
 */
import type { EditPlan, PlanMusic, PlanSegment } from '../../api/types';

/** The fewest frames a segment may keep when a cut moves. */
export const MIN_FRAMES = 2;

const EPS = 1e-6;
/** A time on the output frame grid (and free of float dust). */
export const onGrid = (t: number, fps: number) => Math.round(t * fps) / fps;
const clean = (t: number) => Math.round(t * 1e6) / 1e6;

/** Each segment's share of the reel, in percent (they add up to 100). */
export const widths = (plan: EditPlan) => plan.segments.map((s) => ((s.end - s.start) / plan.total_sec) * 100);

/** The narrowest a segment's thumbnail may be, in CSS pixels (a phone's finger, a recognisable frame). */
export const MIN_SEGMENT_PX = 44;
/** The widest the timeline grows to keep that (it scrolls sideways past the screen). */
const MAX_TIMELINE_PX = 20_000;

/**
 * The timeline's least width (a CSS length) for segments of `w` percent each: the whole width of
 * its box, or wider, so the shortest segment is still MIN_SEGMENT_PX wide (it then scrolls).
 */
export function timelineMinWidth(w: readonly number[]): string {
  const narrowest = Math.min(...w.filter((x) => x > 0));
  if (!Number.isFinite(narrowest)) return '100%';
  const px = Math.min(MAX_TIMELINE_PX, Math.ceil((MIN_SEGMENT_PX * 100) / narrowest));
  return `max(100%, ${px}px)`;
}

/** The index of the segment playing at `t` seconds (the last one at or after the end). */
export function segmentAt(plan: EditPlan, t: number): number {
  const i = plan.segments.findIndex((s) => t >= s.start - EPS && t < s.end - EPS);
  return i === -1 ? plan.segments.length - 1 : i;
}

/** Where the source is at reel time `t` within segment `s` (a held last frame stays at `out`). */
export const sourceTime = (s: PlanSegment, t: number) => Math.min(s.out, s.in + Math.max(0, t - s.start));

/**
 * The cut candidates for the cut after segment `i`: the beats (on the frame grid) strictly
 * between the segment's start and the next one's end, keeping MIN_FRAMES on each side. Without
 * beats, every half second.
 */
export function cutCandidates(plan: EditPlan, i: number, beats: number[]): number[] {
  const a = plan.segments[i];
  const b = plan.segments[i + 1];
  if (!a || !b) return [];
  const lo = a.start + MIN_FRAMES / plan.fps - EPS;
  const hi = b.end - MIN_FRAMES / plan.fps + EPS;
  const grid = beats.length ? beats : Array.from({ length: Math.ceil(plan.total_sec * 2) }, (_, k) => k / 2);
  return [...new Set(grid.map((t) => onGrid(t, plan.fps)))].filter((t) => t > lo && t < hi).sort((x, y) => x - y);
}

/** The candidate nearest to `t` (a dragged cut snaps to it). */
export function snap(candidates: number[], t: number): number | undefined {
  let best: number | undefined;
  for (const c of candidates) if (best === undefined || Math.abs(c - t) < Math.abs(best - t)) best = c;
  return best;
}

/** The next candidate before (-1) or after (+1) the cut's current place. */
export function stepCut(plan: EditPlan, i: number, beats: number[], dir: -1 | 1): number | undefined {
  const at = plan.segments[i]?.end;
  if (at === undefined) return undefined;
  const c = cutCandidates(plan, i, beats);
  return dir < 0 ? [...c].reverse().find((t) => t < at - EPS) : c.find((t) => t > at + EPS);
}

/**
 * A segment made `delta` seconds longer (or shorter) on the reel at one side, its source moment
 * adjusted so it stays valid without knowing the clip's length: longer starts the moment earlier
 * (never before 0; what is left is held on the last frame), shorter gives up source time at the
 * side that moved (a held frame first at the end).
 */
function resize(s: PlanSegment, delta: number, side: 'end' | 'start'): PlanSegment {
  const next = { ...s };
  if (side === 'end') next.end = clean(s.end + delta);
  else next.start = clean(s.start - delta);
  if (delta > 0) {
    const earlier = Math.min(delta, s.in);
    next.in = clean(s.in - earlier);
    next.hold = clean(s.hold + delta - earlier);
    return next;
  }
  const cut = -delta;
  if (side === 'end') {
    const fromHold = Math.min(s.hold, cut);
    next.hold = clean(s.hold - fromHold);
    next.out = clean(s.out - (cut - fromHold));
  } else {
    const later = Math.min(cut, s.out - s.in);
    next.in = clean(s.in + later);
    next.hold = clean(s.hold - (cut - later));
  }
  return next;
}

/**
 * The plan with the cut after segment `i` moved to `to` (on the frame grid), or a message saying
 * why it cannot move there. Segment i gets longer or shorter at its end, segment i+1 the opposite
 * at its start; everything else stays exactly as it was.
 */
export function moveCut(plan: EditPlan, i: number, to: number): EditPlan | string {
  const a = plan.segments[i];
  const b = plan.segments[i + 1];
  if (!a || !b) return 'There is no cut after the last segment.';
  const t = onGrid(to, plan.fps);
  const min = MIN_FRAMES / plan.fps;
  if (t < a.start + min - EPS || t > b.end - min + EPS) return 'A segment would become too short.';
  const delta = clean(t - a.end);
  if (Math.abs(delta) < EPS) return plan;
  const segments = [...plan.segments];
  segments[i] = resize(a, delta, 'end');
  segments[i + 1] = resize(b, -delta, 'start');
  return { ...plan, segments };
}

/**
 * The plan with the framing taken off each segment whose crop path no longer spans its source
 * moment (a moved cut made the moment start earlier or end later than the path's keys), for the
 * server to frame anew from the clip's subject track; null when every path still spans its moment.
 */
export function withoutStaleFraming(plan: EditPlan): EditPlan | null {
  const slack = 1 / plan.fps;
  const stale = (s: PlanSegment) => {
    const keys = s.framing?.path;
    return Boolean(keys?.length) && (keys![0]!.t > s.in + slack || keys![keys!.length - 1]!.t < s.out - slack);
  };
  if (!plan.segments.some(stale)) return null;
  return { ...plan, segments: plan.segments.map((s) => (stale(s) ? { ...s, framing: undefined } : s)) };
}

/**
 * The tempo of taps as the user taps (BPM, 0 before two taps): each tap gets its beat number from
 * the median interval (a missed tap is a skipped beat), then the period by least squares. The
 * server fits the same way and snaps the phase onto the track's beats.
 */
export function tapBpm(taps: number[]): number {
  if (taps.length < 2) return 0;
  const gaps = taps
    .slice(1)
    .map((t, i) => t - taps[i]!)
    .sort((a, b) => a - b);
  const mid = gaps.length >> 1;
  const p0 = gaps.length % 2 ? gaps[mid]! : (gaps[mid - 1]! + gaps[mid]!) / 2;
  if (!(p0 > 0)) return 0;
  const k = taps.map((t) => Math.round((t - taps[0]!) / p0));
  const n = taps.length;
  const sx = k.reduce((a, b) => a + b, 0);
  const sy = taps.reduce((a, b) => a + b, 0);
  const sxx = k.reduce((a, b) => a + b * b, 0);
  const sxy = k.reduce((a, b, i) => a + b * taps[i]!, 0);
  const den = n * sxx - sx * sx;
  const period = den > 0 ? (n * sxy - sx * sy) / den : p0;
  return period > 0 ? 60 / period : 0;
}

/** The part of a plan's music the timeline draws. */
type MusicTrack = Pick<PlanMusic, 'duration_sec' | 'beats' | 'downbeats' | 'peaks'>;

/**
 * The song's beats, downbeats and waveform on the reel's clock: a reel cut from the song
 * (plan.music_start > 0, or shorter than the song) shows its window only, starting at 0.
 */
export function musicOnReel(music: MusicTrack, plan: Pick<EditPlan, 'music_start' | 'total_sec'>): MusicTrack {
  const start = plan.music_start ?? 0;
  const end = start + plan.total_sec;
  const shift = (xs: number[]) => xs.filter((x) => x >= start - 1e-6 && x <= end + 1e-6).map((x) => Math.max(0, x - start));
  const n = music.peaks.length;
  const d = music.duration_sec || 1;
  const peaks = n
    ? music.peaks.slice(Math.floor((start / d) * n), Math.max(Math.floor((start / d) * n) + 1, Math.ceil((end / d) * n)))
    : [];
  return { duration_sec: plan.total_sec, beats: shift(music.beats), downbeats: shift(music.downbeats), peaks };
}
