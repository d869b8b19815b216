/**
 * Beat tracking: the steps of `trackBeats` (beat-tracker.ts, where the design is), in the order it
 * runs them, over the step files: the tempo curve's DP passes (beat-dp.ts), the level and phase
 * hypotheses (beat-hypotheses.ts, beat-harmony.ts) and where notes begin (beat-onsets.ts).
 */
import type { Envelope } from './beat-envelopes.js';
import { dpBeats, evenOutUnsupported, periodFromBeats, smoothSteadyBeats } from './beat-dp.js';
import { harmonyPhase } from './beat-harmony.js';
import {
  chooseLevel,
  denseHatsLevel,
  drummersLevel,
  fillSkippedBeats,
  LEVEL_FACTORS,
  LEVEL_SWITCH_MARGIN,
  lopsided,
  onBeatPhase,
  phaseEvidence,
  presencePhase,
  scoreLevel,
  STEADY_LEVEL_FACTORS,
  steadyLevelScore,
  strongerParity,
  type LevelArbiter,
  type LevelHypothesis,
} from './beat-hypotheses.js';
import { noteStart, ONSET_LATENCY_SEC, trimOutsideMusic } from './beat-onsets.js';
import { BAND_SEC, periodBand, PRIOR_BPM } from './beat-tempo.js';
import { parabolicPeakOffset } from './numeric.js';

/** Median change of the tempo over four beats that still counts as steady, and the change above that where confidence reaches 0. */
const IRREGULAR_OK = 0.012;
const IRREGULAR_SPAN = 0.02;

/** Irregularity above which a chain of beats counts as wavering (level hypotheses are tried). */
const WAVERING = IRREGULAR_OK + IRREGULAR_SPAN / 2;

/** The median change of the tempo over four beats from one four beats to the next (|ln ratio|). */
export function hopIrregularity(hops: number[]): number {
  const span = hops.slice(4).map((b, i) => b - hops[i]!);
  const steps = span
    .slice(4)
    .map((x, i) => Math.abs(Math.log(x / span[i]!)))
    .sort((a, b) => a - b);
  return steps.length ? steps[Math.floor(steps.length / 2)]! : 0;
}

/** The envelope as the steps read it: cut to the track's length and divided by its standard deviation. */
export interface Onsets {
  /** The envelope's values over the track. */
  values: Float32Array;
  /** The values divided by their standard deviation (Ellis): the DP's tightness means the same on every track. */
  o: Float64Array;
  /** Hops in the track. */
  n: number;
  hopSec: number;
  bands?: Envelope['bands'];
}

/** Step 1's envelope normalised; undefined when the track is too short or has no pulse at all. */
export function normalisedOnsets(env: Envelope, durationSec: number): Onsets | undefined {
  const n = Math.min(env.values.length, Math.floor(durationSec / env.hopSec));
  if (durationSec < 2 || n < 16) return undefined;
  const values = env.values.subarray(0, n);
  let mean = 0;
  for (let i = 0; i < n; i++) mean += values[i]!;
  mean /= n;
  let sd = 0;
  for (let i = 0; i < n; i++) sd += (values[i]! - mean) ** 2;
  sd = Math.sqrt(sd / n);
  // No pulse at all (silence, a steady tone): no beats.
  if (!(sd > 1e-3)) return undefined;
  const o = new Float64Array(n);
  for (let i = 0; i < n; i++) o[i] = values[i]! / sd;
  return { values, o, n, hopSec: env.hopSec, bands: env.bands };
}

/** Half the width of the DP's period band around the tempo curve, in hops. */
const halfBandHops = (hopSec: number) => Math.round(BAND_SEC / hopSec);

/**
 * Step 3 with 3b's level: a DP pass along the tempo curve; where it took every other beat of a
 * backbeat (`drummersLevel`) the halfway beats are added and the period halved there, so the second
 * pass, at the period of the tracked beats themselves, tracks the drummer's beat (also through a
 * tempo step into that region).
 */
export function followPulse(t: Onsets, curve: Float64Array): number[] {
  const halfBand = halfBandHops(t.hopSec);
  let hops = dpBeats(t.o, periodBand(curve, halfBand));
  let trackPeriod = curve;
  const doubled = t.bands ? drummersLevel(hops, t.bands, t.hopSec) : [];
  if (doubled.some(Boolean)) {
    // Each doubled interval gets its halfway beat, and half its length as the local period.
    trackPeriod = Float64Array.from(curve);
    const withHalves: number[] = [];
    hops.forEach((h, i) => {
      withHalves.push(h);
      const next = hops[i + 1];
      if (!doubled[i] || next === undefined) return;
      withHalves.push(Math.round((h + next) / 2));
      for (let p = h; p < Math.min(t.n, next); p++) trackPeriod[p] = (next - h) / 2;
    });
    hops = withHalves;
  }
  return dpBeats(t.o, periodBand(periodFromBeats(hops, t.n, trackPeriod), Math.round(halfBand / 2)));
}

/**
 * Step 3b's phase (the beats where the kicks land, skipped beats filled in), then step 3c: the
 * metrical level, questioned only where the chain wavers (`levelHypotheses`) or is steady but
 * lopsided (`steadyLevel`).
 */
export function settleLevel(t: Onsets, curve: Float64Array, pulse: number[], arbiter?: LevelArbiter): number[] {
  let hops = t.bands ? onBeatPhase(pulse, t.bands.kickEnergy) : pulse;
  hops = fillSkippedBeats(hops);
  if (t.bands && hopIrregularity(hops) > WAVERING) return levelHypotheses(t, t.bands, curve, hops, arbiter);
  if (lopsided(hops, t.o)) return steadyLevel(t, curve, hops);
  return hops;
}

/** A plain DP chain at `f` times the tempo curve. */
const levelChain = (t: Onsets, curve: Float64Array, f: number) =>
  dpBeats(
    t.o,
    periodBand(
      curve.map((p) => p * f),
      halfBandHops(t.hopSec),
    ),
  );

/** The mean tempo of a chain of hops. */
const chainBpm = (t: Onsets, h: number[]) => (h.length > 1 ? (60 * (h.length - 1)) / ((h.at(-1)! - h[0]!) * t.hopSec) : 0);

/**
 * Level hypotheses (beat-hypotheses.ts) where the rules left a wavering chain (its tempo over four
 * beats keeps changing: two metrical levels mixed, or a rubato the tracker lost): plain chains at
 * each level factor of the tempo curve, the steady ones scored by the onsets they explain and the
 * tempo prior.
 */
function levelHypotheses(
  t: Onsets,
  bands: NonNullable<Envelope['bands']>,
  curve: Float64Array,
  hops: number[],
  arbiter?: LevelArbiter,
): number[] {
  const hyps: LevelHypothesis[] = [hops, ...LEVEL_FACTORS.map((f) => levelChain(t, curve, f))].map((h, i) => {
    const evidence = phaseEvidence(h, bands, t.o);
    const bpm = chainBpm(t, h);
    return { factor: i ? LEVEL_FACTORS[i - 1]! : 1, hops: h, bpm, evidence, ...scoreLevel(evidence, bpm) };
  });
  const steady = hyps.filter((h) => hopIrregularity(h.hops) <= WAVERING);
  const best = chooseLevel(steady.length ? steady : hyps, t.hopSec, arbiter);
  return best ? best.hops : hops;
}

/**
 * A steady chain may still be steadily at the wrong level: a waltz followed at two thirds of its
 * tempo (one beat every half bar) leaves every other beat of the chain between the music's beats,
 * with next to no onset (`lopsided`). Then the other levels' chains replace it when every one of
 * their beats carries clearly more onset per minute (steadyLevelScore, LEVEL_SWITCH_MARGIN), with
 * a second pass at the period of the chain's own beats, as in `followPulse`.
 */
function steadyLevel(t: Onsets, curve: Float64Array, hops: number[]): number[] {
  let best: { hops: number[]; score: number; f?: number } = {
    hops,
    score: steadyLevelScore(hops, t.o, chainBpm(t, hops)) * LEVEL_SWITCH_MARGIN,
  };
  for (const f of STEADY_LEVEL_FACTORS) {
    const h = levelChain(t, curve, f);
    if (hopIrregularity(h) > WAVERING) continue;
    const score = steadyLevelScore(h, t.o, chainBpm(t, h));
    if (score > best.score) best = { hops: h, score, f };
  }
  const f = best.f;
  if (!f) return hops;
  return dpBeats(
    t.o,
    periodBand(
      periodFromBeats(
        best.hops,
        t.n,
        curve.map((p) => p * f),
      ),
      Math.round(halfBandHops(t.hopSec) / 2),
    ),
  );
}

/**
 * Steps 3d-3f and 3h: the phase from the presence band (claps, snares, the kick's click) unless
 * hats explain it; dense hats (sixteenths of a slow chain) leave T against 2T to the tempo prior;
 * the chords change on the bar line, and if that and the kicks land halfway the beats move there;
 * a wavering chain with every other beat weak follows a player's eighth notes: its stronger parity
 * is the pulse, at half the tempo. (Whether that half wavers less is no test: a player's rubato
 * shows more over four beats of the pulse than over four eighth notes.)
 */
export function settlePhase(t: Onsets, level: number[]): number[] {
  let hops = level;
  const bands = t.bands;
  if (bands?.presence && bands.air) hops = presencePhase(hops, bands.presence, bands.air);
  if (bands?.air && hopIrregularity(hops) <= WAVERING) hops = denseHatsLevel(hops, bands.air, t.hopSec, PRIOR_BPM);
  if (bands?.harmony) {
    const { presence, air } = bands;
    hops = harmonyPhase(hops, bands.harmony, bands.kickEnergy, presence && air ? { presence, air } : undefined);
  }
  if (hopIrregularity(hops) > WAVERING) hops = strongerParity(hops, t.o, t.hopSec);
  return hops;
}

/**
 * Step 3's placement and step 5's confidence: each beat on its onset (`onOnsets`), the grid's
 * confidence from its steadiness and the beats on an onset peak, beats without support evened out,
 * the chain extended to both ends of the track but not outside the music, and each beat moved
 * halfway towards the local pulse (beat-dp.ts: one instrument's late note does not drag the beat;
 * after the trim, which looks for each beat's onset where the beat was placed on it).
 */
export function placeBeats(t: Onsets, hops: number[], durationSec: number): { beats: number[]; confidence: number } {
  const { beats, strength } = onOnsets(t, hops);
  // A beat is supported by an onset of at least a third of a typical beat's.
  const typical = [...strength].sort((a, b) => a - b)[Math.floor(strength.length / 2)]!;
  const supported = strength.map((v) => v > Math.max(1, typical / 3));
  const onPeak = supported.filter(Boolean).length;
  // Regularity: the median change of the beat interval from one beat to the next. A steady band or
  // a ramp changes by 1-2 %; a solo player's rubato by far more, and then the grid is a guess.
  const irregular = hopIrregularity(beats);
  // Steadiness decides (a rubato grid is a guess); sparse onsets on a steady grid (a one-drop with
  // its kick on 3 only) lower it at most by half.
  const confidence = Math.max(0, Math.min(1, 1 - (irregular - IRREGULAR_OK) / IRREGULAR_SPAN)) * (0.5 + 0.5 * (onPeak / hops.length));
  evenOutUnsupported(beats, supported);
  extendToEnds(beats, durationSec);
  // ... but not outside the music (silence before the first note, a reverb tail or noise after the last).
  if (t.bands) trimOutsideMusic(beats, t.bands, t.hopSec);
  return { beats: smoothSteadyBeats(beats).map((b) => Math.round(b * 1e6) / 1e6), confidence };
}

/**
 * Each beat at the onset peak within two hops, to sub-hop precision (parabolic interpolation), 15
 * ms before it (onset latency), or earlier where the bands show the note beginning before the
 * envelope's peak (a strum, a soft chord); with the onset strength there.
 */
function onOnsets(t: Onsets, hops: number[]): { beats: number[]; strength: number[] } {
  const { o, n } = t;
  const beats: number[] = [];
  const strength: number[] = [];
  for (const h of hops) {
    let bi = h;
    for (let i = Math.max(1, h - 2); i <= Math.min(n - 2, h + 2); i++) if (o[i]! > o[bi]!) bi = i;
    const off = bi > 0 && bi < n - 1 ? parabolicPeakOffset(o[bi - 1]!, o[bi]!, o[bi + 1]!) : 0;
    strength.push(o[bi]!);
    const peakSec = (bi + off) * t.hopSec - ONSET_LATENCY_SEC;
    const bd = t.bands;
    const startSec = bd?.high ? noteStart({ kick: bd.kick, mid: bd.mid, high: bd.high }, bi) * t.hopSec : peakSec;
    beats.push(Math.max(0, Math.min(peakSec, startSec)));
  }
  return { beats, strength };
}

/**
 * The chain extended at the local period to both ends of the track (quiet intros, fade-outs), at
 * the median of the nearest intervals: one odd interval at an end does not set the pace.
 */
function extendToEnds(beats: number[], durationSec: number): void {
  const edge = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const firstP = edge(beats.slice(1, 5).map((b, i) => b - beats[i]!));
  while (beats[0]! - firstP >= 0) beats.unshift(beats[0]! - firstP);
  const lastP = edge(
    beats
      .slice(-5)
      .slice(1)
      .map((b, i) => b - beats.slice(-5)[i]!),
  );
  while (beats.at(-1)! + lastP < durationSec) beats.push(beats.at(-1)! + lastP);
}
