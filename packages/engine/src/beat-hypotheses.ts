/** Beat tracking, step 3b: phase and metrical level from the kick and mid bands (the design is in beat-tracker.ts). */
import { peakNear, presenceOnOff } from './beat-peaks.js';
import { MAX_BPM } from './beat-tempo.js';

/**
 * Step 3b, phase: the beat is where the kick drum lands. If the tracked beats carry next to no
 * kick-band onset while the points halfway between them carry eight times as much (the tracker
 * followed off-beat chords or hats, as in a reggae one-drop), the beats move to those halfway
 * points.
 */
export function onBeatPhase(hops: number[], kickEnergy: Float32Array): number[] {
  let on = 0,
    off = 0;
  for (let i = 0; i + 1 < hops.length; i++) {
    on += peakNear(kickEnergy, hops[i]!);
    off += peakNear(kickEnergy, Math.round((hops[i]! + hops[i + 1]!) / 2));
  }
  // Only when the tracked beats have next to no low onsets: where they carry kicks of their own
  // (house, with its bass between the kicks), they are the beat however loud the bass is.
  if (!(off > 8 * on)) return hops;
  return hops.slice(0, -1).map((h, i) => Math.round((h + hops[i + 1]!) / 2));
}

/** The quarter points of a doubled stretch carry at least this share of its halfway points' high-band onset (`drummersLevel`). */
export const SUBDIVIDED_SHARE = 0.2;

/**
 * Step 3b, metrical level (which intervals between tracked beats hold a beat of their own): where the tracked beats carry the kicks and the points halfway between
 * them carry snares (a backbeat: mid-band onsets at least half the beats' (a third let the eighth-note guitar of rock at 82 BPM pass as a backbeat), and body in the
 * kick band, a tenth to 60 % of the beats'; hi-hats alone have neither), while the tracked beats
 * do not alternate between kick and snare themselves,
 * the drummer's beat is twice as fast: the tracker took every other beat (a fast song, or the
 * faster side of a tempo step). The halfway points are added there, while the tempo stays within
 * the range people tap (MAX_BPM). Judged over eight beats at a time; hi-hats between beats have
 * no body in the kick band and do not count. With the high band given, a faster beat must also
 * have subdivisions of its own: the quarter points of the intervals (the eighth notes of the
 * faster beat: hats, strummed or picked eighths) carry at least SUBDIVIDED_SHARE of the halfway
 * points' high-band onset. Where they are empty, the halfway points are the music's off-beats and
 * the tracked beats its fastest beat with a level above it: a reggae skank (chords and bass
 * notes between the beats, eighth-note hats, nothing on the sixteenths) is not a backbeat.
 */
export function drummersLevel(
  hops: number[],
  bands: { kick: Float32Array; mid: Float32Array; high?: Float32Array },
  hopSec: number,
): boolean[] {
  const n = hops.length;
  if (n < 9) return [];
  const mids = hops.slice(0, -1).map((h, i) => Math.round((h + hops[i + 1]!) / 2));
  const kb = hops.map((h) => peakNear(bands.kick, h));
  const mb = hops.map((h) => peakNear(bands.mid, h));
  const km = mids.map((h) => peakNear(bands.kick, h));
  const mm = mids.map((h) => peakNear(bands.mid, h));
  // High-band onsets halfway and at the quarter points (their mean), per interval.
  const high = bands.high;
  const hm = high ? mids.map((h) => peakNear(high, h)) : [];
  const hq = high
    ? hops.slice(0, -1).map((h, i) => {
        const d = hops[i + 1]! - h;
        return (peakNear(high, Math.round(h + d / 4)) + peakNear(high, Math.round(h + (3 * d) / 4))) / 2;
      })
    : [];
  const sum = (xs: number[], a: number, b: number) => xs.slice(a, b).reduce((x, y) => x + y, 0);
  const double = new Array<boolean>(n - 1).fill(false);
  const W = 8;
  for (let a = 0; a + W <= n - 1; a++) {
    const b = a + W;
    const bpm = (60 * W) / ((hops[b]! - hops[a]!) * hopSec);
    // Snares already on every other tracked beat (the mid band alternating) mean the tracked beats
    // are the drummer's: eighth notes of a bass or a guitar between them are not a backbeat.
    let even = 0,
      odd = 0;
    for (let i = a; i < b; i++) {
      if (i % 2) odd += mb[i]!;
      else even += mb[i]!;
    }
    const alternating = Math.max(even, odd) >= 2 * Math.min(even, odd);
    const subdivided = !high || sum(hq, a, b) >= SUBDIVIDED_SHARE * sum(hm, a, b);
    const backbeat =
      subdivided &&
      !alternating &&
      2 * bpm <= MAX_BPM &&
      sum(mm, a, b) >= 0.5 * sum(mb, a, b) &&
      sum(km, a, b) >= 0.1 * sum(kb, a, b) &&
      sum(km, a, b) <= 0.6 * sum(kb, a, b);
    // Each halfway point of such a stretch needs its own snare body (a stretch may reach across a
    // tempo step into beats that are already the drummer's).
    if (backbeat) for (let i = a; i < b; i++) double[i] ||= km[i]! >= 0.1 * (sum(kb, a, b) / W);
  }
  // Only runs of four intervals or more count (a single odd window is not a change of level).
  for (let i = 0; i < n - 1; i++) {
    if (!double[i]) continue;
    let j = i;
    while (j + 1 < n - 1 && double[j + 1]) j++;
    if (j - i + 1 < 4) for (let k = i; k <= j; k++) double[k] = false;
    i = j;
  }
  return double;
}

/**
 * A beat the tracker skipped: an interval about twice as long as the intervals around it (within
 * an eighth) gets the beat halfway, where the chain of beats lost one (at a tempo step, near an end).
 */
export function fillSkippedBeats(hops: number[]): number[] {
  const iv = hops.slice(1).map((h, i) => h - hops[i]!);
  const out: number[] = [];
  hops.forEach((h, i) => {
    out.push(h);
    if (i >= iv.length) return;
    const around = [...iv.slice(Math.max(0, i - 3), i), ...iv.slice(i + 1, i + 4)].sort((a, b) => a - b);
    if (around.length < 2) return;
    const local = around[Math.floor(around.length / 2)]!;
    if (Math.abs(iv[i]! / local - 2) <= 0.25) out.push(Math.round(h + iv[i]! / 2));
  });
  return out;
}

/** Per band, the mean onset strength at the beats and at the points halfway between them. */
export interface PhaseEvidence {
  on: { kick: number; mid: number; high: number; all: number };
  off: { kick: number; mid: number; high: number; all: number };
}

export function phaseEvidence(
  hops: number[],
  bands: { kick: Float32Array; mid: Float32Array; high?: Float32Array },
  all: Float64Array | Float32Array,
): PhaseEvidence {
  const z = { kick: 0, mid: 0, high: 0, all: 0 };
  const on = { ...z },
    off = { ...z };
  const n = Math.max(1, hops.length - 1);
  const add = (acc: typeof z, h: number) => {
    acc.kick += peakNear(bands.kick, h) / n;
    acc.mid += peakNear(bands.mid, h) / n;
    acc.high += (bands.high ? peakNear(bands.high, h) : 0) / n;
    acc.all += peakNear(all, h) / n;
  };
  for (let i = 0; i + 1 < hops.length; i++) {
    add(on, hops[i]!);
    add(off, Math.round((hops[i]! + hops[i + 1]!) / 2));
  }
  return { on, off };
}

/** The metrical levels considered, as factors of the tracked beat period. */
export const LEVEL_FACTORS = [1, 2, 0.5, 1.5, 2 / 3] as const;

/** A metrical-level hypothesis: a chain of beats at `factor` times the tracked period. */
export interface LevelHypothesis {
  factor: number;
  /** Beat hops, ascending. */
  hops: number[];
  bpm: number;
  evidence: PhaseEvidence;
  /** log2 of the tempo against PRIOR_TAP_BPM. */
  octaves: number;
  /** The onset mass the beats explain per minute, times the tempo prior (see `scoreLevel`). */
  score: number;
}

/** Centre of the tempo prior: people tap near 120 BPM when the music allows either octave. */
export const PRIOR_TAP_BPM = 120;
/** Levels outside this range are not considered (eighth notes of a slow song, half notes of a fast one). */
export const LEVEL_RANGE_BPM = [55, 190] as const;

/**
 * Scores a level: the onset strength its beats carry per minute (mean onset at the beats times the
 * tempo: halving the tempo loses half the explained onsets, doubling it only adds the weaker
 * off-beats) times a log-normal tempo prior of one octave around PRIOR_TAP_BPM. Outside
 * LEVEL_RANGE_BPM the score is 0.
 */
export function scoreLevel(evidence: PhaseEvidence, bpm: number): { octaves: number; score: number } {
  const octaves = Math.log2(bpm / PRIOR_TAP_BPM);
  if (!(bpm >= LEVEL_RANGE_BPM[0] && bpm <= LEVEL_RANGE_BPM[1])) return { octaves, score: 0 };
  return { octaves, score: evidence.on.all * bpm * Math.exp(-0.5 * octaves * octaves) };
}

/**
 * Where a learned beat model (for instance an ONNX network run through onnxruntime-node) can
 * arbitrate between the level hypotheses later. It receives every hypothesis with its evidence
 * and the hop length, and returns the index of the one to keep, or undefined to leave the choice
 * to `scoreLevel`. No model ships (no weights can be downloaded on our machines); the tracker
 * works without one.
 */
export interface LevelArbiter {
  choose(hypotheses: readonly LevelHypothesis[], hopSec: number): number | undefined;
}

/** The best-scoring hypothesis (or the arbiter's choice); the first one on ties. */
export function chooseLevel(hypotheses: readonly LevelHypothesis[], hopSec: number, arbiter?: LevelArbiter): LevelHypothesis | undefined {
  const picked = arbiter?.choose(hypotheses, hopSec);
  if (picked !== undefined && hypotheses[picked]) return hypotheses[picked];
  let best: LevelHypothesis | undefined;
  for (const h of hypotheses) if (!best || h.score > best.score) best = h;
  return best;
}

/**
 * The halfway points must carry this much more presence-band onset than the beats to take over,
 * and relatively more than they carry in the air band (else the excess is hi-hat hiss).
 */
export const PRESENCE_PHASE_RATIO = 1.1;

/**
 * Phase from the presence band (around 3 kHz: claps, snares, a kick's beater click; above a
 * bass's harmonics, below an open hi-hat's hiss): if the points halfway between the tracked beats
 * carry more of it than the beats (PRESENCE_PHASE_RATIO), the tracker followed an off-beat bass
 * (dance and house music, whose bass between the kicks can outweigh them in the low band), and the
 * beats move halfway. Not when the air band (around 8 kHz) rises as much there: open hi-hats on
 * the off-beat hiss in both.
 */
export function presencePhase(hops: number[], presence: Float32Array, air: Float32Array): number[] {
  const { on, off } = presenceOnOff(hops, presence);
  const hiss = presenceOnOff(hops, air);
  if (!(off > PRESENCE_PHASE_RATIO * on) || !(off * hiss.on > hiss.off * on)) return hops;
  return hops.slice(0, -1).map((h, i) => Math.round((h + hops[i + 1]!) / 2));
}

/**
 * The onset strength every beat of a chain carries: the chain's beats folded over 2 and over 3
 * (every other beat, every third beat), the mean onset (strongest within two hops) per phase of
 * each fold, and the weakest of those means. A chain at the true beat has an onset on each of its
 * beats, so every phase of both folds keeps some; a chain at twice the tempo puts every other beat
 * on an off-beat (a weak phase of the fold over 2), a chain at three halves of it every second and
 * third beat between beats (weak phases of the fold over 3), and a chain at two thirds of it (one
 * beat every one and a half) every other beat between beats too. (A waltz's weak beats 2 and 3
 * still have their chords.)
 */
export function weakestPhase(hops: number[], o: Float64Array | Float32Array): number {
  const means = phaseMeans(hops, o);
  return means.length ? Math.min(...means) : 0;
}

/** The mean onset (strongest within two hops) at each phase of the chain folded over 2 and over 3 (five means; none for fewer than six beats). */
export function phaseMeans(hops: number[], o: Float64Array | Float32Array): number[] {
  if (hops.length < 6) return [];
  const at = hops.map((h) => peakNear(o, h));
  const means: number[] = [];
  for (const k of [2, 3]) {
    for (let p = 0; p < k; p++) {
      let s = 0,
        c = 0;
      for (let i = p; i < at.length; i += k) {
        s += at[i]!;
        c++;
      }
      means.push(s / c);
    }
  }
  return means;
}

/**
 * A chain whose weakest phase (folded over 2 or 3) carries less than this share of its strongest
 * phase's onset has a regular gap in it: a beat that keeps falling between the music's beats.
 */
export const LOPSIDED = 0.25;

/** Whether a chain has a regular gap (`LOPSIDED`): it is probably at a wrong metrical level. */
export function lopsided(hops: number[], o: Float64Array | Float32Array): boolean {
  const means = phaseMeans(hops, o);
  return means.length > 0 && Math.min(...means) < LOPSIDED * Math.max(...means);
}

/**
 * A steady chain's level score: the onset strength every beat carries (`weakestPhase`) times the
 * tempo (onset mass per minute) times the one-octave tempo prior around PRIOR_TAP_BPM; 0 outside
 * LEVEL_RANGE_BPM. Unlike `scoreLevel` (mean onset per minute, for chains that waver), doubling
 * the tempo gains nothing here unless the off-beats are as strong as the beats.
 */
export function steadyLevelScore(hops: number[], o: Float64Array | Float32Array, bpm: number): number {
  if (!(bpm >= LEVEL_RANGE_BPM[0] && bpm <= LEVEL_RANGE_BPM[1])) return 0;
  const octaves = Math.log2(bpm / PRIOR_TAP_BPM);
  return weakestPhase(hops, o) * bpm * Math.exp(-0.5 * octaves * octaves);
}

/**
 * How much better another level's chain must score (`steadyLevelScore`) to replace a steady chain
 * the tracker already follows: the rules before (tempo curve, backbeat, phase) know more about it
 * than one score does, so a close call keeps it.
 */
export const LEVEL_SWITCH_MARGIN = 1.25;

/**
 * The levels tried against a lopsided steady chain: half its tempo and the 3:2 relations. Twice the
 * tempo is left to the backbeat rule (`drummersLevel`): where a steady chain's beats carry the only
 * drums (a one-drop, kick on 3 alone, is lopsided too), the off-beat chords between them would
 * always win here.
 */
export const STEADY_LEVEL_FACTORS = [2, 1.5, 2 / 3] as const;

/**
 * The mean hi-hat (air band) onset at the quarters of each interval of a chain: at the beats, a
 * quarter, half and three quarters of the way to the next beat (peak within two hops).
 */
export function quarterMeans(hops: number[], air: Float32Array): number[] {
  const sums = [0, 0, 0, 0];
  const n = hops.length - 1;
  for (let i = 0; i < n; i++) {
    const h = hops[i]!,
      d = hops[i + 1]! - h;
    for (let q = 0; q < 4; q++) sums[q]! += peakNear(air, Math.round(h + (q * d) / 4));
  }
  return sums.map((s) => s / Math.max(1, n));
}

/** Hats count as dense when every quarter of the beat carries at least this share of the strongest quarter's hat onset. */
export const DENSE_HATS_SHARE = 0.25;

/**
 * Whether the hats tick on every quarter of the chain's beat (sixteenths of it): then they are
 * as regular at twice the tempo as at the chain's, and do not tell the two apart.
 */
export function denseHats(hops: number[], air: Float32Array): boolean {
  if (hops.length < 9) return false;
  const q = quarterMeans(hops, air);
  return Math.min(...q) >= DENSE_HATS_SHARE * Math.max(...q) && Math.max(...q) > 0;
}

/**
 * A steady chain at T with dense hats (`denseHats`) is as well explained at 2T (the hats then on
 * every eighth, the snare on every other beat: half-time trap, named by its producers at 2T), so
 * the tempo prior alone decides: twice the tempo when 2T is nearer the prior's centre (in
 * octaves) than T is, i.e. T * 2T < centre^2. Returns the chain with its halfway beats added, or
 * the chain itself.
 */
export function denseHatsLevel(hops: number[], air: Float32Array, hopSec: number, priorBpm: number): number[] {
  if (hops.length < 9) return hops;
  const bpm = (60 * (hops.length - 1)) / ((hops.at(-1)! - hops[0]!) * hopSec);
  if (!(2 * bpm * bpm < priorBpm * priorBpm) || !denseHats(hops, air)) return hops;
  const out: number[] = [];
  hops.forEach((h, i) => {
    out.push(h);
    const next = hops[i + 1];
    if (next !== undefined) out.push(Math.round((h + next) / 2));
  });
  return out;
}

/** In a wavering chain, one parity must carry this many times the other's onset to be the pulse (`strongerParity`). */
export const PARITY_RATIO = 2;

/**
 * A wavering chain (a solo player's rubato) whose every other beat carries under half the onset
 * strength (PARITY_RATIO) of the beats between them is following the player's eighth notes (an
 * arpeggio, a melody note on the "and"): the stronger parity is the pulse, kept while its tempo
 * stays at or above LEVEL_RANGE_BPM's lower end. Returns the chain itself otherwise.
 */
export function strongerParity(hops: number[], o: Float64Array | Float32Array, hopSec: number): number[] {
  if (hops.length < 9) return hops;
  const sums = [0, 0];
  const counts = [0, 0];
  hops.forEach((h, i) => {
    sums[i % 2]! += peakNear(o, h);
    counts[i % 2]!++;
  });
  const mean = sums.map((x, p) => x / Math.max(1, counts[p]!));
  const strong = mean[0]! >= mean[1]! ? 0 : 1;
  if (!(mean[strong]! >= PARITY_RATIO * mean[1 - strong]!)) return hops;
  const halfBpm = (60 * (hops.length - 1)) / ((hops.at(-1)! - hops[0]!) * hopSec) / 2;
  if (!(halfBpm >= LEVEL_RANGE_BPM[0])) return hops;
  return hops.filter((_, i) => i % 2 === strong);
}
