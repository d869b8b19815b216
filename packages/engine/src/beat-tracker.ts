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
 * Pure functions over plain arrays; the decoding and aubio live in music-analysis.ts. `trackBeats`
 * below is the pipeline of named steps; the steps are in beat-steps.ts, in the order it runs them,
 * over beat-envelopes.ts (1), beat-tempo.ts (2), beat-dp.ts (3, 3g), beat-hypotheses.ts (3b-3e, 3h),
 * beat-harmony.ts (3f), beat-onsets.ts (where notes begin, the onsets of 5) and beat-meter.ts (4);
 * beat-peaks.ts has the small peak measures they share. The measures used to score the tracker are
 * in beat-measures.ts.
 */

import { onsetEnvelope, type Envelope } from './beat-envelopes.js';
import type { LevelArbiter } from './beat-hypotheses.js';
import { chooseMeter, relativeToMedian, type BeatsPerBar } from './beat-meter.js';
import { onsetsOnPulse, strongOnsets, swellStarts } from './beat-onsets.js';
import { peakNear } from './beat-peaks.js';
import { followPulse, normalisedOnsets, placeBeats, settleLevel, settlePhase, type Onsets } from './beat-steps.js';
import { tempoCurve } from './beat-tempo.js';
import { bracket, meanPeriod } from './numeric.js';

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
export { hopIrregularity } from './beat-steps.js';

/**
 * 12: a change of the beat period by one frame costs the decoding more (beat-dbn.ts's
 * ONE_FRAME_CHANGE 2, was 1): the beats, bars and meter change on some songs (SAME_BEATS_SINCE).
 * 11: the beat model fine-tuned with random sound fonts (tools/beat-model/README.md): its
 * activations, and so the beats, bars and meter, change on some songs (SAME_BEATS_SINCE).
 * 10: the tempo prior (beat-tempo-prior.ts) trained on twice as many songs, each read at 16 tempos
 * (tools/beat-model/README.md): the metrical level, and so the beats, change on some songs, so a
 * correction made on version 8 or 9 no longer applies (SAME_BEATS_SINCE).
 * 9: each beat's activation (`beatStrength`), for the plan's first cut (plan.ts); the beats, bars
 * and meter were version 8's.
 * 8: the learned beat model (beat-learned.ts) reads the beats, bars, meter and confidence; the
 * rule-based tracker here is the beat bench's comparison column.
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
export const MUSIC_ANALYSIS_VERSION = 12;

/**
 * The first analysis version whose beats, bars and meter the current one gives unchanged: a tempo
 * correction made on an analysis of a version from this one on still fits the beats
 * (services/media-library's tempo corrections keep the version they were made on).
 */
export const SAME_BEATS_SINCE = 12;

/** Whether analyses of versions `a` and `b` give the same beats, bars and meter (SAME_BEATS_SINCE). */
export function sameBeats(a: number, b: number): boolean {
  const current = (v: number) => v >= SAME_BEATS_SINCE && v <= MUSIC_ANALYSIS_VERSION;
  return a === b || (current(a) && current(b));
}

/**
 * A decoded beat whose activation is under this is placed on the strong beats' grid
 * (beat-learned.ts, regridWeakBeats), where the grid is trusted, and a plan's first cut waits
 * for the first beat at least this strong (plan.ts). Chosen on the 280 validation songs: at the beat
 * bench's target 258 without it, 260 at 0.2, 261 at 0.25, 262 at 0.3, 260 at 0.35, 259 at 0.4
 * (F and CMLt >= 0.9: 267, then 268 at 0.25-0.4). The songs it gains start with a sparse intro
 * or a quiet pickup whose first beats the decoding put 40-70 ms off. The first cut's wait, with the
 * decoding as it is: 268 at the target with this bound (263 without the wait), 266 at 0.2, 268 at
 * 0.4 and 0.5.
 */
export const WEAK_BEAT = 0.3;

export interface MusicAnalysis {
  version: number;
  durationSec: number;
  /** Mean tempo over the track (beats per minute). */
  bpm: number;
  /** Mean beat period over the track, seconds; the local period is the spacing of `beats`. */
  beatPeriodSec: number;
  /** Beat times in seconds, ascending, following the local tempo. Empty when there is no pulse. */
  beats: number[];
  /**
   * Downbeats: every `beatsPerBar`-th beat. The learned model's (version 8 on) are its decoding's bar
   * position 0; the rule-based tracker's (up to 7) start from the most accented phase.
   */
  bars: number[];
  /** The meter found: 3 (waltz) or 4 beats a bar. Absent in analyses before version 4. */
  beatsPerBar?: BeatsPerBar;
  /**
   * Times (s) of strong onsets that plans cut on when `confidence` is below LOW_BEAT_CONFIDENCE
   * (nothing else reads them). Version 8: the strong peaks of the model's beat activation (at
   * least 0.1) that a decoded beat agrees with, empty when the grid is trusted (beat-learned.ts).
   * Up to 7: the strongest third of the onset envelope's peaks standing out within 150 ms (when
   * `confidence` is low, those a tracked beat agrees with, `onsetsOnPulse`), each where its note
   * begins (`swellStarts`).
   */
  onsets?: number[];
  /**
   * 0..1: how far to trust the beat grid. Version 8: the beats' median activation scaled between
   * 0.1 and 0.4, times the steadiness of the beats (1 while the tempo over four beats changes by at
   * most 2.5 % from one four beats to the next, 0 at 3.5 %: rubato; beat-learned.ts's
   * beatConfidence). Up to 7: a steadiness factor (1 up to 1.2 %, 0 at 3.2 %) times (0.5 + half
   * the share of beats that sit on an onset peak).
   */
  confidence: number;
  /**
   * Version 9 on, the learned model's: each beat's activation (0..1), in the order of `beats`. A
   * plan's first cut waits for the first beat of at least WEAK_BEAT (plan.ts). Absent from the
   * rule-based tracker's analyses and from tempo-corrected ones (the user's grid: every beat counts).
   */
  beatStrength?: number[];
}

export interface TrackOptions {
  /** A global tempo guess, BPM (0 if none): a small bonus in the tempo search. */
  seedBpm?: number;
  /** Loudness just after time t; picks the downbeats. Defaults to the onset peak there. */
  accentAt?: (t: number) => number;
  /** A learned model's say in the metrical level (none ships; see LevelArbiter). */
  levelArbiter?: LevelArbiter;
}

/**
 * Steps 2-5 over an envelope (the design above): the steps of beat-steps.ts in this order, then
 * `describeBeats`. A track too short or without any pulse (silence, a steady tone) has no beats.
 */
export function trackBeats(env: Envelope, durationSec: number, opts: TrackOptions = {}): MusicAnalysis {
  const track = normalisedOnsets(env, durationSec);
  if (!track) return noBeats(durationSec);
  const curve = tempoCurve({ values: track.values, hopSec: track.hopSec }, opts.seedBpm ?? 0);
  const pulse = followPulse(track, curve);
  if (pulse.length < 2) return noBeats(durationSec);
  const level = settleLevel(track, curve, pulse, opts.levelArbiter);
  if (level.length < 2) return noBeats(durationSec);
  const hops = settlePhase(track, level);
  const { beats, confidence } = placeBeats(track, hops, durationSec);
  return describeBeats(track, beats, confidence, durationSec, opts.accentAt);
}

/** The analysis of a track with no beats. */
export const noBeats = (durationSec: number): MusicAnalysis => ({
  version: MUSIC_ANALYSIS_VERSION,
  durationSec,
  bpm: 0,
  beatPeriodSec: 0,
  beats: [],
  bars: [],
  beatsPerBar: 4,
  onsets: [],
  confidence: 0,
});

/**
 * Steps 4 and 5 over the placed beats: the meter and downbeats (beat-meter.ts, from the loudness
 * just after each beat plus its bass-band onset), the strong onsets plans cut on where the pulse
 * is uncertain (peaks of the envelope standing out within 150 ms, the strongest third of them,
 * each where its note begins), and the mean period by least squares over the beat index, so a
 * steady track's tempo is exact.
 */
function describeBeats(
  t: Onsets,
  beats: number[],
  confidence: number,
  durationSec: number,
  accentAt: (t: number) => number = (s) => t.o[Math.round(s / t.hopSec)] ?? 0,
): MusicAnalysis {
  const bands = t.bands;
  const loud = relativeToMedian(beats.map((b) => accentAt(b)));
  const bass = bands ? relativeToMedian(beats.map((b) => peakNear(bands.kick, Math.round(b / t.hopSec) + 1))) : undefined;
  const meter = chooseMeter(loud.map((a, i) => a + (bass?.[i] ?? 0)));
  const bars = beats.filter((_, i) => i % meter.beatsPerBar === meter.phase);
  const pulseOnsets = onsetsOnPulse(strongOnsets(t.o, t.hopSec), beats, confidence);
  const onsets = bands?.high ? swellStarts(pulseOnsets, { kick: bands.kick, mid: bands.mid, high: bands.high }, t.hopSec) : pulseOnsets;
  const period = meanPeriod(beats, NaN);
  return {
    version: MUSIC_ANALYSIS_VERSION,
    durationSec,
    bpm: Math.round((60 / period) * 1000) / 1000,
    beatPeriodSec: period,
    beats,
    bars,
    beatsPerBar: meter.beatsPerBar,
    onsets,
    confidence: Math.round(confidence * 1000) / 1000,
  };
}

/** Local beat period at time t: the spacing of the tracked beats around it. */
export function periodAt(m: Pick<MusicAnalysis, 'beats' | 'beatPeriodSec'>, t: number): number {
  const b = m.beats;
  if (b.length < 2) return m.beatPeriodSec;
  const [lo, hi] = bracket(b, t);
  return b[hi]! - b[lo]! > 0 ? b[hi]! - b[lo]! : m.beatPeriodSec;
}
