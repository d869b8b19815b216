/**
 * The pure half of clip analysis: the analysis document (`ClipAnalysis`, with its version) and
 * its scoring from per-sample frame statistics (exposure, sharpness relative to the clip's
 * sharpest moments, motion, black, frozen and blurred flags, shot boundaries). clip-analysis.ts
 * decodes the samples with ffmpeg and hands their statistics here; planning needs only this file.
 */
import { sharpReference } from './clip-sampling.js';
import { ANALYSIS_H, ANALYSIS_W, frameStats, histDistance, isBlackStats, STILL_MOTION, type FrameStats } from './frame-stats.js';
import type { SubjectTrack } from './reframe/types.js';

/**
 * The version clip analyses carry; an analysis of an older one is redone (3: with the subject track;
 * 4: the subject track's camera motion is what most of the picture agrees on, SUBJECT_TRACK_VERSION 2).
 */
export const CLIP_ANALYSIS_VERSION = 4;

export interface ClipAnalysis {
  version: number;
  durationSec: number;
  sampleIntervalSec: number;
  times: number[];
  /** 0..1, higher is better. */
  score: number[];
  black: boolean[];
  frozen: boolean[];
  blurred: boolean[];
  /** Times of hard cuts inside the clip. */
  scenes: number[];
  /** Score components per sample, 0..1 (version 2): detail relative to the clip's sharpest, */
  sharpness?: number[];
  /** change from the previous sample, */
  motion?: number[];
  /** and exposure (1 = neither too dark nor blown out). */
  exposure?: number[];
  /** How the samples were obtained: every one decoded, or sparsely (clip-sampling.ts). */
  decoding?: ClipDecoding;
  /** Salient regions a few times a second, for reframing and Intelligence (reframe/subject-analysis.ts; version 3). */
  subjects?: SubjectTrack;
}

export interface ClipDecoding {
  mode: 'dense' | 'sparse';
  /** Why a dense decode (a light clip, a codec or keyframe spacing the sparse path is not for). */
  reason?: string;
  /** Share of the clip's video packets handed to the decoder (1 for dense). */
  decodedShare: number;
  /** Share of the samples measured from a decoded frame; the rest were filled from their neighbours. */
  measuredShare: number;
  /** Sparse: gaps between windows decoded whole, by reason (see clip-sampling.ts `refineReason`), and gaps filled. */
  gaps?: { decoded: Record<string, number>; filled: number };
}

/** Scores grey frames sampled every `interval` seconds. */
export function scoreFrames(frames: Uint8Array[], interval: number, durationSec: number, w = ANALYSIS_W, h = ANALYSIS_H): ClipAnalysis {
  return scoreStats(
    frames.map((f, i) => frameStats(f, frames[i - 1], w, h)),
    interval,
    durationSec,
  );
}

/** Scores per-frame statistics (computed as the frames arrive, so frames need not be kept). */
export function scoreStats(s: FrameStats[], interval: number, durationSec: number): ClipAnalysis {
  const isBlack = isBlackStats;
  // The clip's sharp reference: its 90th percentile picture sample.
  const refSharp = sharpReference(s);
  const times = s.map((_, i) => Math.round(i * interval * 1000) / 1000);
  // Black: video-range black is luma 16, so a mean under 24 with almost nothing above 32.
  const black = s.map((x) => isBlack(x));
  // Frozen: nearly no change for at least a second (fades and static shots still change a little).
  const still = s.map((x, i) => i > 0 && x.motion < STILL_MOTION);
  const runNeeded = Math.max(2, Math.round(1 / interval));
  const frozen = still.map(() => false);
  for (let i = 0; i < still.length;) {
    let j = i;
    while (j < still.length && still[j]) j++;
    if (j - i >= runNeeded) for (let k = Math.max(0, i - 1); k < j; k++) frozen[k] = true;
    i = j === i ? i + 1 : j;
  }
  // Blurred: under half the detail of the clip's sharp moments.
  const relSharp = s.map((x) => (refSharp > 0 ? Math.min(1, x.sharp / refSharp) : 0));
  const blurred = s.map((x, i) => refSharp > 0 && relSharp[i]! < 0.5 && !black[i]);
  // Shot boundaries. A black stretch between two shots (a cut or fade through black) is one
  // boundary at its middle, as PySceneDetect places fade cuts; leading or trailing black gives a
  // boundary where the picture starts or ends. A hard cut between two pictures is a histogram
  // jump that is a spike, not part of a gradual change (fades and dissolves change a little on
  // every sample instead).
  const d = s.map((x, i) => (i === 0 ? 0 : histDistance(x.hist, s[i - 1]!.hist)));
  const found: number[] = [];
  for (let i = 0; i < s.length;) {
    if (!black[i]) {
      i++;
      continue;
    }
    let j = i;
    while (j < s.length && black[j]) j++;
    const begin = times[i]! - (i > 0 ? interval / 2 : 0);
    const end = j < s.length ? times[j]! - interval / 2 : durationSec;
    if (i === 0 && j < s.length) found.push(end);
    else if (j >= s.length && i > 0) found.push(begin);
    else if (i > 0) found.push((begin + end) / 2);
    i = j;
  }
  for (let i = 1; i < s.length; i++) {
    const neighbours = Math.max(d[i - 1] ?? 0, d[i + 1] ?? 0);
    const spike = d[i]! > 0.5 && s[i]!.motion > 20 && d[i]! > 2.5 * neighbours;
    if (spike && !black[i] && !black[i - 1]) found.push(times[i]! - interval / 2);
  }
  const scenes: number[] = [];
  for (const t of found.sort((a, b) => a - b)) {
    const r = Math.round(t * 1000) / 1000;
    if (!scenes.length || r - scenes[scenes.length - 1]! > 0.3) scenes.push(r);
  }
  const r3 = (x: number) => Math.round(x * 1000) / 1000;
  const exposure = s.map((x) => r3(x.mean < 40 ? x.mean / 40 : x.mean > 220 ? Math.max(0, (255 - x.mean) / 35) : 1));
  const sharpness = relSharp.map(r3);
  const motion = s.map((x, i) => r3(frozen[i] ? 0 : Math.min(1, x.motion / 8)));
  // Sharpness weighs more than motion: a sharp moment of similar motion beats a blurred one, and
  // even a still sharp moment beats a busy blurred one.
  const score = s.map((_, i) => {
    const q = exposure[i]! * (0.25 + 0.75 * sharpness[i]!) * (0.7 + 0.3 * motion[i]!) * (black[i] ? 0 : 1) * (frozen[i] ? 0.3 : 1);
    return r3(q);
  });
  return {
    version: CLIP_ANALYSIS_VERSION,
    durationSec,
    sampleIntervalSec: interval,
    times,
    score,
    black,
    frozen,
    blurred,
    scenes,
    sharpness,
    motion,
    exposure,
  };
}
