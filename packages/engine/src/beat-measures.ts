/** Measures of tracked beats against true beats, for the benches and tests. */
import { bracket } from './numeric.js';

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

/** Index of the value in ascending `xs` nearest to `t` (-1 when empty). */
function nearest(xs: number[], t: number): number {
  if (!xs.length) return -1;
  const [lo, hi] = bracket(xs, t);
  return Math.abs(xs[lo]! - t) <= Math.abs(xs[hi]! - t) ? lo : hi;
}

/**
 * Continuity at one metrical level (Hainsworth / Klapuri, as in mir_eval): a detected beat is
 * correct when it lies within `threshold` of the local true inter-beat interval from its nearest
 * true beat, and its interval to the previous detected beat matches the true interval there
 * within `threshold` too (for the first beat: the next intervals). Returns the correct beats of
 * all continuous stretches together (the "t" measures) and of the longest one (the "c" measures),
 * each divided by the larger of the two beat counts.
 */
function continuity(detected: number[], reference: number[], threshold: number): { total: number; longest: number } {
  if (detected.length < 2 || reference.length < 2) return { total: 0, longest: 0 };
  let run = 0,
    longest = 0,
    total = 0;
  for (let i = 0; i < detected.length; i++) {
    const t = detected[i]!;
    const j = nearest(reference, t);
    // The true interval around reference beat j (to the previous, or the next at the start).
    const refIv = j > 0 ? reference[j]! - reference[j - 1]! : reference[1]! - reference[0]!;
    const phaseOk = Math.abs(t - reference[j]!) <= threshold * refIv;
    let periodOk: boolean;
    if (i > 0) {
      const dIv = t - detected[i - 1]!;
      periodOk = Math.abs(dIv - refIv) <= threshold * refIv;
    } else {
      const dIv = detected[1]! - detected[0]!;
      const nextIv = j + 1 < reference.length ? reference[j + 1]! - reference[j]! : refIv;
      periodOk = Math.abs(dIv - nextIv) <= threshold * nextIv;
    }
    if (phaseOk && periodOk) {
      run++;
      total++;
      longest = Math.max(longest, run);
    } else run = 0;
  }
  const n = Math.max(detected.length, reference.length);
  return { total: total / n, longest: longest / n };
}

/** The true beats at the other metrical levels AMLt accepts: off-beat, double, half (both phases). */
export function beatVariations(reference: number[]): Record<'offBeat' | 'double' | 'halfOdd' | 'halfEven', number[]> {
  const mids = reference.slice(1).map((b, i) => (b + reference[i]!) / 2);
  const double: number[] = [];
  reference.forEach((b, i) => {
    double.push(b);
    if (i < mids.length) double.push(mids[i]!);
  });
  return {
    offBeat: mids,
    double,
    halfOdd: reference.filter((_, i) => i % 2 === 0),
    halfEven: reference.filter((_, i) => i % 2 === 1),
  };
}

/**
 * The continuity measures: CMLt (correct metrical level: right tempo and phase, the share of
 * beats in continuously correct stretches) and AMLt (allowed metrical levels: the best of the
 * true beats, the off-beat, double and half tempo). CMLc / AMLc: the longest stretch only.
 * 17.5 % of the beat interval is the usual tolerance for phase and period.
 */
export function beatContinuity(
  detected: number[],
  reference: number[],
  threshold = 0.175,
): { cmlt: number; cmlc: number; amlt: number; amlc: number } {
  const c = continuity(detected, reference, threshold);
  let amlt = c.total,
    amlc = c.longest;
  for (const ref of Object.values(beatVariations(reference))) {
    const v = continuity(detected, ref, threshold);
    amlt = Math.max(amlt, v.total);
    amlc = Math.max(amlc, v.longest);
  }
  return { cmlt: c.total, cmlc: c.longest, amlt, amlc };
}

/** Share of `cuts` within `toleranceSec` of a true beat (1 when there are no cuts). */
export function cutsOnBeat(cuts: number[], reference: number[], toleranceSec = 0.04): number {
  if (!cuts.length) return 1;
  const on = cuts.filter((c) => {
    const j = nearest(reference, c);
    return j >= 0 && Math.abs(reference[j]! - c) <= toleranceSec;
  }).length;
  return on / cuts.length;
}
