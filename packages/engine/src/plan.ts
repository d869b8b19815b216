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
 *    target when one lies within a quarter of the target length, otherwise to the nearest beat.
 *    The first cut waits for the music: where the analysis gives each beat's strength, no cut
 *    falls before the music's first sure beat (the first of SURE_RUN beats in a row, each of at
 *    least WEAK_BEAT and SURE_SHARE of the song's median beat strength) when that beat is at most
 *    FIRST_CUT_WAIT_SEC into the reel, else before the first beat of at least WEAK_BEAT when that
 *    one is (the decoding carries its grid back into the noise or the quiet intro before the
 *    music's steady beat, where a cut lands off the beat; the first shot then holds until the
 *    music's sure beat). Beyond that no cut waits; a window of the song waits only when it starts
 *    in the song's lead-in. Without beat mapping (or music)
 *    segments are relaxed 4 s, standard 2.5 s, high-energy 1.2 s. A last piece shorter than half a
 *    segment is merged into the one before it.
 * 3. Order. Segments take the clips in the order given, round robin, so every clip is used when
 *    the reel has at least as many segments as there are clips. With Intelligence the clips share
 *    the reel by their usable material: a segment goes to the clip whose best window for it (as
 *    long as the segment would be with that clip, cut on its beat) is of the best kind (rule 4:
 *    fresh clean material first), then to a clip other than the one just
 *    before, then round robin. So a clip whose clean material is all on the reel gives its turn to
 *    one that still has some, and nothing is shown again while fresh clean material remains.
 * 4. Moments. With Intelligence, each segment shows a window of its clip chosen in this order
 *    (CHOICE_REASONS): fresh clean material (no black, frozen or blurred sample, no shot
 *    boundary inside, nothing of it on the reel yet), best quality first, less what it would leave
 *    beside it as a sliver of clean material too short for a segment (so the clean material holds
 *    as many segments as it can before anything is shown again); then clean material
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
import { reelSeconds, type EditPlan, type PlanSegment } from '@reelsmith/proto';
import type { ClipAnalysis } from './clip-analysis.js';
import { LOW_BEAT_CONFIDENCE, WEAK_BEAT, periodAt, type MusicAnalysis } from './beat-tracker.js';
import { upperMedian } from './numeric.js';
import type { Pacing } from './settings.js';
import { chooseMusicWindow, type MusicWindow, type SongAnalysis } from './song-sections.js';
import { bestTier, chooseWindow, EPS, round6, type Candidate, type Used } from './plan-windows.js';

export { CHOICE_REASONS, forEachWindow, type Candidate, type SegmentChoice, type Used } from './plan-windows.js';

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

/**
 * The plan is the message `reelsmith.engine.v1.EditPlan` (proto/reelsmith/engine/v1/plan.proto),
 * held as a plain object: what each field means is written there once. A segment's `framing` is
 * the crop path reframing gives it (plan-framing.ts); absent: the settings' framing.
 */
export type { EditPlan };
export type Segment = PlanSegment;

const BEATS_PER_SEGMENT: Record<Pacing, number> = { relaxed: 8, standard: 4, 'high-energy': 2 };
const SECONDS_PER_SEGMENT: Record<Pacing, number> = { relaxed: 4, standard: 2.5, 'high-energy': 1.2 };

/**
 * How long (seconds into the reel) the first shot may hold while the first cut waits for the
 * music's sure beat (rule 2), and what a sure beat is: the first of SURE_RUN beats in a row, each
 * of at least WEAK_BEAT and SURE_SHARE of the song's median beat strength. Chosen on the beat
 * model's 280 validation songs through the training fonts and the validation font (tools/beat-model,
 * the bench's high-energy plan; docs/beat-bench.md has the sweep): 8 s is inside a plateau from
 * 6 to 10 s, a run of 2-5 and a share of 0.4-0.6.
 */
export const FIRST_CUT_WAIT_SEC = 8;
export const SURE_RUN = 4;
export const SURE_SHARE = 0.5;

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

/**
 * The analysis on the reel's clock: beats and bars of the window, shifted by its start. The beats'
 * strength goes with them only when the window starts before the song's first sure beat (its
 * lead-in): a window that starts in a quiet stretch later in the song is cut on its grid.
 */
function onReelClock(a: MusicAnalysis, start: number, total: number): MusicAnalysis {
  if (start === 0) return a;
  const sure = firstSureBeat(a);
  const leadIn = sure !== undefined && sure > start + EPS;
  const inWindow = (x: number) => x >= -EPS && x <= total + EPS;
  const shift = (xs: number[]) => xs.map((x) => round6(x - start)).filter(inWindow);
  const kept = a.beats.map((_, i) => i).filter((i) => inWindow(round6(a.beats[i]! - start)));
  const { beatStrength, ...rest } = a;
  return {
    ...rest,
    beats: kept.map((i) => round6(a.beats[i]! - start)),
    bars: shift(a.bars),
    ...(a.onsets ? { onsets: shift(a.onsets) } : {}),
    ...(leadIn ? { beatStrength: kept.map((i) => beatStrength![i]!) } : {}),
  };
}

/**
 * Where the analysis gives the beats' strength (else undefined): the music's first sure beat, the
 * first of SURE_RUN beats in a row each of at least WEAK_BEAT and SURE_SHARE of the median
 * strength; with `run` 1 and `share` 0, the first beat of at least WEAK_BEAT.
 */
function firstSureBeat(a: MusicAnalysis, run = SURE_RUN, share = SURE_SHARE): number | undefined {
  const s = a.beatStrength;
  if (!s || s.length !== a.beats.length || s.length === 0) return undefined;
  const bound = Math.max(WEAK_BEAT, share * upperMedian(s));
  let inRow = 0;
  for (let i = 0; i < s.length; i++) {
    inRow = s[i]! >= bound ? inRow + 1 : 0;
    if (inRow === run) return a.beats[i - run + 1];
  }
  return undefined;
}

/**
 * Where piece `k` (starting at `cur`) ends, given how many seconds of material its clip has:
 * called by `pick`, which chooses the clip knowing each clip's end (so a clip is judged by the
 * length it would really show) and answers the end of the chosen one.
 */
type EndFor = (avail: number) => number;
type Pick = (k: number, cur: number, endFor: EndFor) => number;

/** Where the cuts go on the timeline: [0, c1, c2, ..., total]. */
function cutPoints(input: PlanInput, total: number, pick: Pick): number[] {
  const beats = input.music?.analysis?.beats ?? [];
  const beatAligned = input.beatMapping && Boolean(input.music) && beats.length >= 4;
  const cuts = [0];
  if (!beatAligned) {
    const len = SECONDS_PER_SEGMENT[input.pacing];
    let cur = 0;
    for (let k = 0; cur < total - EPS; k++) {
      const next = pick(k, cur, (avail) => {
        const end = Math.min(total, cur + Math.min(len, Math.max(avail, 0.5)));
        return total - end < len / 2 ? total : end;
      });
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
  // The first cut waits for the music's first sure beat when it is at most FIRST_CUT_WAIT_SEC in,
  // else for the first beat of at least WEAK_BEAT when that one is (and no cut falls before it
  // while the clips allow); beyond that, no cut waits.
  const within = (t: number | undefined) => (t !== undefined && t <= FIRST_CUT_WAIT_SEC + EPS ? t : undefined);
  const waitUntil = unsure ? undefined : (within(firstSureBeat(analysis)) ?? within(firstSureBeat(analysis, 1, 0)));
  let cur = 0;
  for (let k = 0; cur < total - EPS; k++) {
    // The local beat period: the music's tempo may change, so segment lengths follow it.
    const period = periodAt(analysis, cur + EPS);
    const target = BEATS_PER_SEGMENT[input.pacing] * period;
    const desired = cur + target;
    const after = inRange.filter((b) => b > cur + period * 0.5 - EPS);
    const last = after.length === 0 || total - cur < target * 1.5;
    const next = pick(k, cur, (avail) => {
      if (last) return total;
      // Never ask the clip for more than it has (unless it is shorter than one beat: held then).
      const fits = after.filter((b) => b - cur <= avail + EPS);
      const reachable = fits.length ? fits : [after[0]!];
      const sure = waitUntil !== undefined && waitUntil > cur + EPS ? reachable.filter((b) => b >= waitUntil - EPS) : [];
      const pool = sure.length ? sure : reachable;
      const barCandidates = pool.filter((b) => bars.has(round6(b)) && Math.abs(b - desired) <= target / 4 + EPS);
      const choose = (list: number[]) => list.reduce((best, b) => (Math.abs(b - desired) < Math.abs(best - desired) - EPS ? b : best));
      const end = barCandidates.length ? choose(barCandidates) : choose(pool);
      return total - end < target / 2 ? total : end;
    });
    cuts.push(next);
    cur = next;
    if (last) break;
  }
  return cuts;
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
 * Rule 3 with Intelligence: which clip piece `k` (starting at `cur`) takes. Each clip is judged by
 * the best window it has for the length the piece would have with it (`endFor`: a short clip moves
 * the cut earlier, and the cut goes to a beat, not to the pacing's exact length), so a clip whose
 * unused clean material holds that piece is never passed over for one that would show something
 * again. Called in order of k; the piece before k is known by then, so its window is chosen
 * exactly as planEdit will choose it (same inputs, same order: deterministic) and counted as used.
 */
function shareByMaterial(input: PlanInput, frame: (t: number) => number, total: number) {
  const n = input.clips.length;
  const used = input.clips.map((): Used[] => []);
  const usedSec = input.clips.map(() => 0);
  // Every clip the user gave is on the reel once before any clip's material is weighed (when
  // there are enough segments): a clip with no clean material still appears, just not again.
  const shown = input.clips.map(() => 0);
  let prev: { clip: number; start: number } | undefined;
  return (k: number, cur: number, endFor: EndFor): number => {
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
      // The piece's length with this clip, as planEdit will cut it (frame-aligned; the last piece ends at the total).
      const e = endFor(clip.durationSec);
      const l = Math.min(Math.max(EPS, (e >= total - EPS ? round6(total) : frame(e)) - reelStart), clip.durationSec);
      if (clip.analysis && clip.analysis.times.length > 0) return bestTier(clip.analysis, clip.durationSec, l, used[c]!, reelStart);
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
  const sharer = input.intelligence ? shareByMaterial(input, frame, total) : undefined;
  const pick: Pick = (k, cur, endFor) => {
    order[k] = sharer ? sharer(k, cur, endFor) : k % input.clips.length;
    return endFor(input.clips[order[k]!]!.durationSec);
  };
  const cuts = cutPoints(input, total, pick);
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
  return {
    version: PLAN_VERSION,
    totalSec: round6(total),
    fps,
    beatAligned,
    musicStart: round6(window?.start ?? 0),
    musicFadeOutSec: window?.fadeOutSec ?? 0,
    clampedToSong: window?.clamped ?? false,
    // The output shape is the job's, named when the plan leaves the engine (planToWire).
    aspect: '',
    segments,
  };
}
