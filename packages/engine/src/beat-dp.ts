/** Beat tracking, step 3: dynamic programming over the envelope (the design is in beat-tracker.ts). */

/** Ellis' "tightness": how strongly beat intervals keep to the local period. */
const TIGHTNESS = 300;

/**
 * Step 3: Ellis' dynamic programming with a local period band; returns beat hops, ascending.
 * An interval outside [lo, hi] costs TIGHTNESS * ln(ratio to the band)^2; inside it, a tenth of
 * that against the local period itself, so that without onsets the beats keep the local period.
 */
export function dpBeats(o: Float64Array, band: { lo: Float64Array; hi: Float64Array; mid: Float64Array }): number[] {
  const n = o.length;
  const score = new Float64Array(n);
  const prev = new Int32Array(n).fill(-1);
  // ln of every interval length in hops, looked up rather than computed in the inner loop.
  let maxD = 2;
  for (let t = 0; t < n; t++) maxD = Math.max(maxD, Math.ceil(2 * band.hi[t]!) + 1);
  const ln = new Float64Array(maxD + 1);
  for (let d = 1; d <= maxD; d++) ln[d] = Math.log(d);
  for (let t = 0; t < n; t++) {
    const lo = band.lo[t]!;
    const hi = band.hi[t]!;
    const lnLo = Math.log(lo);
    const lnHi = Math.log(hi);
    const lnMid = Math.log(band.mid[t]!);
    const from = Math.max(0, Math.floor(t - 2 * hi));
    const to = Math.floor(t - lo / 2);
    let best = 0;
    let bi = -1;
    for (let p = from; p <= to; p++) {
      const d = t - p;
      const l = ln[d]!;
      const r = d < lo ? l - lnLo : d > hi ? l - lnHi : 0;
      const q = l - lnMid;
      const v = score[p]! - TIGHTNESS * (r * r + 0.1 * q * q);
      if (v > best) {
        best = v;
        bi = p;
      }
    }
    score[t] = o[t]! + best;
    prev[t] = bi;
  }
  // The chain ends at the best score within the last period.
  const lastT = band.hi[n - 1] ?? 1;
  let end = n - 1;
  for (let t = Math.max(0, Math.floor(n - lastT)); t < n; t++) if (score[t]! > score[end]!) end = t;
  const beats: number[] = [];
  for (let t = end; t >= 0; t = prev[t]!) beats.push(t);
  return beats.reverse();
}

/** The local period (hops) from tracked beats: median of the intervals around each beat. */
export function periodFromBeats(beats: number[], n: number, fallback: Float64Array): Float64Array {
  if (beats.length < 6) return fallback;
  const iv = beats.slice(1).map((b, i) => b - beats[i]!);
  const local = beats.map((_, i) => {
    const w = iv.slice(Math.max(0, i - 3), Math.min(iv.length, i + 3)).sort((a, b) => a - b);
    return w[Math.floor(w.length / 2)]!;
  });
  const out = new Float64Array(n);
  let j = 0;
  for (let t = 0; t < n; t++) {
    while (j + 1 < beats.length && beats[j + 1]! <= t) j++;
    const p = local[j]!;
    // Keep the tempo curve where the tracked beats disagree with it by an octave (skipped beats).
    const f = fallback[t]!;
    out[t] = p > f * 1.5 || p < f / 1.5 ? f : p;
  }
  return out;
}

/**
 * Beats without an onset under them (a break, a quiet passage) between two beats that have one
 * are spaced evenly between those two: the tempo carries through and the beat resumes in phase.
 */
export function evenOutUnsupported(beats: number[], supported: boolean[]): void {
  let i = 0;
  while (i < beats.length) {
    if (supported[i]) {
      i++;
      continue;
    }
    let j = i;
    while (j < beats.length && !supported[j]) j++;
    if (i > 0 && j < beats.length && j - i >= 2) {
      const a = beats[i - 1]!;
      const step = (beats[j]! - a) / (j - i + 1);
      for (let k = i; k < j; k++) beats[k] = a + (k - i + 1) * step;
    }
    i = j;
  }
}

/** Beats either side of a beat in the local fit of `smoothSteadyBeats`. */
export const SMOOTH_SIDE = 6;
/** The local fit is used only where its residuals' root mean square is under this (seconds). */
export const SMOOTH_MAX_RMS = 0.03;
/** ... and moves a beat at most this far (seconds). */
export const SMOOTH_MAX_MOVE = 0.06;
/** How far a beat moves towards the fit: halfway. */
export const SMOOTH_WEIGHT = 0.5;

/**
 * Each beat of a steady stretch moved halfway (SMOOTH_WEIGHT) towards the quadratic through its
 * neighbourhood (the beat and SMOOTH_SIDE beats either side, least squares over the beat index).
 * A beat sits on the onset the envelope shows, and one instrument's note that speaks late (in the
 * bench corpus a sampled bass note sounds 50 ms after the score's beat, four beats running, while
 * the hats keep time) moves that onset off the pulse the rest of the band keeps. Halfway, because
 * where the whole band moves together (a live drummer's push and pull) the onset is the beat. A
 * quadratic follows a ramp; where the fit is poor (a tempo step, rubato: residual RMS of
 * SMOOTH_MAX_RMS or more) or the move would exceed SMOOTH_MAX_MOVE, the beat stays.
 */
export function smoothSteadyBeats(beats: number[]): number[] {
  const n = beats.length;
  if (n < 2 * SMOOTH_SIDE + 1) return beats;
  return beats.map((b, i) => {
    const lo = Math.max(0, Math.min(i - SMOOTH_SIDE, n - 2 * SMOOTH_SIDE - 1));
    const hi = lo + 2 * SMOOTH_SIDE;
    // Least squares of t = c0 + c1 x + c2 x^2 with x the index relative to i.
    const s = new Float64Array(5);
    const r = new Float64Array(3);
    for (let j = lo; j <= hi; j++) {
      const x = j - i;
      const t = beats[j]! - b;
      let p = 1;
      for (let k = 0; k < 5; k++) {
        s[k]! += p;
        if (k < 3) r[k]! += p * t;
        p *= x;
      }
    }
    const coef = solve3(
      [
        [s[0]!, s[1]!, s[2]!],
        [s[1]!, s[2]!, s[3]!],
        [s[2]!, s[3]!, s[4]!],
      ],
      [r[0]!, r[1]!, r[2]!],
    );
    if (!coef) return b;
    let sq = 0;
    for (let j = lo; j <= hi; j++) {
      const x = j - i;
      sq += (beats[j]! - b - (coef[0]! + coef[1]! * x + coef[2]! * x * x)) ** 2;
    }
    const rms = Math.sqrt(sq / (hi - lo + 1));
    if (!(rms < SMOOTH_MAX_RMS) || Math.abs(coef[0]!) > SMOOTH_MAX_MOVE) return b;
    // Never before the track's start (a first beat at 0 is not pulled below it).
    return Math.max(0, b + SMOOTH_WEIGHT * coef[0]!);
  });
}

/** Solves a 3x3 linear system by Cramer's rule (undefined when singular). */
function solve3(a: number[][], y: number[]): number[] | undefined {
  const det = (m: number[][]) =>
    m[0]![0]! * (m[1]![1]! * m[2]![2]! - m[1]![2]! * m[2]![1]!) -
    m[0]![1]! * (m[1]![0]! * m[2]![2]! - m[1]![2]! * m[2]![0]!) +
    m[0]![2]! * (m[1]![0]! * m[2]![1]! - m[1]![1]! * m[2]![0]!);
  const d = det(a);
  if (!(Math.abs(d) > 1e-12)) return undefined;
  return [0, 1, 2].map((c) => det(a.map((row, k) => row.map((v, j) => (j === c ? y[k]! : v)))) / d);
}
