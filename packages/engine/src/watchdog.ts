import os from 'node:os';

/**
 * How long a render may run. A render is stopped for making no progress, not for taking long:
 * heavy sources (4K, high bitrate) and a busy machine are normal and only slow it down. So the
 * executor (exec.ts) judges each ffmpeg process on stalled progress (no new frame or output time
 * for `stallMs`), and the overall cap is only a backstop against a process that crawls forever,
 * generous and grown from the work: the reel's length to encode and the input's size to decode,
 * divided among the threads the render may use.
 */
export interface RenderLimits {
  /** No progress for this long stops the process. */
  stallMs: number;
  /** The whole render (all its ffmpeg processes) stops after this long, progress or not. */
  capMs: number;
  /** Where the cap comes from, for its error message. */
  capReason: string;
}

/** A process that shows no new frame for two minutes is stuck, however loaded the machine. */
export const STALL_MS = 120_000;
/** The cap's floor: start-up, seeking and the trailer. */
const CAP_BASE_MS = 5 * 60_000;
/**
 * Per second of reel and thread: 1080p30 x264 at 1.25 frames/s for one thread, a sixth of what a
 * slow core encodes when the machine is busy with other work.
 */
const CAP_PER_REEL_SEC_MS = 24_000;
/** Per megabyte of input and thread: decoding high-bitrate or 4K sources at 1 MB/s. */
const CAP_PER_INPUT_MB_MS = 1000;

export function renderLimits(work: { reelSec: number; inputBytes: number; threads?: number }): RenderLimits {
  const threads = Math.max(1, work.threads ?? os.availableParallelism());
  const mb = work.inputBytes / 1e6;
  const capMs = Math.round(CAP_BASE_MS + (work.reelSec * CAP_PER_REEL_SEC_MS + mb * CAP_PER_INPUT_MB_MS) / threads);
  return {
    stallMs: STALL_MS,
    capMs,
    capReason: `from ${work.reelSec.toFixed(0)} s of reel, ${mb.toFixed(0)} MB of input and ${threads} thread${threads === 1 ? '' : 's'}`,
  };
}
