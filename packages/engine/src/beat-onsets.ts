/**
 * Beat tracking: where notes begin, and the onsets a plan cuts on when the beat grid is a guess
 * (the design is in beat-tracker.ts, steps 3, 3d and 5).
 */
import { BAND_SMOOTH_HOPS } from './beat-envelopes.js';
import { peakIn } from './beat-peaks.js';
import { bracket, upperMedian } from './numeric.js';

/** Below this confidence the beat grid is a guess: plans cut on `onsets` instead. */
export const LOW_BEAT_CONFIDENCE = 0.5;

/**
 * The onset envelope marks a note a little after it starts (band energy summed over 23 ms, and
 * each hop stamped at its start): measured on the sampled-instrument corpus the tracked beats sat
 * 6-20 ms late (and a plan's cut, rounded to a frame, adds up to 17 ms either way), so each is
 * moved this much earlier.
 */
export const ONSET_LATENCY_SEC = 0.015;

/** A note starts in the first hop whose band onset reaches this share of the strongest one near the envelope's peak. */
export const NOTE_START_SHARE = 0.3;

/**
 * Where the note under an envelope peak begins: the envelope sums band energies over
 * BAND_SMOOTH_HOPS hops on a log1p scale, so for a note that builds up (a strum, a soft piano
 * chord, a bowed or blown note) it peaks up to that many hops after the note's first rise. Within
 * that many hops before the peak, the strongest onset of the kick, mid and high bands (each
 * relative to its local level) is found, and the first hop whose band onset reaches
 * NOTE_START_SHARE of it is where the note begins (a hop is stamped at its start).
 */
export function noteStart(
  bands: { kick: Float32Array; mid: Float32Array; high: Float32Array },
  peak: number,
  back = BAND_SMOOTH_HOPS,
): number {
  const band = (i: number) => Math.max(bands.kick[i] ?? 0, bands.mid[i] ?? 0, bands.high[i] ?? 0);
  const from = Math.max(0, peak - back);
  let strongest = peak;
  for (let i = from; i <= peak; i++) if (band(i) > band(strongest)) strongest = i;
  for (let i = from; i < strongest; i++) if (band(i) >= NOTE_START_SHARE * band(strongest)) return i;
  return strongest;
}

/** A beat at either end counts as outside the music when its band onsets are under this share of a typical beat's. */
export const OUTSIDE_MUSIC_SHARE = 0.25;

/**
 * Beats before the music starts and after it has stopped (silence, a reverb tail, noise at either
 * end of the file) are dropped: leading and trailing beats where the strongest onset of the kick,
 * mid and high bands is under `share` of the median a beat carries, both divided by the bands'
 * local level and not (beat-envelopes.ts: the local level lifts the noise of a tail towards a
 * note's size; a fade's soft last notes keep their log-energy rise either way). At least two
 * beats stay.
 */
export function trimOutsideMusic(
  beats: number[],
  bands: { kick: Float32Array; mid: Float32Array; high?: Float32Array; sounding?: Float32Array },
  hopSec: number,
  share = OUTSIDE_MUSIC_SHARE,
): void {
  // A beat sits ONSET_LATENCY_SEC before its onset peak (or at 0, for a note at the very start):
  // its onset is looked for from two hops before the beat to two hops after that peak.
  const near = (v: Float32Array, b: number) => peakIn(v, Math.round(b / hopSec) - 2, Math.round((b + ONSET_LATENCY_SEC) / hopSec) + 2);
  const local = beats.map((b) => Math.max(near(bands.kick, b), near(bands.mid, b), bands.high ? near(bands.high, b) : 0));
  const raw = bands.sounding ? beats.map((b) => near(bands.sounding!, b)) : local;
  const [ml, mr] = [upperMedian(local), upperMedian(raw)];
  const silent = (i: number) => local[i]! < share * ml || raw[i]! < share * mr;
  let first = 0;
  let last = beats.length - 1;
  while (last > 1 && silent(last)) last--;
  while (first < last - 1 && silent(first)) first++;
  beats.splice(last + 1);
  beats.splice(0, first);
}

/**
 * Times (s) of the strongest third of the envelope's peaks that stand out within +-150 ms, each
 * `latencySec` before its peak (the onset envelope's ONSET_LATENCY_SEC unless given; 0 for the
 * beat model's activation, which peaks on the beat), and none under `floor` (the third is of all
 * the peaks).
 */
export function strongOnsets(o: ArrayLike<number>, hopSec: number, latencySec = ONSET_LATENCY_SEC, floor = 0): number[] {
  const r = Math.round(0.15 / hopSec);
  const peaks: number[] = [];
  for (let i = 1; i < o.length - 1; i++) {
    const v = o[i]!;
    if (v <= 0) continue;
    let top = true;
    for (let j = Math.max(0, i - r); j <= Math.min(o.length - 1, i + r) && top; j++) if (o[j]! > v || (o[j] === v && j < i)) top = false;
    if (top) peaks.push(i);
  }
  const cut = peaks.map((i) => o[i]!).sort((a, b) => b - a)[Math.floor(peaks.length / 3)] ?? 0;
  return peaks.filter((i) => o[i]! >= Math.max(cut, floor)).map((i) => Math.round(Math.max(0, i * hopSec - latencySec) * 1e6) / 1e6);
}

/**
 * How far before its envelope peak a strong onset's note may begin (17 hops, 99 ms): bowed strings,
 * a horn or a pad swell in over 50-130 ms, and the envelope's peak comes late in that swell.
 */
export const SWELL_HOPS = 17;

/**
 * Strong onsets moved to where their notes begin: `noteStart` looking back SWELL_HOPS hops (the
 * first hop whose band onset reaches NOTE_START_SHARE of the strongest there). A drum's onset has
 * nothing before its peak and stays. The beats look back only four hops (`noteStart`'s default): a
 * hi-hat a sixteenth before a kick must not pull the beat early, but the plan cuts on these onsets
 * only where the grid is a guess (solo and orchestral rubato), where notes swell rather than strike.
 * (SWELL_HOPS, like NOTE_START_SHARE, PARITY_RATIO and ON_PULSE_SEC, was set on one or two songs of
 * the bench corpus: the piano ballad and the orchestral piece.)
 */
export function swellStarts(
  onsets: number[],
  bands: { kick: Float32Array; mid: Float32Array; high: Float32Array },
  hopSec: number,
): number[] {
  return onsets.map((t) => {
    const peak = Math.round((t + ONSET_LATENCY_SEC) / hopSec);
    return Math.round(Math.max(0, Math.min(t, noteStart(bands, peak, SWELL_HOPS) * hopSec)) * 1e6) / 1e6;
  });
}

/** A strong onset within this of a tracked beat is on the pulse (`onsetsOnPulse`). */
export const ON_PULSE_SEC = 0.03;

/**
 * The onsets a plan cuts on when the grid is a guess (confidence under LOW_BEAT_CONFIDENCE): the
 * strong onsets that a tracked beat agrees with (within ON_PULSE_SEC), where there are at least
 * four of them and a quarter of all the strong onsets; otherwise all of them. Where the grid is
 * trusted, all of them (the plan does not use them then). A solo player's melody note on the "and"
 * is as strong as a beat's chord, but the tracked pulse is not there.
 */
export function onsetsOnPulse(onsets: number[], beats: number[], confidence: number): number[] {
  if (confidence >= LOW_BEAT_CONFIDENCE || beats.length === 0) return onsets;
  const on = onsets.filter((t) => {
    const [lo, hi] = bracket(beats, t);
    return Math.min(Math.abs(beats[lo]! - t), Math.abs(beats[hi]! - t)) <= ON_PULSE_SEC;
  });
  return on.length >= 4 && on.length * 4 >= onsets.length ? on : onsets;
}
