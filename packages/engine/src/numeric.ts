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
