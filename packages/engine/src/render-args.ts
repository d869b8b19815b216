/**
 * The ffmpeg command line for a whole reel, built by pure functions and tested by its arguments.
 * One process does everything: it seeks into each input at its segment, normalises every
 * segment to the output frame (rotation applied by ffmpeg's autorotate, square pixels, constant
 * frame rate, yuv420p, its framing: letterbox, centre crop or the subject's crop path), concatenates, draws the title, fades, mixes the audio
 * and encodes H.264 + AAC with fast start, and writes the JPEG thumbnail as a second output.
 * No intermediate files.
 *
 * Audio: with music, the reel's sound is the music and the clips' own sound is dropped (ducking
 * under music tends to muddy a highlight reel, and it keeps the mix predictable). Without music,
 * each segment keeps its clip's sound, and silent clips get silence.
 */
import { resolveFraming, type FramingName } from '@reelsmith/proto';
import type { EditPlan, Segment } from './plan.js';
import type { MediaInfo } from './probe.js';
import { INPUT_GUARD } from './probe.js';
import { framingFilter } from './render-framing.js';
import { ASPECTS, type RenderSettings } from './settings.js';

export const AUDIO_RATE = 48_000;

export interface RenderArgsInput {
  clips: MediaInfo[];
  music?: MediaInfo;
  plan: EditPlan;
  settings: RenderSettings;
  output: string;
  /** ASS title script, when the title is on (fonts come through FONTCONFIG_FILE). */
  title?: { assFile: string };
  /** x264 preset: speed against size (default `veryfast`). */
  preset?: X264Preset;
  /** Encoder threads (RENDER_THREADS); unset: the encoder's own choice. */
  threads?: number;
  /**
   * A JPEG thumbnail of the finished picture (title and fades included) at about `atSec`,
   * written by the same process as a second output, so the reel is not decoded again.
   */
  thumbnail?: { path: string; atSec: number };
}

export const num = (x: number) => String(Math.round(x * 1e6) / 1e6);

/** Escapes a value for use inside a filtergraph option (paths of our own temp files). */
export const filterValue = (v: string) => `'${v.replace(/\\/g, '\\\\').replace(/'/g, "'\\\\\\''").replace(/:/g, '\\:')}'`;

export { frameFilter } from './render-framing.js';

export interface BuiltCommand {
  args: string[];
  /** Output frames and seconds, for progress and checks. */
  frames: number;
  durationSec: number;
}

/** Frames a segment occupies on the reel (cuts are frame-aligned, so these add up exactly). */
export const segmentFrames = (seg: Segment, fps: number) => Math.round(seg.end * fps) - Math.round(seg.start * fps);

/**
 * The input options for one segment: seek into its clip, a guard, the file. `threads` is the
 * render's thread budget (RENDER_THREADS), which bounds the decoder as well as the encoder.
 */
export function segmentInputArgs(seg: Segment, clip: MediaInfo, fps: number, threads?: number): string[] {
  const available = seg.out - seg.in;
  // Input seeking: ffmpeg jumps to the keyframe before `in` and decodes from there; a little
  // extra duration keeps the last frame available for the trim.
  // At most two decoder threads per input: fifteen inputs with a frame-thread pool each would
  // oversubscribe the cores and hold a frame pool each in memory.
  return [
    '-threads',
    String(decoderThreads(threads)),
    '-ss',
    num(seg.in),
    '-t',
    num(available + 2 / fps),
    ...INPUT_GUARD,
    '-i',
    `file:${clip.path}`,
  ];
}

/** Decoder threads per input: two, or fewer when the render's budget is smaller. */
export const decoderThreads = (threads?: number) => Math.min(2, threads ?? 2);

/** The opening of every render command: quiet, never reads stdin, overwrites, progress on stdout twice a second. */
export const progressArgs = (): string[] => [
  '-hide_banner',
  '-nostdin',
  '-y',
  '-v',
  'error',
  '-progress',
  'pipe:1',
  '-stats_period',
  '0.5',
];

/**
 * Global options that keep the filter graph inside the render's thread budget (RENDER_THREADS):
 * unset, ffmpeg runs the scalers and the rest of the graph on one thread per core, so a worker
 * told to use one core would use them all. Must come before the inputs.
 */
export const filterThreadArgs = (threads?: number): string[] =>
  threads ? ['-filter_complex_threads', String(threads), '-filter_threads', String(threads)] : [];

/**
 * The filters for one segment read from input `i`: its picture as `[v<i>]` and, with `audio`,
 * its sound as `[a<i>]`, each exactly as long as the segment's frames. The picture fills the
 * output frame by the segment's framing (its crop path), or by the request's `framing` when the
 * plan has none (render-framing.ts).
 */
export function segmentFilters(
  seg: Segment,
  i: number,
  clip: MediaInfo,
  fps: number,
  out: { width: number; height: number },
  framing: FramingName,
  audio: boolean,
): string[] {
  const frames = segmentFrames(seg, fps);
  const filters = [
    // fps first: frames a 60 fps (or VFR) source would drop are never scaled; the crop path counts these frames.
    `[${i}:v]setpts=PTS-STARTPTS,fps=${fps},${framingFilter(seg, clip.video!, out, framing, fps)},format=yuv420p,` +
      // Exactly `frames` frames per segment, whatever the source delivers: the last frame is
      // held for the plan's hold, and for any frames a variable-rate or short source lacks at
      // its end, so later cuts stay on their beats.
      `tpad=stop_mode=clone:stop=-1,trim=end_frame=${frames},setpts=PTS-STARTPTS[v${i}]`,
  ];
  if (audio) filters.push(segmentSoundFilter(seg, clip.audio ? i : -1, i, fps));
  return filters;
}

/**
 * A segment's sound as `[a<label>]`, exactly as long as its frames: input `input`'s sound, or
 * silence when `input` is -1 (a clip without sound).
 */
export function segmentSoundFilter(seg: Segment, input: number, label: number, fps: number): string {
  const samples = Math.round((segmentFrames(seg, fps) / fps) * AUDIO_RATE);
  return input >= 0
    ? `[${input}:a]asetpts=PTS-STARTPTS,aresample=${AUDIO_RATE},aformat=sample_fmts=fltp:channel_layouts=stereo,apad,atrim=end_sample=${samples}[a${label}]`
    : `anullsrc=r=${AUDIO_RATE}:cl=stereo,atrim=end_sample=${samples}[a${label}]`;
}

/**
 * The reel's sound as delivered (AAC stereo at the engine's rate) and the moov atom first, so
 * playback starts before the download ends: the single pass and the join of a long reel alike.
 */
export const deliveryAudioArgs = (): string[] => [
  '-c:a',
  'aac',
  '-b:a',
  '192k',
  '-ar',
  String(AUDIO_RATE),
  '-ac',
  '2',
  '-movflags',
  '+faststart',
];

/** H.264 at the engine's settings (the single pass and the chunks of a long reel alike). */
/** x264's presets, fastest first: each slower one spends more CPU for a smaller file at the same quality. */
export const X264_PRESETS = ['ultrafast', 'superfast', 'veryfast', 'faster', 'fast', 'medium', 'slow', 'slower', 'veryslow'] as const;
export type X264Preset = (typeof X264_PRESETS)[number];

export function videoCodecArgs(fps: number, preset: X264Preset = 'veryfast', threads?: number): string[] {
  return [
    '-c:v',
    'libx264',
    // The encoder's threads (RENDER_THREADS); unset, x264 picks about 1.5 per core.
    ...(threads ? ['-threads', String(threads)] : []),
    '-preset',
    preset,
    '-crf',
    '21',
    '-pix_fmt',
    'yuv420p',
    // Constant frame rate, a keyframe every two seconds for seeking in players.
    '-r',
    String(fps),
    '-fps_mode',
    'cfr',
    '-g',
    String(fps * 2),
  ];
}

export function buildRenderArgs(input: RenderArgsInput): BuiltCommand {
  const { plan, settings } = input;
  const out = ASPECTS[settings.aspect];
  const fps = plan.fps;
  const args = [...progressArgs(), ...filterThreadArgs(input.threads)];
  const filters: string[] = [];
  const withMusic = Boolean(input.music);

  plan.segments.forEach((seg, i) => {
    const clip = input.clips[seg.clip]!;
    args.push(...segmentInputArgs(seg, clip, fps, input.threads));
    filters.push(...segmentFilters(seg, i, clip, fps, out, resolveFraming(settings), !withMusic));
  });
  const n = plan.segments.length;
  const totalFrames = plan.segments.reduce((s, seg) => s + segmentFrames(seg, fps), 0);
  const total = totalFrames / fps;
  const pads = plan.segments.map((_, i) => (withMusic ? `[v${i}]` : `[v${i}][a${i}]`)).join('');
  filters.push(`${pads}concat=n=${n}:v=1:a=${withMusic ? 0 : 1}${withMusic ? '[vc]' : '[vc][ac]'}`);

  // Title, then fades on top of everything (so the title fades out with the picture).
  let v = '[vc]';
  if (input.title) {
    filters.push(`${v}subtitles=filename=${filterValue(input.title.assFile)}[vt]`);
    v = '[vt]';
  }
  const fades = fadeTimes(settings, total);
  const vf = fades ? `fade=t=in:st=0:d=${num(fades.in)},fade=t=out:st=${num(total - fades.out)}:d=${num(fades.out)}` : 'null';
  const thumbFrame = input.thumbnail ? Math.min(totalFrames - 1, Math.max(0, Math.round(input.thumbnail.atSec * fps))) : -1;
  if (input.thumbnail) {
    // One frame goes to the thumbnail branch; trim drops the rest, so nothing waits on it.
    filters.push(`${v}${vf},split=2[vout][vth]`);
    filters.push(`[vth]trim=start_frame=${thumbFrame}:end_frame=${thumbFrame + 1},scale=640:-2[thumb]`);
  } else {
    filters.push(`${v}${vf}[vout]`);
  }

  if (withMusic) {
    args.push(...musicInputArgs(input.music!, plan, total));
    filters.push(`[${n}:a]${musicWindowAudioFilter(plan, settings, total)}[aout]`);
  } else {
    const af = fades ? `afade=t=in:st=0:d=${num(fades.in)},afade=t=out:st=${num(total - fades.out)}:d=${num(fades.out)}` : 'anull';
    filters.push(`[ac]${af}[aout]`);
  }

  args.push(
    '-filter_complex',
    filters.join(';\n'),
    '-map',
    '[vout]',
    '-map',
    '[aout]',
    ...videoCodecArgs(fps, input.preset, input.threads),
    ...deliveryAudioArgs(),
    // No -frames:v here: it closes the file on the last video frame and drops audio still queued.
    // The filters already cut both streams to the exact length.
    '-f',
    'mp4',
    input.output,
  );
  if (input.thumbnail) {
    args.push('-map', '[thumb]', '-frames:v', '1', '-q:v', '3', '-update', '1', '-f', 'image2', `file:${input.thumbnail.path}`);
  }
  return { args, frames: totalFrames, durationSec: total };
}

/** Fade-in of a window that starts inside the song, seconds: long enough that it never clicks. */
export const WINDOW_FADE_IN_SEC = 0.03;

/** The part of the plan that says which part of the song plays (plan.ts `EditPlan`). */
export type MusicWindowPlan = Pick<EditPlan, 'musicStart' | 'musicFadeOutSec'>;

/**
 * The music's input options for a reel of `totalSec`: seek to the window's start
 * (`plan.musicStart`; ffmpeg decodes from there sample-exactly) and read a second more than the
 * reel, so the trim below always has enough.
 */
export function musicInputArgs(music: MediaInfo, plan: MusicWindowPlan, totalSec: number): string[] {
  const start = plan.musicStart ?? 0;
  return [...(start > 0 ? ['-ss', num(start)] : []), '-t', num(totalSec + 1), ...INPUT_GUARD, '-i', `file:${music.path}`];
}

/**
 * The whole audio chain of a reel with music, from the music input (opened with
 * `musicInputArgs`) to the reel's sound: normalised to the delivery format, exactly `totalSec`
 * long (padded with silence if the music is shorter), then the fades:
 *  - in: the settings' fade-in when fades are on; a window that starts after 0 s fades in over
 *    at least WINDOW_FADE_IN_SEC so the cut into the song never clicks;
 *  - out: the settings' fade-out when fades are on; a window that ends before the song does
 *    fades out over at least its last beat (`plan.musicFadeOutSec`), ending with the picture.
 * Used by the single pass and by the join of a long reel alike (one continuous track).
 */
export function musicWindowAudioFilter(plan: MusicWindowPlan, settings: RenderSettings, totalSec: number): string {
  const totalSamples = Math.round(totalSec * AUDIO_RATE);
  const fades = fadeTimes(settings, totalSec);
  const fadeIn = Math.max(fades?.in ?? 0, (plan.musicStart ?? 0) > 0 ? WINDOW_FADE_IN_SEC : 0);
  const fadeOut = Math.min(totalSec * 0.5, Math.max(fades?.out ?? 0, plan.musicFadeOutSec ?? 0));
  const chain = [
    'asetpts=PTS-STARTPTS',
    `aresample=${AUDIO_RATE}`,
    'aformat=sample_fmts=fltp:channel_layouts=stereo',
    'apad',
    `atrim=end_sample=${totalSamples}`,
  ];
  if (fadeIn > 0) chain.push(`afade=t=in:st=0:d=${num(fadeIn)}`);
  if (fadeOut > 0) chain.push(`afade=t=out:st=${num(totalSec - fadeOut)}:d=${num(fadeOut)}`);
  return chain.join(',');
}

/** Fade lengths that fit the reel (each at most 40 % of it), or none. */
export function fadeTimes(settings: RenderSettings, total: number): { in: number; out: number } | null {
  if (!settings.enable_fades) return null;
  const fi = Math.min(settings.fade_in_duration_sec, total * 0.4);
  const fo = Math.min(settings.fade_out_duration_sec, total * 0.4);
  return fi > 0 || fo > 0 ? { in: Math.max(fi, 0.001), out: Math.max(fo, 0.001) } : null;
}

/** Where the thumbnail is taken: after the fade-in, between a quarter and half of the reel. */
export function thumbnailTime(settings: RenderSettings, total: number): number {
  const fades = fadeTimes(settings, total);
  return Math.min(total * 0.5, Math.max(total * 0.25, (fades?.in ?? 0) + 0.5));
}

/**
 * Several small JPEGs of one video in one ffmpeg process: an input per moment (each seeks on its
 * own, as buildThumbnailArgs does), an output per input. A long plan's timeline needs hundreds;
 * one process each would spend most of its time starting ffmpeg.
 */
export function buildFramesArgs(file: string, ats: readonly number[], outputs: readonly string[], width: number): string[] {
  if (ats.length !== outputs.length) throw new Error('one output per moment');
  // Alike buildThumbnailArgs's on purpose (the same picture per moment); separate because this one maps each input explicitly.
  return [
    '-hide_banner',
    '-nostdin',
    '-y',
    '-v',
    'error',
    ...ats.flatMap((at) => ['-ss', num(Math.max(0, at)), ...INPUT_GUARD, '-i', `file:${file}`]),
    ...outputs.flatMap((out, i) => ['-map', `${i}:v:0`, '-frames:v', '1', '-vf', `scale=${width}:-2`, '-q:v', '3', '-f', 'image2', out]),
  ];
}

/** A JPEG thumbnail of a stored file at `at` seconds (uploads; reels get theirs from the render). */
export function buildThumbnailArgs(reel: string, at: number, output: string): string[] {
  return [
    '-hide_banner',
    '-nostdin',
    '-y',
    '-v',
    'error',
    '-ss',
    num(at),
    ...INPUT_GUARD,
    '-i',
    `file:${reel}`,
    '-frames:v',
    '1',
    '-vf',
    'scale=640:-2',
    '-q:v',
    '3',
    '-f',
    'image2',
    output,
  ];
}
