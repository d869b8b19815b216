/** Measures of tracked beats against true beats, for the benches and tests. */

/** F-measure of detected beats against reference beats at `toleranceSec` (each matched once). */
export function beatFMeasure(detected: number[], reference: number[], toleranceSec = 0.07): number {
  if (!detected.length || !reference.length) return 0;
  let i = 0,
    j = 0,
    hits = 0;
  while (i < detected.length && j < reference.length) {
    const d = detected[i]! - reference[j]!;
    if (Math.abs(d) <= toleranceSec) {
      hits++;
      i++;
      j++;
    } else if (d < 0) i++;
    else j++;
  }
  const p = hits / detected.length;
  const r = hits / reference.length;
  return p + r ? (2 * p * r) / (p + r) : 0;
}

/** Share of `reference` beats that have a detected beat within `toleranceSec`. */
export function beatAccuracy(detected: number[], reference: number[], toleranceSec = 0.05): number {
  if (!reference.length) return 0;
  let j = 0;
  let hits = 0;
  for (const r of reference) {
    while (j + 1 < detected.length && detected[j + 1]! <= r) j++;
    const near = [detected[j], detected[j + 1]].some((d) => d !== undefined && Math.abs(d - r) <= toleranceSec);
    if (near) hits++;
  }
  return hits / reference.length;
}
