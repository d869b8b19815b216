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
