/**
 * Decoding the beat model's activations into beats, downbeats and the meter: a bar-pointer hidden
 * Markov model (the approach of madmom's DBNDownBeatTrackingProcessor; Krebs, Boeck and Widmer
 * 2015), decoded with Viterbi.
 *
 * A state is a beat period tau (in frames of 50 per second: 13-64 frames, 47-231 BPM) and a
 * position within the bar, 0 .. M * tau - 1, for a meter of M beats. The position moves one frame
 * per frame. At each beat boundary the period may change, with a probability falling as
 * exp(-TEMPO_CHANGE * |tau' / tau - 1|) (a change of one frame at exp(-ONE_FRAME_CHANGE)), so tempo
 * changes, ramps and rubato are followed while a steady song keeps its period. The first frames of each beat (the beat region) are where the
 * observation is the activation of a beat (of a downbeat at the bar's first beat); elsewhere the
 * frame should have no beat. A beat inside the bar observes the beat activation as it is, not the
 * beat less the downbeat (the model's beat activation includes the downbeats): a bar of the
 * decoding may then hold two of the song's bars, so 6/8 and 12/8, whose two or four dotted-quarter
 * beats a bar neither 3 nor 4 fits, are decoded at their beat as 4 (two bars of 6/8) rather than
 * at 3:2 as 3/4. (On 280 validation songs, seeds 500,000-500,279, at the observation lambda of 16
 * of the time: 257 at F and CMLt >= 0.9 against 250, 250 at the beat bench's target against 246;
 * 6/8, 12/8 and slow ballads gained, two 4/4 songs went to twice the tempo and a waltz's downbeats
 * moved; half the beat activation, in place of none, put the same count at target.) M = 3 and
 * M = 4 are decoded separately and the likelier path wins, which gives the meter.
 *
 * Only the predecessors chosen at the beat boundaries are stored (one byte per period, beat
 * and frame); inside a beat the predecessor is the frame before, so memory stays at a few
 * megabytes for a 10-minute song. The states inside a beat are not updated frame by frame (their
 * score is the beat's first frame plus a running sum, see decodeMeter), so a frame costs only its
 * beat boundaries. The beats are then placed at the 100 fps beat activation's
 * peak within 30 ms of the decoded frame (sub-frame, by a parabola).
 */
import { parabolicPeakOffset } from './numeric.js';

/** Frames per second of the decoding (the model's 100 fps, pooled in pairs). */
export const DBN_FPS = 50;
export const MIN_TAU = 13;
export const MAX_TAU = 64;
/** madmom's transition lambda, for changes of two frames or more. */
const TEMPO_CHANGE = 100;
/**
 * The cost (log) of a change of the period by one frame (a fractional period alternates between
 * the two nearest). Chosen on the 280 validation songs (seeds 500,000-500,279) with the committed
 * model on 2026-12-03, by a rule set before the figures (tools/beat-model/README.md), at the
 * bench's target through the training fonts and the validation font: 270 and 267 at 1 (the value
 * until then), 270 and 270 at 2, 271 and 269 at 3, 269 and 268 at 4, 270 and 266 at 0.5
 * (TEMPO_CHANGE at 50, 70 and 140 instead: 268 and 267, 269 and 267, 270 and 267). From 1 to 2 no
 * song of either band lost the target; through the validation font a 6/8 song (read at its meter
 * and beat) and two orchestral rubato songs gained.
 */
const ONE_FRAME_CHANGE = 2;

/** The decoding's tempo-change costs (TEMPO_CHANGE and ONE_FRAME_CHANGE unless given; validate.mjs tries others). */
export interface TempoChangeCosts {
  tempoChange?: number;
  oneFrameChange?: number;
}
/**
 * The beat region is the first frame of a beat, whatever the period. (madmom's tau / 16 frames
 * gives slow periods a wider region, which at 50 frames a second made a fast song likelier at
 * half its tempo: the second frame of each kept beat's activation counted for it. Chosen on the
 * validation songs: 50 of 80 at F and CMLt >= 0.9 against 47 with tau / 16.) Frames outside it
 * observe (1 - beat) / (OBS_LAMBDA - 1): the lower OBS_LAMBDA, the stronger an off-beat's
 * activation must be to be taken for a beat. Chosen on 280 validation songs (seeds
 * 500,000-500,279) with the committed model: 255 at the beat bench's target at 8 and 10, 253 at 6
 * and 12, 250 at 16 (madmom's value): at 16 salsa, reggae and funk were read at twice their tempo
 * on their eighth notes.
 */
const OBS_LAMBDA = 8;
const BEAT_REGION = 1;
const FLOOR = 1e-4;

export interface DecodedBeats {
  /** Beat times (s). */
  beats: number[];
  /** Index in `beats` of each beat's position in its bar (0 = downbeat). */
  positions: number[];
  beatsPerBar: 3 | 4;
  /** The activation at each beat (0..1), for the confidence. */
  strength: number[];
}

interface Path {
  logp: number;
  /** Per frame of 50 fps: the state's beat index (-1 inside a beat) at each beat start. */
  beatFrames: number[];
  beatPos: number[];
}

function decodeMeter(
  beat: Float64Array,
  down: Float64Array,
  m: number,
  obsLambda: number,
  prior: ArrayLike<number> | undefined,
  costs: TempoChangeCosts,
): Path {
  const tempoChange = costs.tempoChange ?? TEMPO_CHANGE;
  const oneFrameChange = costs.oneFrameChange ?? ONE_FRAME_CHANGE;
  const n = beat.length;
  const taus: number[] = [];
  for (let t = MIN_TAU; t <= MAX_TAU; t++) taus.push(t);
  const nt = taus.length;
  const offset: number[] = [];
  let total = 0;
  for (const tau of taus) {
    offset.push(total);
    total += m * tau;
  }
  // Tempo transition log probabilities, normalised per source period.
  const trans: Float64Array[] = taus.map((from) => {
    const row = new Float64Array(nt).fill(-Infinity);
    let sum = 0;
    taus.forEach((to, j) => {
      const r = Math.abs(to / from - 1);
      if (r < 0.25) {
        // A period of a fractional number of frames alternates between the two nearest: a
        // change of one frame costs little, larger ones as in madmom.
        row[j] = to === from ? 0 : Math.abs(to - from) === 1 ? -oneFrameChange : -tempoChange * r;
        sum += Math.exp(row[j]!);
      }
    });
    for (let j = 0; j < nt; j++) row[j] = row[j]! - Math.log(sum);
    return row;
  });
  const region = taus.map(() => BEAT_REGION);
  const transInto = taus.map((_, j) => Float64Array.from(taus, (__, i) => trans[i]![j]!));
  // The source periods that can reach each period (the others have probability 0).
  const from = taus.map((_, j) => {
    const ok = taus.map((_, i) => i).filter((i) => trans[i]![j]! > -Infinity);
    return [ok[0]!, ok.at(-1)!] as const;
  });
  // Inside a beat (past its first frame: BEAT_REGION is 1) every state moves on one frame and
  // observes "no beat" (lN), so a state's score is the score of its beat's first frame plus the
  // lN summed since. Each (period, beat of the bar) keeps, per frame its beat started, that first
  // frame's score minus cum[start] (cum: lN summed from frame 0) in a ring of tau slots: start s
  // lives in slot s mod tau, and the score at frame t of a beat started at s is ring + cum[t].
  // A frame then costs only the beat boundaries.
  const lN = new Float64Array(n);
  const lB = new Float64Array(n);
  const lD = new Float64Array(n);
  for (let t = 0; t < n; t++) {
    const b = Math.min(1 - FLOOR, Math.max(FLOOR, beat[t]!));
    const d = Math.max(FLOOR, Math.min(b, down[t]!));
    lD[t] = Math.log(d);
    lB[t] = Math.log(b);
    lN[t] = Math.log((1 - b) / (obsLambda - 1));
  }
  const cum = new Float64Array(n);
  cum[0] = lN[0]!;
  for (let t = 1; t < n; t++) cum[t] = cum[t - 1]! + lN[t]!;
  const ring = new Float64Array(total);
  const back = new Uint8Array(n * m * nt);
  // The first frame: observations only. A state at phase ph > 0 began its beat at frame -ph.
  const init = -Math.log(total);
  for (let i = 0; i < nt; i++) {
    const tau = taus[i]!;
    for (let k = 0; k < m; k++) {
      for (let ph = 0; ph < tau; ph++) {
        const score = init + (ph < region[i]! ? (k === 0 ? lD[0]! : lB[0]!) : lN[0]!);
        ring[offset[i]! + k * tau + ((tau - (ph % tau)) % tau)] = score - cum[0]!;
      }
    }
  }
  const endScore = new Float64Array(m * nt);
  for (let t = 1; t < n; t++) {
    // The last frame (at t - 1) of each beat k of each period: it began at t - tau, slot t mod tau.
    for (let i = 0; i < nt; i++) {
      const tau = taus[i]!;
      const slot = t % tau;
      for (let k = 0; k < m; k++) endScore[k * nt + i] = ring[offset[i]! + k * tau + slot]! + cum[t - 1]!;
    }
    for (let k = 0; k < m; k++) {
      const kPrev = ((k + m - 1) % m) * nt;
      const ob = (k === 0 ? lD[t]! : lB[t]!) - cum[t]!;
      for (let j = 0; j < nt; j++) {
        let best = -Infinity;
        let arg = 0;
        const [iLo, iHi] = from[j]!;
        const into = transInto[j]!;
        for (let i = iLo; i <= iHi; i++) {
          const s = endScore[kPrev + i]! + into[i]!;
          if (s > best) {
            best = s;
            arg = i;
          }
        }
        const tau = taus[j]!;
        ring[offset[j]! + k * tau + (t % tau)] = best + ob + (prior ? prior[j]! : 0);
        back[(t * m + k) * nt + j] = arg;
      }
    }
  }
  // Best final state, then back along the path.
  let best = -Infinity;
  let ti = 0;
  let p = 0;
  for (let i = 0; i < nt; i++) {
    const tau = taus[i]!;
    for (let k = 0; k < m; k++) {
      for (let slot = 0; slot < tau; slot++) {
        const sc = ring[offset[i]! + k * tau + slot]! + cum[n - 1]!;
        if (sc > best) {
          best = sc;
          ti = i;
          p = k * tau + ((n - 1 - slot + tau * n) % tau);
        }
      }
    }
  }
  const beatFrames: number[] = [];
  const beatPos: number[] = [];
  for (let t = n - 1; t >= 0; t--) {
    const tau = taus[ti]!;
    const ph = p % tau;
    if (ph === 0) {
      const k = p / tau;
      beatFrames.push(t);
      beatPos.push(k);
      if (t > 0) {
        ti = back[(t * m + k) * nt + ti]!;
        p = (((k + m - 1) % m) + 1) * taus[ti]! - 1;
      }
    } else {
      p -= 1;
    }
  }
  return { logp: best, beatFrames: beatFrames.reverse(), beatPos: beatPos.reverse() };
}

/**
 * A curve at `fps` frames per second pooled to DBN_FPS: frames in groups of fps / DBN_FPS, by
 * their maximum (an activation, as the decoding reads it) or their sum.
 */
export function pooledToDbnFps(x: ArrayLike<number>, fps: number, how: 'max' | 'sum'): Float64Array {
  const ratio = Math.max(1, Math.round(fps / DBN_FPS));
  const p = new Float64Array(Math.ceil(x.length / ratio));
  for (let i = 0; i < x.length; i++) {
    const j = Math.floor(i / ratio);
    p[j] = how === 'max' ? Math.max(p[j]!, x[i]!) : p[j]! + x[i]!;
  }
  return p;
}

/** The 100 fps activation's peak within `half` frames of frame c (sub-frame), and its height. */
function refine(act: Float32Array, c: number, half: number): { frame: number; height: number } {
  let bi = Math.max(0, Math.min(act.length - 1, c));
  for (let i = Math.max(0, c - half); i <= Math.min(act.length - 1, c + half); i++) if (act[i]! > act[bi]!) bi = i;
  const off = bi > 0 && bi < act.length - 1 ? parabolicPeakOffset(act[bi - 1]!, act[bi]!, act[bi + 1]!) : 0;
  return { frame: bi + off, height: act[bi]! };
}

/**
 * Leading and trailing decoded beats under this activation are dropped (decodeBeats' `edge`): the
 * noise or a pad before the music starts, a fade's last breaths. (Higher bounds, tried on the
 * validation songs, cost quiet intros their real beats: docs/beat-bench.md.)
 */
export const EDGE_BEAT = 0.1;

/**
 * Beats, downbeats and meter from the model's activations at `fps` (100) frames per second.
 * Leading and trailing beats whose activation stays under `edge` are dropped (silence before or
 * after the music). `obsLambda` (OBS_LAMBDA unless given: tools/beat-model/validate.mjs tries
 * others on the validation songs) weighs a frame's activation against its having no beat: the
 * higher it is, the weaker an activation (an off-beat, say) that can count as a beat.
 * `tempoPrior`, when given, is a log weight per beat period MIN_TAU..MAX_TAU (frames of DBN_FPS)
 * added at every beat the path places at that period (beat-tempo-prior.ts: the tempo network's
 * belief, scaled), so a level the music's whole course argues against costs at every beat.
 * `costs`: other tempo-change costs than TEMPO_CHANGE and ONE_FRAME_CHANGE (validate.mjs).
 */
export function decodeBeats(
  beat: Float32Array,
  down: Float32Array,
  fps: number,
  edge = EDGE_BEAT,
  obsLambda = OBS_LAMBDA,
  tempoPrior?: ArrayLike<number>,
  costs: TempoChangeCosts = {},
): DecodedBeats {
  if (tempoPrior && tempoPrior.length !== MAX_TAU - MIN_TAU + 1)
    throw new RangeError(`tempoPrior must have ${MAX_TAU - MIN_TAU + 1} values (got ${tempoPrior.length})`);
  if (!(obsLambda > 1)) throw new RangeError(`obsLambda must be above 1 (got ${obsLambda})`);
  for (const [name, v] of Object.entries(costs))
    if (v !== undefined && !(v >= 0)) throw new RangeError(`${name} must be at least 0 (got ${v})`);
  const ratio = Math.round(fps / DBN_FPS);
  const b50 = pooledToDbnFps(beat, fps, 'max');
  const d50 = pooledToDbnFps(down, fps, 'max');
  const n = b50.length;
  if (n < 2 * MAX_TAU) {
    return { beats: [], positions: [], beatsPerBar: 4, strength: [] };
  }
  const three = decodeMeter(b50, d50, 3, obsLambda, tempoPrior, costs);
  const four = decodeMeter(b50, d50, 4, obsLambda, tempoPrior, costs);
  const best = three.logp > four.logp ? three : four;
  const half = Math.round(0.03 * fps);
  const placed = best.beatFrames.map((f) => refine(beat, f * ratio + Math.floor(ratio / 2), half));
  let lo = 0;
  let hi = placed.length;
  while (lo < hi && placed[lo]!.height < edge) lo++;
  while (hi > lo && placed[hi - 1]!.height < edge) hi--;
  const beats: number[] = [];
  const positions: number[] = [];
  const strength: number[] = [];
  for (let i = lo; i < hi; i++) {
    const t = Math.round((placed[i]!.frame / fps) * 1e6) / 1e6;
    if (beats.length && t <= beats.at(-1)! + 0.05) continue;
    beats.push(t);
    positions.push(best.beatPos[i]!);
    strength.push(placed[i]!.height);
  }
  return { beats, positions, beatsPerBar: best === three ? 3 : 4, strength };
}

/**
 * The decoded beats with each weak one (activation under `below`) placed on the grid of the strong
 * beats around it: between two strong beats at an even share of the time between them, before the
 * first or after the last at the period of the two nearest strong beats. Where the activation is
 * weak its peak says little about when the beat is (a sparse intro's pad, a break), and the
 * decoding then follows whichever faint peak lies nearest; the strong beats' tempo says more.
 * The beats keep their count, positions and strength. (They stay in order and more than 50 ms
 * apart: decodeBeats keeps its beats so, and an even share or a neighbours' period between two of
 * them is no shorter than their shortest gap.)
 */
export function regridWeakBeats(d: DecodedBeats, below: number): DecodedBeats {
  const strong = d.strength.map((s, i) => (s >= below ? i : -1)).filter((i) => i >= 0);
  if (!(below > 0) || strong.length < 2 || strong.length === d.beats.length) return d;
  const at = (i: number) => d.beats[i]!;
  const beats = d.beats.map((t, i) => {
    if (d.strength[i]! >= below) return t;
    const k = strong.findIndex((s) => s > i);
    if (k > 0) {
      const p = strong[k - 1]!;
      const q = strong[k]!;
      return at(p) + ((i - p) * (at(q) - at(p))) / (q - p);
    }
    // Before the first strong beat (k === 0) or after the last (k === -1): the nearest two's period.
    const [p, q] = k === 0 ? [strong[0]!, strong[1]!] : [strong.at(-2)!, strong.at(-1)!];
    const period = (at(q) - at(p)) / (q - p);
    return k === 0 ? at(p) - (p - i) * period : at(q) + (i - q) * period;
  });
  return { ...d, beats: beats.map((t) => Math.round(t * 1e6) / 1e6) };
}
