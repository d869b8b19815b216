/**
 * The tempo prior of the learned beat tracking: a small network, trained by
 * tools/beat-model/train-tempo.py on generated songs the beat model never trained on, that reads
 * how the whole song repeats and gives a probability per beat period of the decoding (beat-dbn.ts,
 * MIN_TAU..MAX_TAU frames at DBN_FPS). The decoding adds its log, scaled, at every beat it places
 * (Boeck, Davies and Knees 2019 inform the beat decoding with a tempo network the same way).
 *
 * Its input is the normalised autocorrelation, over one lag range of beat periods and one of bar
 * periods, of: the beat activation; the downbeat activation; and the summed spectral rises of the
 * low, middle and high thirds of the bands (beat-features.ts's second half: the kick and bass, the
 * snare and chords, the hats). Which of the periods the activations repeat at is the beat is what
 * a song's sound says (a salsa's eighth notes, a trap beat's half-time snare), learned from many
 * songs rather than set per style.
 *
 * The same function computes the input for training (tools/beat-model/tempo-data.mjs) and for
 * the engine, so the two cannot drift apart.
 */
import fs from 'node:fs';
import path from 'node:path';
import { MAX_TAU, MIN_TAU, pooledToDbnFps } from './beat-dbn.js';

export const TEMPO_PRIOR_FILE = path.join(__dirname, '..', 'models', 'tempo-prior.json');

/** Lags (frames at DBN_FPS) of the beat-level autocorrelations: 0.2-2.6 s. */
const BEAT_LAGS = { from: 10, to: 130, step: 1 };
/** Lags of the downbeat activation's autocorrelation (bar periods): 0.4-5.2 s. */
const BAR_LAGS = { from: 20, to: 260, step: 2 };
/** The number of spectral band groups whose rises are curves of the input. */
const GROUPS = 3;
const lagCount = (l: typeof BEAT_LAGS) => Math.floor((l.to - l.from) / l.step) + 1;
/** The input's length: the beat activation, GROUPS rise curves, then the downbeat activation. */
export const TEMPO_INPUT_SIZE = (1 + GROUPS) * lagCount(BEAT_LAGS) + lagCount(BAR_LAGS);

/** What the prior reads of a song: curves at `fps` frames per second. */
export interface TempoCurves {
  beat: ArrayLike<number>;
  downbeat: ArrayLike<number>;
  /** The summed spectral rises of the low, middle and high thirds of the bands (riseCurves). */
  rises: ArrayLike<number>[];
  fps: number;
}

/**
 * The summed spectral rises (beat-features.ts's second half) of the low, middle and high thirds
 * of the bands, per frame; `data` is the features, channel-major [2 * bands][frames].
 */
export function riseCurves(data: Float32Array, bands: number, frames: number): Float32Array[] {
  const out: Float32Array[] = [];
  for (let g = 0; g < GROUPS; g++) {
    const c = new Float32Array(frames);
    const lo = Math.round((g * bands) / GROUPS);
    const hi = Math.round(((g + 1) * bands) / GROUPS);
    for (let b = lo; b < hi; b++) {
      const row = (bands + b) * frames;
      for (let t = 0; t < frames; t++) c[t]! += data[row + t]!;
    }
    out.push(c);
  }
  return out;
}

/**
 * A curve at DBN_FPS: frames pooled in groups of fps / DBN_FPS (the maximum for an activation, as
 * the decoding pools it; the sum for a rise curve), read at time t * stretch (`stretch` > 1 plays
 * the song faster: training's tempo augmentation, 1 in the engine).
 */
function pooled(x: ArrayLike<number>, fps: number, max: boolean, stretch: number): Float64Array {
  const p = pooledToDbnFps(x, fps, max ? 'max' : 'sum');
  const n = p.length;
  if (stretch === 1) return p;
  const m = Math.max(2, Math.floor((n - 1) / stretch) + 1);
  const s = new Float64Array(m);
  for (let i = 0; i < m; i++) {
    const u = Math.min(n - 1, i * stretch);
    const k = Math.floor(u);
    const f = u - k;
    s[i] = p[k]! * (1 - f) + (k + 1 < n ? p[k + 1]! : p[k]!) * f;
  }
  return s;
}

/** The normalised autocorrelation of x (its mean removed) at the lags of `l`, into out at `at`. */
function autocorrelation(x: Float64Array, l: typeof BEAT_LAGS, out: Float32Array, at: number): void {
  const n = x.length;
  let mean = 0;
  for (let i = 0; i < n; i++) mean += x[i]!;
  mean /= Math.max(1, n);
  const y = new Float64Array(n);
  let energy = 0;
  for (let i = 0; i < n; i++) {
    y[i] = x[i]! - mean;
    energy += y[i]! * y[i]!;
  }
  let o = at;
  for (let lag = l.from; lag <= l.to; lag += l.step) {
    let acc = 0;
    for (let i = 0; i + lag < n; i++) acc += y[i]! * y[i + lag]!;
    // Per overlapping frame, so a long lag on a short song is not shrunk towards 0.
    out[o++] = energy > 0 && n > lag ? (acc / (n - lag)) * (n / energy) : 0;
  }
}

/** The prior network's input for a song (TEMPO_INPUT_SIZE values); `stretch` as in pooled. */
export function tempoPriorInput(c: TempoCurves, stretch = 1): Float32Array {
  if (c.rises.length !== GROUPS) throw new RangeError(`tempo prior: ${GROUPS} rise curves expected (got ${c.rises.length})`);
  const out = new Float32Array(TEMPO_INPUT_SIZE);
  const nb = lagCount(BEAT_LAGS);
  autocorrelation(pooled(c.beat, c.fps, true, stretch), BEAT_LAGS, out, 0);
  c.rises.forEach((r, g) => autocorrelation(pooled(r, c.fps, false, stretch), BEAT_LAGS, out, (1 + g) * nb));
  autocorrelation(pooled(c.downbeat, c.fps, true, stretch), BAR_LAGS, out, (1 + GROUPS) * nb);
  return out;
}

/** The trained network (train-tempo.py's JSON): standardisation, one hidden layer, the output. */
export interface TempoPriorModel {
  inputs: number;
  hidden: number;
  /** The output's periods: MIN_TAU..MAX_TAU. */
  taus: number[];
  mean: number[];
  std: number[];
  /** hidden x inputs, row-major. */
  w1: number[];
  b1: number[];
  /** taus x hidden, row-major. */
  w2: number[];
  b2: number[];
}

const loaded = new Map<string, TempoPriorModel | null>();

/** The model in `file` (TEMPO_PRIOR_FILE by default), read once; null when there is none. */
export function tempoPriorModel(file = TEMPO_PRIOR_FILE): TempoPriorModel | null {
  if (!loaded.has(file)) {
    let m: TempoPriorModel | null = null;
    if (fs.existsSync(file)) {
      m = JSON.parse(fs.readFileSync(file, 'utf8')) as TempoPriorModel;
      const nt = MAX_TAU - MIN_TAU + 1;
      if (m.inputs !== TEMPO_INPUT_SIZE || m.taus.length !== nt || m.taus[0] !== MIN_TAU || m.w2.length !== nt * m.hidden)
        throw new Error(`${file}: not a tempo prior for this input (${TEMPO_INPUT_SIZE} values) and these periods (${MIN_TAU}-${MAX_TAU})`);
      const sizes: [number[], number][] = [
        [m.mean, m.inputs],
        [m.std, m.inputs],
        [m.w1, m.inputs * m.hidden],
        [m.b1, m.hidden],
        [m.b2, nt],
      ];
      const finite = (xs: number[]) => xs.every((x) => Number.isFinite(x));
      if (sizes.some(([xs, n]) => xs.length !== n || !finite(xs)) || !finite(m.w2) || !m.std.every((x) => x > 0))
        throw new Error(`${file}: a tempo prior with missing or unusable weights (a size, a non-finite value, a deviation of 0)`);
    }
    loaded.set(file, m);
  }
  return loaded.get(file)!;
}

/** The network's probability of each beat period MIN_TAU..MAX_TAU for this input. */
export function tempoProbabilities(model: TempoPriorModel, input: Float32Array): Float64Array {
  const h = new Float64Array(model.hidden);
  for (let j = 0; j < model.hidden; j++) {
    let acc = model.b1[j]!;
    const row = j * model.inputs;
    for (let i = 0; i < model.inputs; i++) acc += model.w1[row + i]! * ((input[i]! - model.mean[i]!) / model.std[i]!);
    h[j] = acc > 0 ? acc : Math.expm1(acc); // ELU
  }
  const nt = model.taus.length;
  const z = new Float64Array(nt);
  let top = -Infinity;
  for (let k = 0; k < nt; k++) {
    let acc = model.b2[k]!;
    for (let j = 0; j < model.hidden; j++) acc += model.w2[k * model.hidden + j]! * h[j]!;
    z[k] = acc;
    top = Math.max(top, acc);
  }
  let sum = 0;
  for (let k = 0; k < nt; k++) sum += z[k] = Math.exp(z[k]! - top);
  for (let k = 0; k < nt; k++) z[k]! /= sum;
  return z;
}

/** The smallest probability the prior's log reads (a period the network rules out still costs only this). */
const PRIOR_FLOOR = 1e-3;

/**
 * How far (a ratio of periods) a period takes the probability of its neighbours: the prior judges
 * the metrical level, not the tempo within it, so a ramp, a step or rubato around the song's
 * median tempo costs nothing. (On the validation songs without it, every weight above 0.25 lost
 * songs: ramps and rubato were pulled to the median tempo. 1.22 is under half the way, in log
 * terms, from one level to 3/2 of it.)
 */
export const PRIOR_SPREAD = 1.22;

/**
 * The decoding's tempo prior (beat-dbn.ts's `tempoPrior`): `weight` times the log of each period's
 * probability (the highest within a ratio of `spread` of it) over the likeliest's, floored at
 * PRIOR_FLOOR; 0 for the periods the network believes most, negative for the others.
 */
export function tempoLogPrior(p: Float64Array, weight: number, spread = PRIOR_SPREAD): Float64Array {
  const near = p.map((_, j) => {
    let m = 0;
    for (let k = 0; k < p.length; k++) {
      const r = (MIN_TAU + k) / (MIN_TAU + j);
      if (r <= spread && r >= 1 / spread) m = Math.max(m, p[k]!);
    }
    return m;
  });
  let top = 0;
  for (const v of near) top = Math.max(top, v);
  return near.map((v) => weight * Math.log(Math.max(PRIOR_FLOOR, v) / Math.max(PRIOR_FLOOR, top)));
}
