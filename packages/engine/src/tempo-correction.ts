/**
 * Tempo corrections a user makes to a track's beats, applied to its MusicAnalysis without
 * analysing the audio again (pure functions; the plan then cuts on the corrected beats):
 *
 * - `halve`: half the tempo. Every other beat is dropped, keeping the beats the downbeats sit on.
 * - `double`: twice the tempo. A beat is inserted halfway between each pair of beats (and half a
 *   beat before the first and after the last, when still inside the track).
 * - `shift`: half a beat later. Every beat moves to the middle of its interval (the grid at the
 *   off-beat: the tracker locked onto the hi-hats or an off-beat bass); the downbeats move with it.
 * - `tap`: the tempo the user tapped along with the music (tap times in seconds of the track).
 *   Period and phase are fitted to the taps by least squares over their beat numbers (a missed
 *   tap counts as one beat skipped). When the tapped tempo is a simple ratio (1, 2, 1/2, 3/2,
 *   2/3, 3, 1/3, 4, 1/4) of the tracked one, the tracked beats are subdivided and/or thinned to
 *   that tempo and the phase nearest the taps is taken: the grid stays on the onsets the tracker
 *   found and follows its local tempo. Otherwise a steady grid at the tapped period and phase
 *   covers the whole track.
 *
 * Bars are recomputed with the analysis' meter (`beatsPerBar`, 4 when not known), the first
 * downbeat kept where it was (or as near as the new beats allow).
 */
import { TAP_LIMITS } from '@reelsmith/proto';
import type { MusicAnalysis } from './beat-tracker.js';
import { meanPeriod } from './numeric.js';

export type TempoCorrection = { kind: 'halve' } | { kind: 'double' } | { kind: 'shift' } | { kind: 'tap'; taps: number[] };

/** At most this many corrections are kept for a track (older ones beyond it make no sense). */
export const MAX_CORRECTIONS = 8;

const round6 = (x: number) => Math.round(x * 1e6) / 1e6;
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2) : 0;
};

/** Why a correction cannot be applied, in words for the user; null when it can. */
export function correctionProblem(c: TempoCorrection): string | null {
  if (c.kind !== 'tap') return null;
  const { taps } = c;
  if (taps.length < TAP_LIMITS.minTaps) return `Tap at least ${TAP_LIMITS.minTaps} times along with the music.`;
  if (taps.length > TAP_LIMITS.maxTaps) return `At most ${TAP_LIMITS.maxTaps} taps are used.`;
  if (taps.some((t) => !Number.isFinite(t) || t < 0)) return 'Tap times must be seconds of the track (0 or more).';
  if (taps.some((t, i) => i > 0 && t <= taps[i - 1]!)) return 'Tap times must increase.';
  const fit = fitTaps(taps);
  const bpm = 60 / fit.period;
  if (!(bpm >= TAP_LIMITS.minBpm && bpm <= TAP_LIMITS.maxBpm))
    return `The taps give ${Math.round(bpm)} BPM; tap along with the beat (${TAP_LIMITS.minBpm}-${TAP_LIMITS.maxBpm} BPM).`;
  return null;
}

/**
 * Period and phase from tap times: the median interval gives each tap its beat number (so a
 * missed tap is one beat skipped, not a slower tempo), then least squares of time on beat number.
 */
export function fitTaps(taps: number[]): { period: number; phase: number } {
  const gaps = taps.slice(1).map((t, i) => t - taps[i]!);
  const p0 = median(gaps);
  if (!(p0 > 0)) return { period: Infinity, phase: taps[0] ?? 0 };
  const k = taps.map((t) => Math.round((t - taps[0]!) / p0));
  const n = taps.length;
  let sx = 0,
    sy = 0,
    sxx = 0,
    sxy = 0;
  taps.forEach((t, i) => {
    sx += k[i]!;
    sy += t;
    sxx += k[i]! * k[i]!;
    sxy += k[i]! * t;
  });
  const den = n * sxx - sx * sx;
  const period = den > 0 ? (n * sxy - sx * sy) / den : p0;
  const phase = (sy - period * sx) / n;
  return { period, phase };
}

/** Tempo (BPM) the taps give, as the user sees it while tapping (0 before two taps). */
export function tappedBpm(taps: number[]): number {
  if (taps.length < 2) return 0;
  const { period } = fitTaps(taps);
  return period > 0 && Number.isFinite(period) ? 60 / period : 0;
}

/** Index of the beat nearest `t`. */
function nearest(beats: number[], t: number): number {
  let best = 0;
  beats.forEach((b, i) => {
    if (Math.abs(b - t) < Math.abs(beats[best]! - t)) best = i;
  });
  return best;
}

/**
 * The analysis with new beats: tempo from them, bars every `beatsPerBar` from the beat nearest
 * `firstBar`. The tracked beats' strength goes: the user's grid is sure at every beat.
 */
function withBeats(a: MusicAnalysis, rawBeats: number[], firstBar: number | undefined): MusicAnalysis {
  const beats = rawBeats.map(round6).filter((b) => b >= 0 && b < a.durationSec);
  const perBar = (a as { beatsPerBar?: number }).beatsPerBar ?? 4;
  const period = meanPeriod(beats, a.beatPeriodSec);
  let bars: number[] = [];
  if (beats.length) {
    const down = firstBar === undefined ? 0 : nearest(beats, firstBar) % perBar;
    bars = beats.filter((_, i) => i % perBar === down);
  }
  const { beatStrength: _tracked, ...rest } = a;
  return {
    ...rest,
    beats,
    bars,
    beatPeriodSec: beats.length >= 2 ? period : a.beatPeriodSec,
    bpm: beats.length >= 2 ? Math.round((60 / period) * 1000) / 1000 : a.bpm,
  };
}

/** Splits every interval of `beats` into `m` equal parts (and extends by one interval at both ends). */
function subdivide(beats: number[], m: number, duration: number): number[] {
  if (beats.length < 2) return beats;
  const ext = [2 * beats[0]! - beats[1]!, ...beats, 2 * beats.at(-1)! - beats.at(-2)!];
  const out: number[] = [];
  for (let i = 0; i + 1 < ext.length; i++) for (let j = 0; j < m; j++) out.push(ext[i]! + ((ext[i + 1]! - ext[i]!) * j) / m);
  out.push(ext.at(-1)!);
  return out.filter((b) => b >= -1e-9 && b < duration);
}

/** Ratios of tapped to tracked tempo that snap onto the tracked grid: [n, m] = every n-th of m parts per beat. */
const SNAP_RATIOS: [number, number][] = [
  [1, 1],
  [2, 1],
  [1, 2],
  [3, 2],
  [2, 3],
  [3, 1],
  [1, 3],
  [4, 1],
  [1, 4],
];
/** How far (relatively) the tapped tempo may be from a ratio of the tracked one and still snap. */
const SNAP_TOLERANCE = 0.08;

function applyTap(a: MusicAnalysis, taps: number[]): MusicAnalysis {
  const { period, phase } = fitTaps(taps);
  const firstBar = a.bars[0];
  if (a.beats.length >= 4) {
    const tracked = median(a.beats.slice(1).map((b, i) => b - a.beats[i]!));
    const ratio = period / tracked;
    const snap = SNAP_RATIOS.find(([n, m]) => Math.abs(ratio / (n / m) - 1) <= SNAP_TOLERANCE);
    if (snap) {
      // Halves of the fine grid too, so taps on the off-beat get the off-beat.
      const [n, m] = [snap[0] * 2, snap[1] * 2];
      const fine = subdivide(a.beats, m, a.durationSec);
      // The phase (which of every n fine beats) that lies nearest the taps.
      let best = 0,
        bestErr = Infinity;
      for (let j = 0; j < n; j++) {
        const grid = fine.filter((_, i) => i % n === j);
        if (!grid.length) continue;
        const err = taps.reduce((s, t) => s + Math.abs(grid[nearest(grid, t)]! - t), 0);
        if (err < bestErr - 1e-9) {
          bestErr = err;
          best = j;
        }
      }
      // Within half a beat of the beats found: they begin where the music begins and end where it
      // stops, so tapping along adds no beat in a silent intro or in the reverb after the last note.
      const lo = a.beats[0]! - tracked / 2 - 1e-6;
      const hi = a.beats.at(-1)! + tracked / 2 + 1e-6;
      const grid = fine.filter((b, i) => i % n === best && b >= lo && b <= hi);
      // Bars: the tapped beat nearest the old first downbeat, unless the taps began elsewhere.
      return withBeats(a, grid, firstBar ?? taps[0]);
    }
  }
  // A steady grid at the tapped period through the tapped phase, over the whole track.
  const beats: number[] = [];
  const k0 = Math.ceil((0 - phase) / period - 1e-9);
  for (let k = k0; phase + k * period < a.durationSec; k++) beats.push(phase + k * period);
  return withBeats(a, beats, taps[0]);
}

/** One correction applied to an analysis (a new object; the input is not changed). */
export function applyTempoCorrection(a: MusicAnalysis, c: TempoCorrection): MusicAnalysis {
  const problem = correctionProblem(c);
  if (problem) throw new Error(problem);
  const beats = a.beats;
  const firstBar = a.bars[0];
  if (c.kind === 'tap') return applyTap(a, c.taps);
  if (beats.length < 2) return a;
  switch (c.kind) {
    case 'halve': {
      const keep = firstBar === undefined ? 0 : nearest(beats, firstBar) % 2;
      return withBeats(
        a,
        beats.filter((_, i) => i % 2 === keep),
        firstBar,
      );
    }
    case 'double':
      return withBeats(a, subdivide(beats, 2, a.durationSec), firstBar);
    case 'shift': {
      const ext = [...beats, 2 * beats.at(-1)! - beats.at(-2)!];
      const mids = ext.slice(1).map((b, i) => (ext[i]! + b) / 2);
      const before = beats[0]! - (beats[1]! - beats[0]!) / 2;
      const shifted = before >= 0 ? [before, ...mids] : mids;
      const barShifted =
        firstBar === undefined
          ? undefined
          : (() => {
              const i = nearest(beats, firstBar);
              return (ext[i]! + ext[i + 1]!) / 2;
            })();
      return withBeats(a, shifted, barShifted);
    }
  }
}

/**
 * The corrections worth keeping, in order: a tap replaces everything before it; a halve then a
 * double (or the reverse) cancel, as do two shifts (the grid is back on the beat); at most
 * MAX_CORRECTIONS, the latest.
 */
export function normaliseCorrections(cs: TempoCorrection[]): TempoCorrection[] {
  const out: TempoCorrection[] = [];
  for (const c of cs) {
    if (c.kind === 'tap') {
      out.length = 0;
      out.push({ kind: 'tap', taps: [...c.taps] });
      continue;
    }
    const last = out.at(-1)?.kind;
    if ((c.kind === 'halve' && last === 'double') || (c.kind === 'double' && last === 'halve') || (c.kind === 'shift' && last === 'shift'))
      out.pop();
    else out.push(c);
  }
  return out.slice(-MAX_CORRECTIONS);
}

/** Every correction applied in order (after normaliseCorrections). */
export function applyTempoCorrections(a: MusicAnalysis, cs: TempoCorrection[]): MusicAnalysis {
  return normaliseCorrections(cs).reduce(applyTempoCorrection, a);
}
