/**
 * Long reels in batches: command lines, built by pure functions and tested by their arguments.
 *
 * One single-pass graph holds a decoder (and its frame pool) for every segment it reads, and its
 * command line names every segment: a 12-minute reel has 288 segments, which took ffmpeg past
 * 3.75 GB, and a 3.9-hour one could not even be started (`spawn E2BIG`). So a reel with more
 * segments than one batch holds is rendered as:
 *
 *  1. one process per batch of consecutive segments (a chunk): the same per-segment graph as the
 *     single pass (render-args.ts), with the title and the fades placed on the reel's own clock
 *     (frames numbered from the batch's first frame on the reel, so no rounding drifts across
 *     chunks), encoded into a video-only MP4 that starts on a keyframe and has closed GOPs;
 *  2. the reel's whole sound track, made once as sample-exact PCM (render-audio-args.ts);
 *  3. one process that joins the chunks with the concat demuxer (lists in files, so the command
 *     line does not grow with the reel), copies the picture, and encodes the sound; moov first.
 *
 * The chunks are independent of each other: one process renders them one after another (peak
 * memory is that of one batch), or many render workers take them at once (render-chunks.ts).
 */
import { resolveFraming } from '@reelsmith/proto';
import type { EditPlan } from './plan.js';
import type { MediaInfo } from './probe.js';
import {
  deliveryAudioArgs,
  fadeTimes,
  filterThreadArgs,
  filterValue,
  num,
  progressArgs,
  segmentFilters,
  segmentFrames,
  segmentInputArgs,
  videoCodecArgs,
  type BuiltCommand,
  type RenderArgsInput,
} from './render-args.js';
import { ASPECTS } from './settings.js';
import { TITLE_SECONDS } from './title.js';

/**
 * Segments per batch: above this a reel is rendered in batches (the single pass stays below).
 * Measured on ffmpeg 5.1 with 1080p sources: about 280 MiB for the encoder plus 25 to 30 MiB per
 * input (every input's decoder and its frame pool stay open for the whole process); a batch of
 * 24 peaked at 958 MiB in the bench, too close to the 1 GiB goal, so 16.
 */
export const BATCH_SEGMENTS = 16;
/**
 * Decoded source pixels a batch may hold open: 16 inputs of 1080p. Each input keeps a frame
 * pool sized by its coded picture, so 4K sources get a quarter as many segments per batch.
 */
export const BATCH_PIXELS = 16 * 1920 * 1080;

/** A run of consecutive segments `[first, end)` and its place on the reel, in output frames. */
export interface Batch {
  first: number;
  end: number;
  startFrame: number;
  frames: number;
}

export interface BatchOptions {
  maxSegments?: number;
  maxPixels?: number;
}

/**
 * Splits the plan into batches of consecutive segments: at most `maxSegments` each, and at most
 * `maxPixels` of coded source picture open at once (a batch always takes at least one segment).
 * A plan that fits in one batch gives one batch: it is rendered in a single pass.
 */
export function planBatches(plan: EditPlan, clips: MediaInfo[], opts: BatchOptions = {}): Batch[] {
  const maxSegments = Math.max(1, opts.maxSegments ?? BATCH_SEGMENTS);
  const maxPixels = opts.maxPixels ?? BATCH_PIXELS;
  const pixels = (i: number) => {
    const v = clips[plan.segments[i]!.clip]?.video;
    return v ? v.codedWidth * v.codedHeight : 0;
  };
  const batches: Batch[] = [];
  let startFrame = 0;
  for (let first = 0; first < plan.segments.length;) {
    let end = first;
    let px = 0;
    while (end < plan.segments.length && end - first < maxSegments && (end === first || px + pixels(end) <= maxPixels)) {
      px += pixels(end);
      end++;
    }
    const frames = plan.segments.slice(first, end).reduce((s, seg) => s + segmentFrames(seg, plan.fps), 0);
    batches.push({ first, end, startFrame, frames });
    startFrame += frames;
    first = end;
  }
  return batches;
}

/** What a chunk is rendered from: the whole reel's clips, plan, settings, title and encoder choices, and its batch. */
export interface ChunkArgsInput extends Pick<RenderArgsInput, 'clips' | 'plan' | 'settings' | 'title' | 'preset' | 'threads'> {
  batch: Batch;
  /** The reel's total frames (fades are placed on the reel's clock, not the chunk's). */
  totalFrames: number;
  /** Video-only MP4 chunk. */
  video: string;
  /** The reel's thumbnail: written by the chunk whose frames include `atSec`. */
  thumbnail?: { path: string; atSec: number };
}

/** One batch of the reel: its picture into a video-only chunk (the sound is the whole reel's, render-audio-args.ts). */
export function buildChunkArgs(input: ChunkArgsInput): BuiltCommand {
  const { plan, settings, batch } = input;
  const out = ASPECTS[settings.aspect];
  const fps = plan.fps;
  const args = [...progressArgs(), ...filterThreadArgs(input.threads)];
  const filters: string[] = [];
  const segments = plan.segments.slice(batch.first, batch.end);
  segments.forEach((seg, i) => {
    const clip = input.clips[seg.clip]!;
    args.push(...segmentInputArgs(seg, clip, fps, input.threads));
    filters.push(...segmentFilters(seg, i, clip, fps, out, resolveFraming(settings), false));
  });
  const n = segments.length;
  filters.push(`${segments.map((_, i) => `[v${i}]`).join('')}concat=n=${n}:v=1:a=0[vc]`);

  // Title and fades see the reel's clock: the chunk's frames are stamped with their frame
  // numbers on the reel, then start again from zero for the encoder.
  const startSec = batch.startFrame / fps;
  const endSec = (batch.startFrame + batch.frames) / fps;
  const total = input.totalFrames / fps;
  const onReel: string[] = [];
  if (input.title && startSec < TITLE_SECONDS) onReel.push(`subtitles=filename=${filterValue(input.title.assFile)}`);
  const fades = fadeTimes(settings, total);
  if (fades && startSec < fades.in) onReel.push(`fade=t=in:st=0:d=${num(fades.in)}`);
  if (fades && endSec > total - fades.out) onReel.push(`fade=t=out:st=${num(total - fades.out)}:d=${num(fades.out)}`);
  const vf = onReel.length ? `settb=1/${fps},setpts=N+${batch.startFrame},${onReel.join(',')},setpts=PTS-STARTPTS` : 'null';

  const thumbFrame = input.thumbnail ? Math.min(input.totalFrames - 1, Math.max(0, Math.round(input.thumbnail.atSec * fps))) : -1;
  const thumbHere = thumbFrame >= batch.startFrame && thumbFrame < batch.startFrame + batch.frames;
  if (thumbHere) {
    const k = thumbFrame - batch.startFrame;
    filters.push(`[vc]${vf},split=2[vout][vth]`);
    filters.push(`[vth]trim=start_frame=${k}:end_frame=${k + 1},scale=640:-2[thumb]`);
  } else {
    filters.push(`[vc]${vf}[vout]`);
  }

  args.push(
    '-filter_complex',
    filters.join(';\n'),
    '-map',
    '[vout]',
    '-an',
    ...videoCodecArgs(fps, input.preset, input.threads),
    // Every chunk starts on a keyframe (a new encode always does) and no GOP refers across a
    // chunk's end, so the chunks join by copying. https://trac.ffmpeg.org/wiki/Concatenate
    '-flags',
    '+cgop',
    '-f',
    'mp4',
    input.video,
  );
  if (thumbHere) {
    args.push('-map', '[thumb]', '-frames:v', '1', '-q:v', '3', '-update', '1', '-f', 'image2', `file:${input.thumbnail!.path}`);
  }
  return { args, frames: batch.frames, durationSec: batch.frames / fps };
}

/**
 * A concat demuxer list. Names are relative to the list's directory, so the demuxer's safe mode
 * stays on; each entry's duration is given so the chunks are laid end to end exactly.
 */
export function concatList(entries: Array<{ file: string; durationSec: number }>): string {
  return (
    entries
      .map((e) => {
        if (!/^[\w.-]+$/.test(e.file)) throw new Error(`not a plain file name: ${e.file}`);
        return `file '${e.file}'\nduration ${num(e.durationSec)}`;
      })
      .join('\n') + '\n'
  );
}

export interface JoinArgsInput {
  fps: number;
  totalFrames: number;
  /** Concat list of the video chunks. */
  videoList: string;
  /** The reel's whole sound track as PCM WAV, exactly as long as its frames (render-audio-args.ts). */
  audio: string;
  output: string;
}

/**
 * Joins the chunks (picture copied, never re-encoded) and encodes the one sound track, made
 * beforehand for the whole reel, to AAC; moov first.
 */
export function buildJoinArgs(input: JoinArgsInput): BuiltCommand {
  const total = input.totalFrames / input.fps;
  const args = [
    ...progressArgs(),
    // Our own list, read with the concat demuxer only: the inputs' guard does not allow it.
    '-protocol_whitelist',
    'file',
    '-f',
    'concat',
    '-i',
    `file:${input.videoList}`,
    // Our own PCM track.
    '-protocol_whitelist',
    'file',
    '-f',
    'wav',
    '-i',
    `file:${input.audio}`,
    '-map',
    '0:v',
    '-map',
    '1:a',
    '-c:v',
    'copy',
    ...deliveryAudioArgs(),
    '-f',
    'mp4',
    input.output,
  ];
  return { args, frames: input.totalFrames, durationSec: total };
}
