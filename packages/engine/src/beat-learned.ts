/**
 * The product's beat tracking: the learned model (beat-model.ts) gives beat and downbeat
 * activations, the bar-pointer model (beat-dbn.ts) decodes beats, downbeats and the meter, and
 * the confidence says how far the grid is to be trusted. Below LOW_BEAT_CONFIDENCE a plan cuts on
 * the strong onsets a beat agrees with (`onsets`, beat-onsets.ts), as it did with the rule-based
 * tracker (beat-tracker.ts), which is kept for the bench's comparison column only.
 */
import { decodeBeats } from './beat-dbn.js';
import { onsetEnvelope } from './beat-envelopes.js';
import { beatActivations, type Activations } from './beat-model.js';
import { peakNear } from './beat-hypotheses.js';
import { chooseMeter, relativeToMedian } from './beat-meter.js';
import { onsetsOnPulse, strongOnsets, swellStarts } from './beat-onsets.js';
import { MUSIC_ANALYSIS_VERSION, hopIrregularity, trackBeats, type MusicAnalysis } from './beat-tracker.js';
import { meanPeriod } from './numeric.js';

/**
 * The beats' median activation at which that factor of the confidence is 0 and 1, and the
 * irregularity of the beats (`hopIrregularity`: the median change of the tempo over four beats
 * from one four beats to the next) up to which the grid counts as steady and at which it counts
 * as rubato (steadiness 0). Set on the validation seeds of tools/beat-model, never on test songs:
 * there every song without rubato stayed at or under 2.4 % (tempo ramps and steps the highest),
 * and five of six rubato songs were at 3.3-6.3 %.
 */
export const CONFIDENCE_FLOOR = 0.1;
export const CONFIDENCE_FULL = 0.4;
export const STEADY_UP_TO = 0.025;
export const RUBATO_AT = 0.035;

/**
 * Confidence 0..1: the beats' median activation, scaled between CONFIDENCE_FLOOR and
 * CONFIDENCE_FULL, times the steadiness of the beats (1 up to STEADY_UP_TO, 0 at RUBATO_AT).
 */
export function beatConfidence(strength: number[], beats?: number[]): number {
  if (strength.length < 8) return 0;
  const s = [...strength].sort((a, b) => a - b);
  const med = s[s.length >> 1]!;
  const act = Math.max(0, Math.min(1, (med - CONFIDENCE_FLOOR) / (CONFIDENCE_FULL - CONFIDENCE_FLOOR)));
  const irr = beats ? hopIrregularity(beats) : 0;
  const steady = Math.max(0, Math.min(1, (RUBATO_AT - irr) / (RUBATO_AT - STEADY_UP_TO)));
  return act * steady;
}

/**
 * Below this mean downbeat activation at every position of the bar (the peak within 20 ms of each
 * beat), the model has no clear say on where the bar starts: the meter and the downbeats then
 * come from the beats' accents, as the rule-based tracker found them (loudness just after each
 * beat plus its bass onset, folded over 3 and 4 beats: beat-meter.ts). Set at 0.25 so that the
 * synthesised songs of the engine's tests (plain tones, far from the training sound fonts: the
 * model put their bar lines on the third beat, at 0.24) fall back; on the validation songs 17 of
 * 80 fall under it, most of them with wrong downbeats or beats already. Not measured on the
 * bench's sets: the last bench run was made before this fallback.
 */
export const DOWNBEAT_UNSURE = 0.25;

/** The mean downbeat activation at each position of the bar (beats within 20 ms of a frame's peak). */
function downbeatMeans(act: Activations, beats: number[], positions: number[], meter: number): number[] {
  const sum = new Array<number>(meter).fill(0);
  const n = new Array<number>(meter).fill(0);
  beats.forEach((b, i) => {
    const k = Math.round(b * act.fps);
    sum[positions[i]!]! += peakNear(act.downbeat, k, 2);
    n[positions[i]!]!++;
  });
  return sum.map((x, i) => x / Math.max(1, n[i]!));
}

/** A MusicAnalysis from the model's activations (and the samples, for the strong onsets). */
export function analysisFromActivations(
  act: Activations,
  samples: Float32Array,
  sampleRate: number,
  durationSec: number,
  env = onsetEnvelope(samples, sampleRate),
): MusicAnalysis {
  const dec = decodeBeats(act.beat, act.downbeat, act.fps);
  const keep = dec.beats.map((b, i) => [b, i] as const).filter(([b]) => b >= 0 && b < durationSec);
  const beats = keep.map(([b]) => b);
  const positions = keep.map(([, i]) => dec.positions[i]!);
  let bars = beats.filter((_, i) => positions[i] === 0);
  let beatsPerBar = dec.beatsPerBar;
  const confidence = beatConfidence(
    keep.map(([, i]) => dec.strength[i]!),
    beats,
  );
  if (beats.length >= 12 && Math.max(...downbeatMeans(act, beats, positions, beatsPerBar)) < DOWNBEAT_UNSURE) {
    const loud = relativeToMedian(beats.map((b) => rmsAfter(samples, sampleRate, b, 0.1)));
    const kick = env.bands?.kick;
    const bass = kick ? relativeToMedian(beats.map((b) => peakNear(kick, Math.round(b / env.hopSec) + 1))) : undefined;
    const meter = chooseMeter(loud.map((a, i) => a + (bass?.[i] ?? 0)));
    beatsPerBar = meter.beatsPerBar;
    bars = beats.filter((_, i) => i % meter.beatsPerBar === meter.phase);
  }
  // The envelope in units of its deviation, as the rule-based tracker scales it.
  const v = env.values;
  let mean = 0;
  for (const x of v) mean += x;
  mean /= Math.max(1, v.length);
  let sd = 0;
  for (const x of v) sd += (x - mean) ** 2;
  sd = Math.sqrt(sd / Math.max(1, v.length)) || 1;
  const o = Float64Array.from(v, (x) => x / sd);
  const pulse = onsetsOnPulse(strongOnsets(o, env.hopSec), beats, confidence);
  const nb = env.bands;
  const onsets = nb?.high ? swellStarts(pulse, { kick: nb.kick, mid: nb.mid, high: nb.high }, env.hopSec) : pulse;
  const period = meanPeriod(beats, NaN);
  return {
    version: MUSIC_ANALYSIS_VERSION,
    durationSec,
    bpm: Number.isFinite(period) ? Math.round((60 / period) * 1000) / 1000 : 0,
    beatPeriodSec: Number.isFinite(period) ? period : 0.5,
    beats,
    bars,
    beatsPerBar,
    onsets,
    confidence: Math.round(confidence * 1000) / 1000,
  };
}

/** Root mean square of the samples in [t, t + window). */
function rmsAfter(samples: Float32Array, sampleRate: number, t: number, window: number): number {
  const a = Math.max(0, Math.floor(t * sampleRate));
  const b = Math.min(samples.length, a + Math.floor(window * sampleRate));
  let e = 0;
  for (let i = a; i < b; i++) e += samples[i]! * samples[i]!;
  return b > a ? Math.sqrt(e / (b - a)) : 0;
}

/**
 * Tempo ratios (model over rule-based tracker) that count as agreeing: the same beat, or one of
 * them at twice or half the other's tempo (a metrical level, which the model is trusted on).
 */
const AGREEING_RATIOS = [1, 2, 0.5];

/**
 * Beats, bars, meter and confidence of mono samples at 22,050 Hz, by the learned model. A guard:
 * the rule-based tracker (beat-tracker.ts) runs beside it, and where the two tempos are neither
 * equal nor an octave apart (within 4 %: a 3:2 disagreement, as on a bare click track of
 * kicks with hi-hats between them, which the model follows at 80 BPM for 120), the rule-based
 * tracker's analysis is returned. Measured in the bench: this guard was added after its last
 * run, see docs/beat-bench.md.
 */
export async function trackBeatsLearned(samples: Float32Array, sampleRate: number, durationSec: number): Promise<MusicAnalysis> {
  const env = onsetEnvelope(samples, sampleRate);
  const model = analysisFromActivations(await beatActivations(samples), samples, sampleRate, durationSec, env);
  const rules = trackBeats(env, durationSec, {
    accentAt: (t) => rmsAfter(samples, sampleRate, t, 0.1),
  });
  if (!(model.bpm > 0) || !(rules.bpm > 0)) return model;
  const ratio = model.bpm / rules.bpm;
  return AGREEING_RATIOS.some((r) => Math.abs(ratio / r - 1) <= 0.04) ? model : rules;
}
