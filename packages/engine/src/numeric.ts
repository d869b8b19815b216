/** Small numeric helpers the engine and its benches share (pure: no I/O). */

/** A small deterministic random generator (mulberry32): the same seed gives the same sequence. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The middle value of `xs` (of an even count, the upper of the two middle ones); 0 for none. */
export function upperMedian(xs: ArrayLike<number>): number {
  const s = Array.from(xs).sort((a, b) => a - b);
  return s[s.length >> 1] ?? 0;
}

/**
 * Mean beat period by least squares over the beat index, so a steady track's tempo is exact;
 * `fallback` with fewer than two beats.
 */
export function meanPeriod(beats: number[], fallback: number): number {
  const k = beats.length;
  if (k < 2) return fallback;
  let sx = 0,
    sy = 0,
    sxx = 0,
    sxy = 0;
  beats.forEach((t, i) => {
    sx += i;
    sy += t;
    sxx += i * i;
    sxy += i * t;
  });
  return (k * sxy - sx * sy) / (k * sxx - sx * sx);
}

/**
 * Sub-sample offset (-0.5..0.5) of the peak of the parabola through (-1, a), (0, b), (1, c): where
 * a sampled peak at b really lies. 0 when the three samples do not make a peak.
 */
export function parabolicPeakOffset(a: number, b: number, c: number): number {
  const den = a - 2 * b + c;
  return den < 0 ? Math.max(-0.5, Math.min(0.5, (0.5 * (a - c)) / den)) : 0;
}

/**
 * The neighbours of `t` in ascending, non-empty `xs` by binary search: [lo, hi] with hi = lo + 1 and
 * xs[lo] <= t < xs[hi], clamped to the first and last pair ([0, 0] for a single value).
 */
export function bracket(xs: ArrayLike<number>, t: number): [number, number] {
  let lo = 0,
    hi = xs.length - 1;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (xs[mid]! <= t) lo = mid;
    else hi = mid;
  }
  return [lo, hi];
}

/**
 * Cosine similarity of two vectors of the same length (chroma vectors, for instance): 1 for the
 * same direction, 0 for orthogonal ones; `whenSilent` when either has no length.
 */
export function cosineSimilarity(a: ArrayLike<number>, b: ArrayLike<number>, whenSilent = 0): number {
  let d = 0,
    na = 0,
    nb = 0;
  for (let k = 0; k < a.length; k++) {
    d += a[k]! * b[k]!;
    na += a[k]! * a[k]!;
    nb += b[k]! * b[k]!;
  }
  return na > 0 && nb > 0 ? d / Math.sqrt(na * nb) : whenSilent;
}
