/**
 * The reel's whole sound track for a reel rendered in chunks, built by pure functions and tested
 * by their arguments. The picture is cut into chunks (render-batch-args.ts); the sound never is:
 * it is made once for the whole reel, as 16-bit PCM exactly `totalFrames / fps * 48000` samples
 * long with the reel's fades, and encoded to AAC only when the chunks are joined. So no chunk
 * boundary can leave a gap, an overlap or an encoder priming click in the sound.
 *
 *  - With music: the music from the plan's music window (`plan.musicStart`, seconds into the
 *    song; absent means 0), cut to the reel's samples and faded.
 *  - Without music: the clips' own sound, segment by segment as the single pass takes it, in
 *    sound-only processes of many segments each (written as PCM pieces, sample-exact), then
 *    joined and faded by one last process.
 */
import type { EditPlan } from './plan.js';
import type { MediaInfo } from './probe.js';
import {
  AUDIO_RATE,
  fadeTimes,
  musicInputArgs,
  musicWindowAudioFilter,
  num,
  progressArgs,
  segmentInputArgs,
  segmentSoundFilter,
  type BuiltCommand,
} from './render-args.js';
import type { Batch } from './render-batch-args.js';
import type { RenderSettings } from './settings.js';

/** Segments per sound-only process: no picture is decoded, so a decoder costs little memory. */
export const AUDIO_BATCH_SEGMENTS = 64;

/** Where the reel's music starts in the song (the plan's music window; 0 when the plan has none). */
export function musicStartSec(plan: EditPlan): number {
  const start = (plan as EditPlan & { musicStart?: number }).musicStart;
  return typeof start === 'number' && Number.isFinite(start) && start > 0 ? start : 0;
}

/** The reel's sample count at the engine's audio rate: exactly as long as its frames. */
export const reelSamples = (totalFrames: number, fps: number) => Math.round((totalFrames / fps) * AUDIO_RATE);

const pcmOut = (output: string) => ['-c:a', 'pcm_s16le', '-ar', String(AUDIO_RATE), '-ac', '2', '-f', 'wav', output];
const toStereo = `aresample=${AUDIO_RATE},aformat=sample_fmts=fltp:channel_layouts=stereo`;

/** The reel's fades on its sound (the same lengths as the picture's), or nothing. */
function soundFades(settings: RenderSettings, total: number): string {
  const fades = fadeTimes(settings, total);
  return fades ? `,afade=t=in:st=0:d=${num(fades.in)},afade=t=out:st=${num(total - fades.out)}:d=${num(fades.out)}` : '';
}

export interface MusicTrackInput {
  music: MediaInfo;
  plan: EditPlan;
  settings: RenderSettings;
  totalFrames: number;
  /** PCM WAV of the whole track. */
  output: string;
}

/** The whole sound track of a reel with music: the music window, sample-exact, faded. */
export function buildMusicTrackArgs(input: MusicTrackInput): BuiltCommand {
  const fps = input.plan.fps;
  const total = input.totalFrames / fps;
  // The music window as the single pass plays it: seeked to the plan's musicStart (input seeking
  // in a sound file is sample-accurate), cut to the reel's samples, with the window's fades.
  const window = { musicStart: musicStartSec(input.plan), musicFadeOutSec: input.plan.musicFadeOutSec };
  const args = [...progressArgs(), ...musicInputArgs(input.music, window, total)];
  args.push(
    '-filter_complex',
    `[0:a]${musicWindowAudioFilter(window, input.settings, total)}[aout]`,
    '-map',
    '[aout]',
    ...pcmOut(input.output),
  );
  return { args, frames: input.totalFrames, durationSec: total };
}

export interface ClipSoundInput {
  clips: MediaInfo[];
  plan: EditPlan;
  /** The segments `[first, end)` this piece holds. */
  batch: Batch;
  /** PCM WAV of the piece (unfaded: the fades are the whole track's). */
  output: string;
}

/** One piece of a reel's sound without music: its segments' clip sound (silence for silent clips). */
export function buildClipSoundArgs(input: ClipSoundInput): BuiltCommand {
  const { plan, batch } = input;
  const fps = plan.fps;
  const args = [...progressArgs()];
  const filters: string[] = [];
  const segments = plan.segments.slice(batch.first, batch.end);
  segments.forEach((seg) => {
    const clip = input.clips[seg.clip]!;
    // A silent clip is not opened at all: its piece is generated silence.
    if (clip.audio) args.push(...segmentInputArgs(seg, clip, fps));
  });
  let k = 0;
  segments.forEach((seg, i) => {
    const clip = input.clips[seg.clip]!;
    filters.push(segmentSoundFilter(seg, clip.audio ? k++ : -1, i, fps));
  });
  filters.push(`${segments.map((_, i) => `[a${i}]`).join('')}concat=n=${segments.length}:v=0:a=1[aout]`);
  args.push('-filter_complex', filters.join(';\n'), '-map', '[aout]', ...pcmOut(input.output));
  return { args, frames: batch.frames, durationSec: batch.frames / fps };
}

export interface JoinSoundInput {
  settings: RenderSettings;
  fps: number;
  totalFrames: number;
  /** Concat list of the PCM pieces (buildClipSoundArgs), names relative to the list. */
  list: string;
  output: string;
}

/** The pieces of clip sound joined into the whole track, sample-exact, faded. */
export function buildJoinSoundArgs(input: JoinSoundInput): BuiltCommand {
  const total = input.totalFrames / input.fps;
  const samples = reelSamples(input.totalFrames, input.fps);
  const args = [
    ...progressArgs(),
    // Our own list, read with the concat demuxer only: the inputs' guard does not allow it.
    '-protocol_whitelist',
    'file',
    '-f',
    'concat',
    '-i',
    `file:${input.list}`,
    '-filter_complex',
    `[0:a]asetpts=PTS-STARTPTS,${toStereo},apad,atrim=end_sample=${samples}${soundFades(input.settings, total)}[aout]`,
    '-map',
    '[aout]',
    ...pcmOut(input.output),
  ];
  return { args, frames: input.totalFrames, durationSec: total };
}
