/**
 * Clip analysis from one cheap decode: frames sampled at a few per second, scaled to 320x180
 * grey, give per-sample exposure, sharpness (Laplacian energy), motion (difference to the
 * previous sample), black, frozen and blurred flags, and shot boundaries (hard cuts, and the
 * edges of black stretches where a shot fades or cuts through black).
 * Sharpness is relative to the clip's own sharpest moments (the 90th percentile of its picture
 * samples), so a blurred stretch of a sharp clip scores low whatever the scene; 320x180 keeps
 * enough detail for a slight blur of HD footage to show (at 160x90 it vanished in the downscale).
 * The scoring is pure; only `analyseClip` runs ffmpeg.
 */
import path from 'node:path';
import { execMedia } from './exec.js';
import { INPUT_GUARD } from './probe.js';

export const CLIP_ANALYSIS_VERSION = 2;
export const ANALYSIS_W = 320;
export const ANALYSIS_H = 180;
export const SAMPLES_PER_SEC = 8;

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
}

interface FrameStats {
  mean: number;
  sharp: number;
  motion: number;
  hist: Float32Array;
}

function stats(frame: Uint8Array, prev: Uint8Array | undefined, w: number, h: number): FrameStats {
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
  let motion = 0;
  if (prev) for (let i = 0; i < frame.length; i++) motion += Math.abs(frame[i]! - prev[i]!);
  return { mean: sum / frame.length, sharp: lap / ((w - 2) * (h - 2)), motion: prev ? motion / frame.length : 0, hist };
}

const histDistance = (a: Float32Array, b: Float32Array) => {
  let d = 0;
  for (let i = 0; i < a.length; i++) d += Math.abs(a[i]! - b[i]!);
  return d;
};

/** Scores grey frames sampled every `interval` seconds. */
export function scoreFrames(frames: Uint8Array[], interval: number, durationSec: number, w = ANALYSIS_W, h = ANALYSIS_H): ClipAnalysis {
  return scoreStats(
    frames.map((f, i) => stats(f, frames[i - 1], w, h)),
    interval,
    durationSec,
  );
}

/** Scores per-frame statistics (computed as the frames arrive, so frames need not be kept). */
function scoreStats(s: FrameStats[], interval: number, durationSec: number): ClipAnalysis {
  const isBlack = (x: FrameStats) => x.mean < 24 && x.hist[0]! + x.hist[1]! > 0.95;
  const sharpSorted = s
    .filter((x) => !isBlack(x))
    .map((x) => x.sharp)
    .sort((a, b) => a - b);
  // The clip's sharp reference: its 90th percentile picture sample.
  const refSharp = sharpSorted[Math.floor(sharpSorted.length * 0.9)] ?? 0;
  const times = s.map((_, i) => Math.round(i * interval * 1000) / 1000);
  // Black: video-range black is luma 16, so a mean under 24 with almost nothing above 32.
  const black = s.map(isBlack);
  // Frozen: nearly no change for at least a second (fades and static shots still change a little).
  const still = s.map((x, i) => i > 0 && x.motion < 0.4);
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

/**
 * Decodes only what the analysis needs: reference frames (non-reference B frames skipped, no
 * deblocking), sampled to SAMPLES_PER_SEC and scaled to 160x90 grey on the way out.
 */
export async function analyseClip(file: string, durationSec: number, timeoutMs = 300_000, signal?: AbortSignal): Promise<ClipAnalysis> {
  const frameSize = ANALYSIS_W * ANALYSIS_H;
  // Statistics are taken as each frame arrives (while ffmpeg decodes the next ones); only the
  // previous frame is kept, so memory does not grow with the clip's length.
  const frameStats: FrameStats[] = [];
  let prev: Uint8Array | undefined;
  let pending: Buffer = Buffer.alloc(0);
  await execMedia(
    'ffmpeg',
    [
      '-v',
      'error',
      '-nostdin',
      ...INPUT_GUARD,
      // Cheaper decoding: analysis does not need deblocked or every frame.
      '-skip_loop_filter',
      'all',
      '-skip_frame',
      'noref',
      '-threads',
      '2',
      '-i',
      `file:${path.resolve(file)}`,
      '-an',
      '-sn',
      '-vf',
      `fps=${SAMPLES_PER_SEC},scale=${ANALYSIS_W}:${ANALYSIS_H}:flags=fast_bilinear,format=gray`,
      '-f',
      'rawvideo',
      'pipe:1',
    ],
    {
      timeoutMs,
      signal,
      onStdout: (c) => {
        pending = pending.length ? Buffer.concat([pending, c]) : c;
        while (pending.length >= frameSize) {
          const frame = new Uint8Array(pending.subarray(0, frameSize));
          frameStats.push(stats(frame, prev, ANALYSIS_W, ANALYSIS_H));
          prev = frame;
          pending = pending.subarray(frameSize);
        }
      },
    },
  );
  return scoreStats(frameStats, 1 / SAMPLES_PER_SEC, durationSec);
}
