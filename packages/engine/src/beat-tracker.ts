/**
 * Beat tracking, second half: beats that follow a local tempo.
 *
 * aubio's tracker (music-analysis.ts) gives a global tempo, but its beat phase wanders and one
 * global grid is wrong as soon as the music's tempo moves (a tempo change, a ramp, a live drummer).
 * So the beats here come from our own tracker over an onset envelope, in these steps:
 *
 *  1. Onset envelope (`onsetEnvelope`): the signal is split into three bands with cascaded
 *     one-pole filters (below ~200 Hz, 200 Hz-2 kHz, above 2 kHz); per hop of 128 samples
 *     (5.8 ms at 22.05 kHz) each band's log energy is differenced and half-wave rectified, and
 *     the bands are summed with weights 1 / 1 / 0.4. Kicks and snares mark the beat in most
 *     music; hi-hats play between beats, so the high band counts less. That keeps the tracker
 *     off the off-beat when the hats are loud. Log energy makes a quiet intro or a fade-out give
 *     onsets of similar size to the loud body.
 *  2. Tempo curve (`tempoCurve`): autocorrelation of the (mean-removed) envelope in 8 s windows
 *     every second, for beat periods of 70-180 BPM; each lag's salience (`lagSalience`) adds half
 *     of the autocorrelation at twice the lag and a quarter at four times it (a beat repeats at
 *     two beats and at the bar, an eighth note does not carry the bar; there the best lag within
 *     the lag's rounding counts) and is weighted by a broad prior around 110 BPM (the tempo
 *     people tap; half and double time lose to it when the evidence is equal), with a small
 *     bonus at a seed tempo when one is given. A Viterbi pass over (window, period) then picks
 *     one period per window, paying for every change in proportion to its log ratio: a ramp's small steps are cheap,
 *     a tempo step is paid once, and a single odd window (a break, a fill) does not flip the
 *     tempo. The period is interpolated between window centres, per hop.
 *  3. Beats (`trackBeats`): dynamic programming over the envelope (Ellis 2007, "Beat tracking by
 *     dynamic programming"): score(t) = onset(t) + max over p in [t - 2T, t - T/2] of
 *     score(p) - alpha * ln((t - p) / T(t))^2, with T(t) the local period from step 2. The best
 *     chain of beats is traced back from the end. Where there are no onsets (a break, a silent
 *     stretch) the cheapest chain keeps the local period, so the beat carries through and resumes
 *     in phase; jitter and drift are followed because each beat sits on its own onset. A second
 *     pass re-estimates the period from the tracked beats themselves (median of nearby
 *     intervals) and tracks again, which sharpens the tempo right at a step. Each beat is then
 *     moved to the onset peak within two hops, to sub-hop precision, and the chain is extended
 *     at the local period to both ends of the track (quiet intros and fade-outs keep a beat),
 *     but leading and trailing beats where no band (kick, mid, high) has a quarter of a typical
 *     beat's onset are dropped: the music has not started or has stopped (silence, a reverb
 *     tail, noise at either end of the file), and a beat there is not one anybody hears.
 *  3b. Phase and metrical level, from two more bands of the same envelope: the kick band (below
 *     ~120 Hz) and the mid band (snares, chords). After the first DP pass, stretches of eight beats
 *     whose beats carry the kicks while the points halfway between carry snares (mid-band onsets
 *     at least half the beats', with some body in the kick band, which hi-hats lack) were
 *     tracked at every other beat (a fast song at half time, the faster side of a tempo step),
 *     unless the tracked beats alternate kick and snare themselves (then eighth notes of a bass or
 *     guitar are between them) or the quarter points of the intervals are empty in the high band
 *     (a faster beat has eighth notes of its own; a reggae skank's chords and bass between the
 *     beats, with nothing on the sixteenths, are the off-beats): there the halfway beats are
 *     added and the period halved before the second pass, as long as the tempo stays within 70-180 BPM. After the second pass, if
 *     the beats carry next to no kick energy and the points halfway between them eight times as
 *     much, the tracker followed off-beat chords or hats (a reggae one-drop) and the beats move
 *     there. An interval twice as long as those around it gets its missing beat. (Bands divided
 *     by their local level, so a quiet intro is judged like the loud body.)
 *  3c. Metrical-level hypotheses, only where the chain left by 3b wavers (its tempo over four
 *     beats keeps changing: two levels mixed): plain chains at 1, 2, 1/2, 3/2 and 2/3 times the
 *     tempo curve; among the steady ones, the level whose beats explain the most onset strength
 *     per minute under a one-octave tempo prior around 120 BPM (55-190 BPM). `LevelArbiter` is
 *     the documented slot where a learned model could make this choice instead. A steady chain
 *     is questioned too when it is lopsided (folded over 2 or 3 beats, one phase carries under a
 *     quarter of the onset of another: a beat that keeps falling between the music's beats, as a
 *     waltz followed at two thirds of its tempo): chains at 2, 3/2 and 2/3 times the tempo curve
 *     replace it when the onset every one of their beats carries (the weakest phase of those
 *     folds) per minute, under the same prior, is a quarter higher.
 *  3d. Phase from the presence band (a band-pass around 3 kHz: claps, snares, the kick's beater
 *     click): if the points halfway between the beats carry more of it than the beats, and not
 *     because of hi-hat hiss (the air band around 8 kHz rises as much there), the tracker
 *     followed an off-beat bass (dance, house) and the beats move halfway. Beats are then placed
 *     15 ms before their onset peak (the envelope marks a sampled note 6-20 ms late), or earlier
 *     where the bands show the note beginning up to four hops before that peak (`noteStart`: the
 *     envelope sums 23 ms of energy on a log1p scale, so a note that builds up, a strum or a soft
 *     chord, peaks late in it): at the first hop whose band onset reaches 30 % of the strongest.
 *  3e. Hi-hats on every quarter of a steady chain's beat (the air band's mean onset at each quarter
 *     at least a quarter of the strongest quarter's: sixteenths of the chain, eighths of twice its
 *     tempo) are as regular at 2T as at T and do not tell the two apart; the snare on every other
 *     beat of 2T is half-time. Then the tempo prior alone decides (`denseHatsLevel`): the halfway
 *     beats are added when 2T is nearer the prior's centre (110 BPM, step 2) in octaves than T,
 *     i.e. below 78 BPM (half-time trap at 70 is named 140; hip-hop at 85-90 with sixteenth hats
 *     stays; rock's and a one-drop's eighth-note hats leave two quarters empty).
 *  3f. Chord changes (beat-harmony.ts): the harmony's change per hop from a chroma analysis. If
 *     the bar line's chord change (its strongest phase folded over 3 or 4 beats) lands halfway
 *     between the beats 1.22 times more than on them, and the kick band rises at least as much
 *     there, the tracker followed the off-beats (a bossa's bass and guitar) and the beats move
 *     halfway, unless the beats carry a backbeat (snares or claps: the presence band 1.3 times
 *     the halfway points' and the air band nearly as much; funk anticipates its chords). (The
 *     thresholds were set on the bench corpus: a dance song's off-beat bass gives 1.15, the bossa
 *     1.31.) It runs before 3g and 3h, on the chain's hops; step 3d places the beats after it.
 *  3g. Beats in a steady stretch move halfway towards the quadratic through their thirteen-beat
 *     neighbourhood (`smoothSteadyBeats`, beat-dp.ts): one instrument's late note does not drag
 *     its beat off the pulse the band keeps, while a whole band's push and pull still shows.
 *  3h. A chain that still wavers (a solo player's rubato) and whose every other beat carries under
 *     half the onset of the beats between them follows the player's eighth notes (an arpeggio, a
 *     melody note on the "and"): the stronger parity is the pulse (`strongerParity`).
 *  4. Meter and bars (beat-meter.ts): each beat's accent (loudness just after it plus its
 *     bass-band onset) folded over 3 and 4 beats; 3/4 when its strongest phase stands out
 *     clearly more, and the downbeats are that phase, so bars follow the tracked beats across
 *     tempo changes.
 *  5. Confidence: steadiness (1 while the four-beat tempo changes by at most 1.2 % from one four
 *     beats to the next, 0 at 3.2 %: rubato) times (0.5 + half the share of beats on an onset
 *     peak). Below
 *     LOW_BEAT_CONFIDENCE plans cut on `onsets`, the strongest onsets, rather than on the grid;
 *     there they are the strong onsets a tracked beat agrees with (`onsetsOnPulse`), when enough
 *     do, each where its note begins (`swellStarts`: strings and horns swell in).
 * Pure functions over plain arrays; the decoding and aubio live in music-analysis.ts. The steps
 * live in beat-envelopes.ts (1), beat-tempo.ts (2), beat-dp.ts (3, 3g), beat-hypotheses.ts (3b-3e, 3h),
 * beat-harmony.ts (3f), beat-onsets.ts (where notes begin, the onsets of 5), beat-meter.ts (4), and this file puts them together; the measures used to score it are in beat-measures.ts.
 */

import { onsetEnvelope, type Envelope } from './beat-envelopes.js';
import { bracket, meanPeriod, parabolicPeakOffset } from './numeric.js';
import { dpBeats, evenOutUnsupported, periodFromBeats, smoothSteadyBeats } from './beat-dp.js';
import {
  chooseLevel,
  drummersLevel,
  fillSkippedBeats,
  presencePhase,
  denseHatsLevel,
  LEVEL_FACTORS,
  onBeatPhase,
  peakNear,
  phaseEvidence,
  scoreLevel,
  lopsided,
  steadyLevelScore,
  strongerParity,
  LEVEL_SWITCH_MARGIN,
  STEADY_LEVEL_FACTORS,
  type LevelArbiter,
  type LevelHypothesis,
} from './beat-hypotheses.js';
import { harmonyPhase } from './beat-harmony.js';
import { noteStart, ONSET_LATENCY_SEC, onsetsOnPulse, strongOnsets, swellStarts, trimOutsideMusic } from './beat-onsets.js';
import { chooseMeter, relativeToMedian, type BeatsPerBar } from './beat-meter.js';
import { BAND_SEC, normaliseBpm, periodBand, PRIOR_BPM, tempoCurve } from './beat-tempo.js';

export { onsetEnvelope, type Envelope };
export {
  LOW_BEAT_CONFIDENCE,
  NOTE_START_SHARE,
  noteStart,
  ON_PULSE_SEC,
  onsetsOnPulse,
  OUTSIDE_MUSIC_SHARE,
  strongOnsets,
  SWELL_HOPS,
  swellStarts,
  trimOutsideMusic,
} from './beat-onsets.js';
export { MAX_BPM, MIN_BPM, normaliseBpm, tempoCurve } from './beat-tempo.js';

/**
 * 7: phase from the chord changes (step 3f); beats 15 ms before the onset peak and notes that
 * build up start at 30 % of their strongest band onset (step 3d); beats halfway to the local pulse
 * (step 3g); no doubling where the faster beat would have no eighth notes (step 3b); the bar's
 * repetition found within the lag's rounding (step 2); rubato's stronger parity (step 3h) and
 * low-confidence onsets on the pulse.
 * 6: a steady chain with hi-hats on every quarter of its beat is doubled where twice its tempo is
 * nearer the tempo prior (step 3e: half-time trap at 70 is named 140).
 * 5: a steady but lopsided chain is checked against the 2, 3/2 and 2/3 levels (step 3c); no
 * beats before the music starts or after it has stopped (step 3); beats where the note begins
 * (step 3d).
 * 4: meter (beatsPerBar) and bars that follow it, strong onsets, confidence that drops with
 * rubato, beats 10 ms earlier (onset latency); 3: phase and metrical level from the kick and mid
 * bands (step 3b). Older analyses are redone.
 */
export const MUSIC_ANALYSIS_VERSION = 7;

export interface MusicAnalysis {
  version: number;
  durationSec: number;
  /** Mean tempo over the track (beats per minute). */
  bpm: number;
  /** Mean beat period over the track, seconds; the local period is the spacing of `beats`. */
  beatPeriodSec: number;
  /** Beat times in seconds, ascending, following the local tempo. Empty when there is no pulse. */
  beats: number[];
  /** Downbeats: every `beatsPerBar`-th tracked beat, from the most accented phase. */
  bars: number[];
  /** The meter found: 3 (waltz) or 4 beats a bar. Absent in analyses before version 4. */
  beatsPerBar?: BeatsPerBar;
  /**
   * Times (s) of the strongest onsets (the strongest third of the envelope's peaks standing out
   * within 150 ms; when `confidence` is low, those a tracked beat agrees with, `onsetsOnPulse`),
   * each where its note begins (`swellStarts`: up to 99 ms before the envelope's peak). Plans cut
   * on these when `confidence` is below LOW_BEAT_CONFIDENCE; nothing else reads them.
   */
  onsets?: number[];
  /**
   * 0..1: how far to trust the beat grid. A steadiness factor times (0.5 + half the share of beats
   * that sit on an onset peak), so sparse onsets on a steady grid halve it at most. Steadiness: 1 while the tempo over four beats changes by at most 1.2 % from one four
   * beats to the next (median over the track; a band, a ramp, a tempo step), falling to 0 at 3.2 %
   * (a solo player's rubato, or a tracker that wavers between two metrical levels).
   */
  confidence: number;
}

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

export interface TrackOptions {
  /** aubio's global tempo estimate (0 if none): a small bonus in the tempo search. */
  seedBpm?: number;
  /** Loudness just after time t; picks the downbeats. Defaults to the onset peak there. */
  accentAt?: (t: number) => number;
  /** A learned model's say in the metrical level (none ships; see LevelArbiter). */
  levelArbiter?: LevelArbiter;
}

/** Steps 2-4 over an envelope. */
export function trackBeats(env: Envelope, durationSec: number, opts: TrackOptions = {}): MusicAnalysis {
  const empty: MusicAnalysis = {
    version: MUSIC_ANALYSIS_VERSION,
    durationSec,
    bpm: 0,
    beatPeriodSec: 0,
    beats: [],
    bars: [],
    beatsPerBar: 4,
    onsets: [],
    confidence: 0,
  };
  const n = Math.min(env.values.length, Math.floor(durationSec / env.hopSec));
  if (durationSec < 2 || n < 16) return empty;
  const values = env.values.subarray(0, n);
  // Normalise by the standard deviation (Ellis) so the tightness means the same on every track.
  let mean = 0;
  for (let i = 0; i < n; i++) mean += values[i]!;
  mean /= n;
  let sd = 0;
  for (let i = 0; i < n; i++) sd += (values[i]! - mean) ** 2;
  sd = Math.sqrt(sd / n);
  // No pulse at all (silence, a steady tone): no beats.
  if (!(sd > 1e-3)) return empty;
  const o = new Float64Array(n);
  for (let i = 0; i < n; i++) o[i] = values[i]! / sd;
  const curve = tempoCurve({ values, hopSec: env.hopSec }, opts.seedBpm ?? 0);
  const halfBand = Math.round(BAND_SEC / env.hopSec);
  let hops = dpBeats(o, periodBand(curve, halfBand));
  // Where the first pass took every other beat of a backbeat, the period is halved there, so the
  // second pass tracks the drummer's beat itself (also through a tempo step into that region).
  let trackPeriod = curve;
  const doubled = env.bands ? drummersLevel(hops, env.bands, env.hopSec) : [];
  if (doubled.some(Boolean)) {
    // Each doubled interval gets its halfway beat, and half its length as the local period.
    trackPeriod = Float64Array.from(curve);
    const withHalves: number[] = [];
    hops.forEach((h, i) => {
      withHalves.push(h);
      const next = hops[i + 1];
      if (!doubled[i] || next === undefined) return;
      withHalves.push(Math.round((h + next) / 2));
      for (let t = h; t < Math.min(n, next); t++) trackPeriod[t] = (next - h) / 2;
    });
    hops = withHalves;
  }
  hops = dpBeats(o, periodBand(periodFromBeats(hops, n, trackPeriod), Math.round(halfBand / 2)));
  if (hops.length < 2) return empty;
  if (env.bands) hops = onBeatPhase(hops, env.bands.kickEnergy);
  hops = fillSkippedBeats(hops);
  // Level hypotheses (beat-hypotheses.ts), only where the rules above left a wavering chain (its
  // tempo over four beats keeps changing: two metrical levels mixed, or a rubato the tracker lost):
  // plain chains at each level factor of the tempo curve, the steady ones scored by the onsets
  // they explain and the tempo prior.
  const levelChain = (f: number) =>
    dpBeats(
      o,
      periodBand(
        curve.map((p) => p * f),
        halfBand,
      ),
    );
  const chainBpm = (h: number[]) => (h.length > 1 ? (60 * (h.length - 1)) / ((h.at(-1)! - h[0]!) * env.hopSec) : 0);
  if (env.bands && hopIrregularity(hops) > WAVERING) {
    const bands = env.bands;
    const hyps: LevelHypothesis[] = [hops, ...LEVEL_FACTORS.map(levelChain)].map((h, i) => {
      const evidence = phaseEvidence(h, bands, o);
      const bpm = chainBpm(h);
      return { factor: i ? LEVEL_FACTORS[i - 1]! : 1, hops: h, bpm, evidence, ...scoreLevel(evidence, bpm) };
    });
    const steady = hyps.filter((h) => hopIrregularity(h.hops) <= WAVERING);
    const best = chooseLevel(steady.length ? steady : hyps, env.hopSec, opts.levelArbiter);
    if (best) hops = best.hops;
  } else if (lopsided(hops, o)) {
    // A steady chain may still be steadily at the wrong level: a waltz followed at two thirds of its
    // tempo (one beat every half bar) leaves every other beat of the chain between the music's
    // beats, with next to no onset (`lopsided`). Then the other levels' chains replace it when every
    // one of their beats carries clearly more onset per minute (steadyLevelScore, LEVEL_SWITCH_MARGIN).
    let best: { hops: number[]; score: number; f?: number } = {
      hops,
      score: steadyLevelScore(hops, o, chainBpm(hops)) * LEVEL_SWITCH_MARGIN,
    };
    for (const f of STEADY_LEVEL_FACTORS) {
      const h = levelChain(f);
      if (hopIrregularity(h) > WAVERING) continue;
      const score = steadyLevelScore(h, o, chainBpm(h));
      if (score > best.score) best = { hops: h, score, f };
    }
    // Like the main path, a second pass at the period of the chain's own beats.
    const f = best.f;
    if (f)
      hops = dpBeats(
        o,
        periodBand(
          periodFromBeats(
            best.hops,
            n,
            curve.map((p) => p * f),
          ),
          Math.round(halfBand / 2),
        ),
      );
  }
  if (hops.length < 2) return empty;

  // Phase from the presence band (claps, snares, the kick's click) unless hats explain it.
  if (env.bands?.presence && env.bands.air) hops = presencePhase(hops, env.bands.presence, env.bands.air);
  // Step 3e: dense hats (sixteenths of a slow chain) say nothing about T against 2T: the tempo prior decides.
  if (env.bands?.air && hopIrregularity(hops) <= WAVERING) hops = denseHatsLevel(hops, env.bands.air, env.hopSec, PRIOR_BPM);
  // Step 3f: the chords change on the bar line; if that and the kicks land halfway, the beats move there.
  if (env.bands?.harmony) {
    const { presence, air } = env.bands;
    hops = harmonyPhase(hops, env.bands.harmony, env.bands.kickEnergy, presence && air ? { presence, air } : undefined);
  }
  // Step 3h: a wavering chain with every other beat weak follows a player's eighth notes: its
  // stronger parity is the pulse, at half the tempo. (Whether that half wavers less is no test: a
  // player's rubato shows more over four beats of the pulse than over four eighth notes.)
  if (hopIrregularity(hops) > WAVERING) hops = strongerParity(hops, o, env.hopSec);
  // Sub-hop precision: the onset peak within two hops, parabolic interpolation around it.
  const beats: number[] = [];
  const strength: number[] = [];
  for (const h of hops) {
    let bi = h;
    for (let i = Math.max(1, h - 2); i <= Math.min(n - 2, h + 2); i++) if (o[i]! > o[bi]!) bi = i;
    const off = bi > 0 && bi < n - 1 ? parabolicPeakOffset(o[bi - 1]!, o[bi]!, o[bi + 1]!) : 0;
    strength.push(o[bi]!);
    const peakSec = (bi + off) * env.hopSec - ONSET_LATENCY_SEC;
    const bd = env.bands;
    // Where the bands show the note beginning before the envelope's peak (a strum, a soft chord), there.
    const startSec = bd?.high ? noteStart({ kick: bd.kick, mid: bd.mid, high: bd.high }, bi) * env.hopSec : peakSec;
    beats.push(Math.max(0, Math.min(peakSec, startSec)));
  }
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
  // Extend at the local period to both ends (quiet intros, fade-outs).
  // (At the median of the nearest intervals: one odd interval at an end does not set the pace.)
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
  // ... but not outside the music (silence before the first note, a reverb tail or noise after the last).
  if (env.bands) trimOutsideMusic(beats, env.bands, env.hopSec);
  // Halfway towards the local pulse (beat-dp.ts): one instrument's late note does not drag the beat.
  // (After the trim, which looks for each beat's onset where the beat was placed on it.)
  const rounded = smoothSteadyBeats(beats).map((b) => Math.round(b * 1e6) / 1e6);

  // Step 4: meter and downbeats (beat-meter.ts).
  const accentAt = opts.accentAt ?? ((t: number) => o[Math.round(t / env.hopSec)] ?? 0);
  const loud = relativeToMedian(rounded.map((b) => accentAt(b)));
  const bass = env.bands ? relativeToMedian(rounded.map((b) => peakNear(env.bands!.kick, Math.round(b / env.hopSec) + 1))) : undefined;
  const meter = chooseMeter(loud.map((a, i) => a + (bass?.[i] ?? 0)));
  const bars = rounded.filter((_, i) => i % meter.beatsPerBar === meter.phase);

  // Strong onsets (peaks of the envelope standing out within 150 ms, the strongest third of them):
  // where the pulse is uncertain the plan cuts on these instead of on the beat grid.
  const pulseOnsets = onsetsOnPulse(strongOnsets(o, env.hopSec), rounded, confidence);
  const nb = env.bands;
  const onsets = nb?.high ? swellStarts(pulseOnsets, { kick: nb.kick, mid: nb.mid, high: nb.high }, env.hopSec) : pulseOnsets;

  // Mean period by least squares over the beat index, so a steady track's tempo is exact.
  const period = meanPeriod(rounded, NaN);
  return {
    version: MUSIC_ANALYSIS_VERSION,
    durationSec,
    bpm: Math.round((60 / period) * 1000) / 1000,
    beatPeriodSec: period,
    beats: rounded,
    bars,
    beatsPerBar: meter.beatsPerBar,
    onsets,
    confidence: Math.round(confidence * 1000) / 1000,
  };
}

/**
 * The tracker with the historical signature: `aubioBpm` seeds the tempo search; `rawBeats`
 * (aubio's beats) give a seed when aubio reports no tempo.
 */
export function fitBeats(
  env: Envelope,
  durationSec: number,
  aubioBpm: number,
  rawBeats: number[],
  accentAt?: (t: number) => number,
): MusicAnalysis {
  let seed = normaliseBpm(aubioBpm);
  if (!seed && rawBeats.length > 4) {
    const iois = rawBeats
      .slice(1)
      .map((b, i) => b - rawBeats[i]!)
      .sort((x, y) => x - y);
    seed = normaliseBpm(60 / iois[Math.floor(iois.length / 2)]!);
  }
  return trackBeats(env, durationSec, { seedBpm: seed, accentAt });
}

/** Local beat period at time t: the spacing of the tracked beats around it. */
export function periodAt(m: Pick<MusicAnalysis, 'beats' | 'beatPeriodSec'>, t: number): number {
  const b = m.beats;
  if (b.length < 2) return m.beatPeriodSec;
  const [lo, hi] = bracket(b, t);
  return b[hi]! - b[lo]! > 0 ? b[hi]! - b[lo]! : m.beatPeriodSec;
}
