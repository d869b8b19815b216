/** Beat tracking, step 2: the local tempo curve (the design is in beat-tracker.ts). */
import type { Envelope } from './beat-envelopes.js';
import { parabolicPeakOffset } from './numeric.js';

/** Brings a tempo into 70..180 BPM by octaves. */
export function normaliseBpm(bpm: number): number {
  if (!(bpm > 0)) return 0;
  let b = bpm;
  while (b < 70) b *= 2;
  while (b > 180) b /= 2;
  return b;
}

export const MIN_BPM = 70;
export const MAX_BPM = 180;
/** Centre of the tempo prior: the tempo people tap when the music allows either octave. */
export const PRIOR_BPM = 110;
const WINDOW_SEC = 8;
const WINDOW_STEP_SEC = 1;
/** Viterbi cost of a tempo change, per unit of |ln(ratio)|, in units of normalised salience. */
const TEMPO_CHANGE_COST = 4;
/** Seconds either side of a hop whose tempo estimates its beat interval may follow. */
export const BAND_SEC = 2;

/**
 * The salience of a beat period of `lag` (autocorrelation `ac`, valid below `len`): the
 * autocorrelation there, plus half of it two beats on and a quarter four beats on (a beat repeats
 * at two beats and at the bar, an eighth note does not carry the bar). Two and four beats on, the
 * best lag within the rounding of the lag is taken (one lag of 11.6 ms is two and four of them
 * there): a bar's repetition is sharp, and 4 x a rounded lag can miss it by 13 ms (a funk song at
 * 98 BPM lost to the 4:5 level that way).
 */
export function lagSalience(ac: ArrayLike<number>, lag: number, len: number): number {
  const near = (c: number, r: number) => {
    let v = -Infinity;
    for (let l = c - r; l <= c + r; l++) if (l < len && l < ac.length) v = Math.max(v, ac[l]!);
    return Number.isFinite(v) ? v : 0;
  };
  return Math.max(0, lag < len ? ac[lag]! : 0) + 0.5 * Math.max(0, near(2 * lag, 1)) + 0.25 * Math.max(0, near(4 * lag, 2));
}

/**
 * Step 2: the local beat period, in hops, for every hop of the envelope. `seedBpm` (aubio's
 * global estimate, 0 if none) gets a small bonus.
 */
export function tempoCurve(env: Envelope, seedBpm = 0): Float64Array {
  // Autocorrelation on a 2x decimated envelope: 11.6 ms lags, parabolic interpolation after.
  const src = env.values;
  const m = Math.floor(src.length / 2);
  const d = new Float32Array(m);
  for (let i = 0; i < m; i++) d[i] = src[2 * i]! + src[2 * i + 1]!;
  const hop = env.hopSec * 2;
  const minLag = Math.floor(60 / MAX_BPM / hop);
  const maxLag = Math.ceil(60 / MIN_BPM / hop);
  const lags = maxLag - minLag + 1;
  const win = Math.max(Math.round(WINDOW_SEC / hop), 4 * maxLag + 2);
  const step = Math.round(WINDOW_STEP_SEC / hop);
  const starts: number[] = [];
  if (m <= win) starts.push(0);
  else {
    for (let s = 0; s + win <= m; s += step) starts.push(s);
    if (starts.at(-1)! + win < m) starts.push(m - win);
  }
  const seed = normaliseBpm(seedBpm);
  const prior = new Float64Array(lags);
  for (let k = 0; k < lags; k++) {
    const bpm = 60 / ((minLag + k) * hop);
    const oct = Math.log2(bpm / PRIOR_BPM);
    let w = Math.exp(-0.5 * oct * oct);
    if (seed) w *= 1 + 0.25 * Math.exp(-0.5 * (Math.log2(bpm / seed) / 0.03) ** 2);
    prior[k] = w;
  }
  const ac = new Float64Array(4 * maxLag + 3);
  const buf = new Float64Array(win);
  const obs: Float64Array[] = [];
  const sal: Float64Array[] = [];
  const maxima: number[] = [];
  for (const s of starts) {
    const len = Math.min(win, m - s);
    let mean = 0;
    for (let i = 0; i < len; i++) mean += d[s + i]!;
    mean /= Math.max(1, len);
    for (let i = 0; i < len; i++) buf[i] = d[s + i]! - mean;
    for (let lag = minLag; lag <= Math.min(4 * maxLag + 2, len - 1); lag++) {
      let a = 0;
      for (let i = lag; i < len; i++) a += buf[i]! * buf[i - lag]!;
      ac[lag] = a / (len - lag);
    }
    const row = new Float64Array(lags);
    let max = 1e-12;
    for (let k = 0; k < lags; k++) {
      const lag = minLag + k;
      const v = lagSalience(ac, lag, len) * prior[k]!;
      row[k] = v;
      if (v > max) max = v;
    }
    sal.push(row);
    maxima.push(max);
  }
  // Evidence is normalised by a typical window's, not each window's own: a window without a
  // pulse (a break, silence) then has little say and the tempo carries through it.
  const typical = [...maxima].sort((a, b) => a - b)[Math.floor(maxima.length / 2)]!;
  for (const row of sal) {
    const o = new Float64Array(lags);
    for (let k = 0; k < lags; k++) o[k] = Math.min(1.5, row[k]! / typical);
    obs.push(o);
  }
  // Viterbi over the windows.
  const n = obs.length;
  const back = obs.map(() => new Int32Array(lags));
  let score = Float64Array.from(obs[0]!);
  const logLag = new Float64Array(lags);
  for (let k = 0; k < lags; k++) logLag[k] = Math.log(minLag + k);
  for (let w = 1; w < n; w++) {
    const next = new Float64Array(lags);
    for (let k = 0; k < lags; k++) {
      let best = -Infinity;
      let bi = k;
      for (let j = 0; j < lags; j++) {
        const v = score[j]! - TEMPO_CHANGE_COST * Math.abs(logLag[k]! - logLag[j]!);
        if (v > best) {
          best = v;
          bi = j;
        }
      }
      next[k] = best + obs[w]![k]!;
      back[w]![k] = bi;
    }
    score = next;
  }
  let k = 0;
  for (let j = 1; j < lags; j++) if (score[j]! > score[k]!) k = j;
  const path = new Float64Array(n);
  for (let w = n - 1; w >= 0; w--) {
    // Sub-lag precision from the salience around the chosen lag.
    const row = sal[w]!;
    const off = k > 0 && k < lags - 1 ? parabolicPeakOffset(row[k - 1]!, row[k]!, row[k + 1]!) : 0;
    path[w] = (minLag + k + off) * 2; // back to envelope hops
    if (w > 0) k = back[w]![k]!;
  }
  // Per hop, interpolated between window centres.
  const out = new Float64Array(src.length);
  const centres = starts.map((s) => (s + Math.min(win, m - s) / 2) * 2);
  let w = 0;
  for (let i = 0; i < out.length; i++) {
    while (w + 1 < n && centres[w + 1]! <= i) w++;
    if (i <= centres[0]! || w + 1 >= n) out[i] = path[Math.min(w, n - 1)]!;
    else {
      const f = (i - centres[w]!) / (centres[w + 1]! - centres[w]!);
      out[i] = path[w]! * (1 - f) + path[w + 1]! * f;
    }
  }
  return out;
}

/**
 * The range of the period around each hop: min and max over +-`halfHops`. A tempo change is only
 * known to within a window, so the beat intervals may keep to either tempo near it.
 */
export function periodBand(period: Float64Array, halfHops: number): { lo: Float64Array; hi: Float64Array; mid: Float64Array } {
  const n = period.length;
  const lo = new Float64Array(n);
  const hi = new Float64Array(n);
  // The curve is sampled coarsely enough that a stride keeps this cheap.
  const stride = Math.max(1, Math.floor(halfHops / 16));
  for (let t = 0; t < n; t++) {
    let a = Infinity,
      b = 0;
    for (let u = Math.max(0, t - halfHops); u <= Math.min(n - 1, t + halfHops); u += stride) {
      const v = period[u]!;
      if (v < a) a = v;
      if (v > b) b = v;
    }
    lo[t] = Math.min(a, period[t]!);
    hi[t] = Math.max(b, period[t]!);
  }
  return { lo, hi, mid: period };
}
