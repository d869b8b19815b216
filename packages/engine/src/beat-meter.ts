/**
 * Beat tracking, step 4: the meter and the downbeats. Each beat's accent (loudness just after it
 * plus its bass-band onset, each relative to the track's median) is folded over bars of 3 and of
 * 4 beats at every phase; the meter is the fold whose strongest phase stands out most above the
 * bar's mean (4 unless 3 is clearly stronger: a 4/4 bar's accents on 1 and 3 fold evenly over
 * 3), and the downbeat is that phase.
 */

export type BeatsPerBar = 3 | 4;

/** How much the strongest phase of a fold over `m` beats stands out, and which phase it is. */
export function foldContrast(accent: number[], m: number): { contrast: number; phase: number } {
  const sums = new Array<number>(m).fill(0);
  const counts = new Array<number>(m).fill(0);
  accent.forEach((a, i) => {
    sums[i % m]! += a;
    counts[i % m]!++;
  });
  const means = sums.map((s, i) => s / Math.max(1, counts[i]!));
  const mean = means.reduce((a, b) => a + b, 0) / m;
  let phase = 0;
  for (let p = 1; p < m; p++) if (means[p]! > means[phase]!) phase = p;
  return { contrast: mean > 0 ? (means[phase]! - mean) / mean : 0, phase };
}

/** A 3/4 meter must stand out this much more than 4/4 to be chosen. */
const THREE_OVER_FOUR = 1.6;

/** The meter and the index (0..beatsPerBar-1) of the first downbeat among the beats. */
export function chooseMeter(accent: number[]): { beatsPerBar: BeatsPerBar; phase: number } {
  if (accent.length < 12) return { beatsPerBar: 4, phase: foldContrast(accent, 4).phase };
  const three = foldContrast(accent, 3);
  const four = foldContrast(accent, 4);
  return three.contrast > THREE_OVER_FOUR * four.contrast ? { beatsPerBar: 3, phase: three.phase } : { beatsPerBar: 4, phase: four.phase };
}

/** Each value divided by the median (so two kinds of accent weigh alike). */
export function relativeToMedian(xs: number[]): number[] {
  const med = [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
  return xs.map((x) => (med > 0 ? x / med : x));
}
