/**
 * Statistics of one small grey analysis frame (320x180): brightness, a 16-bin histogram, detail
 * (mean absolute Laplacian) and, against the previous sample, motion (mean absolute difference).
 * Pure; shared by the dense and the sparse decoding of clip analysis.
 */
// Alike beat-tracker.ts's constants and MusicAnalysis in form only: numbers, then a record of numbers.
export const ANALYSIS_W = 320;
export const ANALYSIS_H = 180;

export interface FrameStats {
  mean: number;
  sharp: number;
  motion: number;
  hist: Float32Array;
}

/** Mean absolute difference of two frames of the same size (0..255). */
export function meanAbsDiff(a: Uint8Array, b: Uint8Array): number {
  let d = 0;
  for (let i = 0; i < a.length; i++) d += Math.abs(a[i]! - b[i]!);
  return d / a.length;
}

/** L1 distance of two normalised histograms (0..2). */
export function histDistance(a: Float32Array, b: Float32Array): number {
  let d = 0;
  for (let i = 0; i < a.length; i++) d += Math.abs(a[i]! - b[i]!);
  return d;
}

/** Brightness, histogram and detail of a frame; motion against `prev` (0 without one). */
export function frameStats(frame: Uint8Array, prev: Uint8Array | undefined, w = ANALYSIS_W, h = ANALYSIS_H): FrameStats {
  let sum = 0;
  const hist = new Float32Array(16);
  for (let i = 0; i < frame.length; i++) {
    sum += frame[i]!;
    hist[frame[i]! >> 4]! += 1;
  }
  for (let i = 0; i < 16; i++) hist[i]! /= frame.length;
  let lap = 0;
  for (let y = 1; y < h - 1; y++)
    for (let x = 1; x < w - 1; x++) {
      const i = y * w + x;
      lap += Math.abs(4 * frame[i]! - frame[i - 1]! - frame[i + 1]! - frame[i - w]! - frame[i + w]!);
    }
  return { mean: sum / frame.length, sharp: lap / ((w - 2) * (h - 2)), motion: prev ? meanAbsDiff(frame, prev) : 0, hist };
}

/** Black: video-range black is luma 16, so a mean under 24 with almost nothing above 32. */
export const isBlackStats = (x: Pick<FrameStats, 'mean' | 'hist'>) => x.mean < 24 && x.hist[0]! + x.hist[1]! > 0.95;

/** Nearly no change from the previous sample (frozen when it lasts a second). */
export const STILL_MOTION = 0.4;
