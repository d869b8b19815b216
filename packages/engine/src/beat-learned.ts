/**
 * The learned beat tracking: the model (beat-model.ts) gives beat and downbeat activations, the
 * bar-pointer model (beat-dbn.ts) decodes beats, downbeats and the meter, and the confidence says
 * how far the grid is to be trusted. Below LOW_BEAT_CONFIDENCE a plan cuts on the strong onsets a
 * beat agrees with (`onsets`, beat-onsets.ts), as with the rule-based tracker (beat-tracker.ts).
 * analyseMusic runs it when asked (`tracker: 'model'`, the beat bench); the product's path stays
 * on the rule-based tracker until the model meets the beat bench's targets (docs/beat-bench.md).
 */
import { decodeBeats } from './beat-dbn.js';
import { onsetEnvelope, type Envelope } from './beat-envelopes.js';
import { beatActivations, type Activations } from './beat-model.js';
import { LOW_BEAT_CONFIDENCE, onsetsOnPulse, strongOnsets, swellStarts } from './beat-onsets.js';
import { MUSIC_ANALYSIS_VERSION, hopIrregularity, type MusicAnalysis } from './beat-tracker.js';
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
 * A MusicAnalysis from the model's activations (and the samples, for the strong onsets). The beats,
 * the meter and the downbeats are the decoding's (beat-dbn.ts). The onset envelope (`env`, computed
 * here when not given) is read only for the strong onsets, which plans cut on only below
 * LOW_BEAT_CONFIDENCE; elsewhere `onsets` is empty and the envelope is not computed.
 */
export function analysisFromActivations(
  act: Activations,
  samples: Float32Array,
  sampleRate: number,
  durationSec: number,
  env?: Envelope,
): MusicAnalysis {
  const dec = decodeBeats(act.beat, act.downbeat, act.fps);
  const keep = dec.beats.map((b, i) => [b, i] as const).filter(([b]) => b >= 0 && b < durationSec);
  const beats = keep.map(([b]) => b);
  const bars = keep.filter(([, i]) => dec.positions[i] === 0).map(([b]) => b);
  const confidence = beatConfidence(
    keep.map(([, i]) => dec.strength[i]!),
    beats,
  );
  const period = meanPeriod(beats, NaN);
  return {
    version: MUSIC_ANALYSIS_VERSION,
    durationSec,
    bpm: Number.isFinite(period) ? Math.round((60 / period) * 1000) / 1000 : 0,
    beatPeriodSec: Number.isFinite(period) ? period : 0.5,
    beats,
    bars,
    beatsPerBar: dec.beatsPerBar,
    onsets: confidence < LOW_BEAT_CONFIDENCE ? strongOnsetsOf(env ?? onsetEnvelope(samples, sampleRate), beats, confidence) : [],
    confidence: Math.round(confidence * 1000) / 1000,
  };
}

/** The strong onsets a plan cuts on when the grid is a guess (as the rule-based tracker finds them). */
function strongOnsetsOf(env: Envelope, beats: number[], confidence: number): number[] {
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
  return nb?.high ? swellStarts(pulse, { kick: nb.kick, mid: nb.mid, high: nb.high }, env.hopSec) : pulse;
}

/**
 * Beats, bars, meter and confidence of mono samples at 22,050 Hz, by the learned model. (The
 * rule-based tracker does not run beside it: a tempo guard that returned the rule-based analysis
 * where the two disagreed by 3:2 put fewer validation songs at target, 50 of 80 against 58 without
 * it; tools/beat-model/tune.mjs.)
 */
export async function trackBeatsLearned(samples: Float32Array, sampleRate: number, durationSec: number): Promise<MusicAnalysis> {
  return analysisFromActivations(await beatActivations(samples), samples, sampleRate, durationSec);
}
