/**
 * The job progress card's steps (spec section 4). `at` is where a step begins in the real
 * percentage as the render worker reports it: preparing and analysing below 10 %, rendering from
 * 10 %, finalizing from 95 % (packages/engine/src/render.ts).
 */
// The web shares the length rule with the engine and the orchestrator: the pure file itself, not a copy.
import { reelSeconds } from '../../../../proto/src/reel-length.ts';

export const PROGRESS_STEPS = [
  { label: 'Queued', at: 0 },
  { label: 'Initializing', at: 0 },
  { label: 'Processing', at: 10 },
  { label: 'Finalizing', at: 95 },
  { label: 'Complete', at: 100 },
] as const;
export type StepLabel = (typeof PROGRESS_STEPS)[number]['label'];

/**
 * The card's step: the stage the server names in the job's message (so the words and the bar come
 * from the same report), else the one the percentage falls in.
 */
export function stepFor(progress: number, status: string, message?: string): StepLabel {
  if (status === 'queued') return 'Queued';
  if (status === 'completed') return 'Complete';
  if (message === 'Initializing' || message === 'Processing' || message === 'Finalizing') return message;
  let label: StepLabel = 'Initializing';
  for (const s of PROGRESS_STEPS) if (s.label !== 'Queued' && s.label !== 'Complete' && progress >= s.at) label = s.label;
  return label;
}

/** The steps reached by the card's current step (those before it, and it). */
export const stepsReached = (label: StepLabel) => PROGRESS_STEPS.findIndex((s) => s.label === label);

/** The spec's supported formats, by extension: for files the browser gives no type. */
const VIDEO_EXT = /\.(mp4|mov|avi|mkv)$/i;
const AUDIO_EXT = /\.(mp3|wav|aac|m4a)$/i;
const kindOf = (f: { type: string; name?: string }): 'video' | 'audio' | null => {
  if (f.type.startsWith('video/')) return 'video';
  if (f.type.startsWith('audio/')) return 'audio';
  if (!f.type && f.name && VIDEO_EXT.test(f.name)) return 'video';
  if (!f.type && f.name && AUDIO_EXT.test(f.name)) return 'audio';
  return null;
};

/**
 * Drag and drop (and the picker) keep only video and audio files, and only the first audio file;
 * `refused` holds the files left out (not video or audio), `extraAudio` the audio files after the
 * first, so the tray can say why they are not there.
 */
export function acceptDropped<T extends { type: string; name?: string }>(
  files: T[],
  haveAudio: boolean,
): { videos: T[]; audio?: T; refused: T[]; extraAudio: T[] } {
  const videos = files.filter((f) => kindOf(f) === 'video');
  const audios = files.filter((f) => kindOf(f) === 'audio');
  const audio = haveAudio ? undefined : audios[0];
  return { videos, audio, refused: files.filter((f) => kindOf(f) === null), extraAudio: audios.filter((f) => f !== audio) };
}

/** What the tray says about the files it left out; '' when it kept them all. */
export function refusedMessage(refused: readonly { name: string }[], extraAudio: readonly { name: string }[]): string {
  const list = (xs: readonly { name: string }[]) => xs.map((x) => x.name).join(', ');
  const parts: string[] = [];
  if (refused.length)
    parts.push(
      `${list(refused)} ${refused.length === 1 ? 'is not a video or audio file' : 'are not video or audio files'} and ${refused.length === 1 ? 'was' : 'were'} not added. Supported formats: MP4, MOV, AVI, MKV for video; MP3, WAV, AAC, M4A for audio.`,
    );
  if (extraAudio.length)
    parts.push(`Only one music track can be used: ${list(extraAudio)} ${extraAudio.length === 1 ? 'was' : 'were'} not added.`);
  return parts.join(' ');
}

export const MB = 1024 * 1024;

/** A byte count as people read it: 600MB, 3GB (the spec's wording of the plan limits). */
export function sizeLabel(bytes: number): string {
  const gb = bytes / (1024 * MB);
  return gb >= 1 ? `${Number(gb.toFixed(1))}GB` : `${Math.round(bytes / MB)}MB`;
}

/**
 * How long the reel will be, by the engine's length rule (`reelSeconds`, defined once in
 * proto/src/reel-length.ts, as the orchestrator prices and caps it). Unknown (undefined) until
 * every duration it needs is read.
 */
export function knownReelSeconds(
  clipSeconds: Array<number | undefined>,
  musicSeconds: number | undefined,
  hasMusic: boolean,
  targetSeconds?: number | null,
): number | undefined {
  if (hasMusic) return musicSeconds === undefined ? undefined : reelSeconds([], musicSeconds, targetSeconds);
  if (clipSeconds.some((s) => s === undefined)) return undefined;
  return reelSeconds(clipSeconds as number[], undefined, targetSeconds);
}

/** Over the plan's longest reel, counted in whole milliseconds as the server does (3:00 of clips is not over). */
export const overReelCap = (seconds: number, capSeconds: number) => Math.round(seconds * 1000) > capSeconds * 1000;

/** A local file's duration in seconds, read by the browser from its metadata (0 if unreadable). */
export function readDuration(file: File): Promise<number> {
  return new Promise((resolve) => {
    const el = document.createElement(file.type.startsWith('audio/') ? 'audio' : 'video');
    const url = URL.createObjectURL(file);
    const done = (seconds: number) => {
      URL.revokeObjectURL(url);
      el.removeAttribute('src');
      resolve(Number.isFinite(seconds) && seconds > 0 ? seconds : 0);
    };
    el.preload = 'metadata';
    el.onloadedmetadata = () => done(el.duration);
    el.onerror = () => done(0);
    el.src = url;
  });
}
