/**
 * The learned beat tracking: the model (beat-model.ts) gives beat and downbeat activations, the
 * bar-pointer model (beat-dbn.ts) decodes beats, downbeats and the meter with the tempo prior
 * (beat-tempo-prior.ts) weighing the metrical level, and the confidence says
 * how far the grid is to be trusted. Below LOW_BEAT_CONFIDENCE a plan cuts on the activation's
 * strong peaks a beat agrees with (`onsets`), as the rule-based tracker (beat-tracker.ts) does on
 * its onset envelope.
 * It is the product's path (analyseMusic, since analysis version 8); the rule-based tracker is the beat
 * bench's comparison column (docs/beat-bench.md).
 */
import { EDGE_BEAT, decodeBeats, regridWeakBeats, type DecodedBeats, type TempoChangeCosts } from './beat-dbn.js';
import { beatActivations, type Activations } from './beat-model.js';
import { LOW_BEAT_CONFIDENCE, onsetsOnPulse, strongOnsets } from './beat-onsets.js';
import { tempoLogPrior, tempoPriorInput, tempoPriorModel, tempoProbabilities } from './beat-tempo-prior.js';
import { MUSIC_ANALYSIS_VERSION, WEAK_BEAT, hopIrregularity, noBeats, type MusicAnalysis } from './beat-tracker.js';
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
 * The weight of the tempo prior's log (beat-tempo-prior.ts) at each decoded beat. Chosen on the
 * 280 validation songs (seeds 500,000-500,279) with the spread PRIOR_SPREAD: 267 at F and CMLt
 * >= 0.9 at weights 0.5-4 (262 without the prior), 258-259 at the beat bench's target (255); 1
 * is the middle of that range.
 */
export const TEMPO_PRIOR_WEIGHT = 1;

/** The decoding's tempo prior for these activations, or undefined (no weight, no rise curves, no model). */
export function tempoPriorOf(
  act: Activations,
  weight = TEMPO_PRIOR_WEIGHT,
  model = tempoPriorModel(),
  spread?: number,
): Float64Array | undefined {
  if (!(weight > 0) || !act.rises || !model) return undefined;
  const input = tempoPriorInput({ beat: act.beat, downbeat: act.downbeat, rises: act.rises, fps: act.fps });
  return tempoLogPrior(tempoProbabilities(model, input), weight, spread);
}

/**
 * The decoding (beat-dbn.ts) of the activations with `tempoPrior` (null: none); where the grid is trusted (a
 * confidence of at least LOW_BEAT_CONFIDENCE) the beats weaker than `weakBelow` are placed on the
 * strong beats' grid (regridWeakBeats). A song under that bound keeps its decoded beats: rubato's
 * weak beats are where the playing puts them, not on a grid. `obsLambda` is the decoding's
 * observation lambda (beat-dbn.ts's OBS_LAMBDA unless given: validate.mjs --lambda= tries others),
 * `costs` its tempo-change costs (beat-dbn.ts's TEMPO_CHANGE and ONE_FRAME_CHANGE unless given).
 */
export function decodeActivations(
  act: Activations,
  tempoPrior: ArrayLike<number> | null = tempoPriorOf(act) ?? null,
  weakBelow = WEAK_BEAT,
  edge = EDGE_BEAT,
  obsLambda?: number,
  costs: TempoChangeCosts = {},
): DecodedBeats {
  const dec = decodeBeats(act.beat, act.downbeat, act.fps, edge, obsLambda, tempoPrior ?? undefined, costs);
  return beatConfidence(dec.strength, dec.beats) >= LOW_BEAT_CONFIDENCE ? regridWeakBeats(dec, weakBelow) : dec;
}

/**
 * A MusicAnalysis from the model's activations. The beats, the meter and the downbeats are the
 * decoding's (beat-dbn.ts), with `tempoPrior` (tempoPriorOf by default: none when the activations
 * carry no rise curves; null: none). Below LOW_BEAT_CONFIDENCE the plan cuts on `onsets`: the strong peaks
 * of the model's beat activation (`strongOnsets`, the rule the rule-based tracker applies to its
 * onset envelope) that a decoded beat agrees with (`onsetsOnPulse`), each at least CONFIDENCE_FLOOR
 * (a peak the model gives a 1-in-10 chance of a beat is no note to cut on: a steady tone's peaks
 * are 0.05-0.07). Fewer than four beats of at least that activation is no pulse (`noBeats`). The model places a bowed or
 * swelling note's beat where the note begins, where the onset envelope peaks late in the swell: on
 * the validation seeds' rubato songs (500,000-500,719) 34 of 48 plans met the rubato target this
 * way, 20 with the envelope's onsets (docs/beat-bench.md). `obsLambda` and `costs`: as decodeActivations.
 */
export function analysisFromActivations(
  act: Activations,
  durationSec: number,
  tempoPrior: ArrayLike<number> | null = tempoPriorOf(act) ?? null,
  weakBelow = WEAK_BEAT,
  edge = EDGE_BEAT,
  obsLambda?: number,
  costs: TempoChangeCosts = {},
): MusicAnalysis {
  const dec = decodeActivations(act, tempoPrior, weakBelow, edge, obsLambda, costs);
  const keep = dec.beats.map((b, i) => [b, i] as const).filter(([b]) => b >= 0 && b < durationSec);
  // Fewer than four beats the model gives at least a 1-in-10 chance (as few as a plan needs to cut on
  // beats at all) is no pulse: a steady tone with a click at each end, a few lone hits. No grid, no
  // onsets, as the rule-based tracker answers a track without a pulse. (The decoding keeps weak
  // beats between strong ones, so a count of the beats alone would not do.)
  if (keep.filter(([, i]) => dec.strength[i]! >= CONFIDENCE_FLOOR).length < MIN_PULSE_BEATS) return noBeats(durationSec);
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
    onsets:
      confidence < LOW_BEAT_CONFIDENCE
        ? onsetsOnPulse(
            strongOnsets(act.beat, 1 / act.fps, 0, CONFIDENCE_FLOOR).filter((t) => t < durationSec),
            beats,
            confidence,
          )
        : [],
    confidence: Math.round(confidence * 1000) / 1000,
    beatStrength: keep.map(([, i]) => Math.round(dec.strength[i]! * 1000) / 1000),
  };
}

/** Beats of at least CONFIDENCE_FLOOR a song needs to have a pulse (plan.ts cuts on beats from four). */
const MIN_PULSE_BEATS = 4;

/**
 * Beats, bars, meter and confidence of mono samples at 22,050 Hz (beat-features.ts's rate), by the
 * learned model. (The rule-based tracker does not run beside it: a tempo guard that returned the
 * rule-based analysis where the two disagreed by 3:2 put fewer validation songs at target, 50 of
 * 80 against 58 without it; tools/beat-model/tune.mjs.)
 */
export async function trackBeatsLearned(samples: Float32Array, durationSec: number): Promise<MusicAnalysis> {
  return analysisFromActivations(await beatActivations(samples), durationSec);
}
