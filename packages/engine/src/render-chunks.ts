/**
 * A long reel's three kinds of work as separate calls, so that any process can do any part: one
 * render (renderReel) runs them one after another; render workers take the chunks of one reel at
 * once and one of them joins (services/render-worker). Each call runs ffmpeg through the one
 * executor and leaves nothing behind but its output.
 */
import fs from 'node:fs';
import path from 'node:path';
import { EngineError } from './errors.js';
import { execMedia } from './exec.js';
import { STALL_MS } from './watchdog.js';
import { prepareFonts } from './fonts.js';
import type { EditPlan } from './plan.js';
import type { MediaInfo } from './probe.js';
import type { BuiltCommand, X264Preset } from './render-args.js';
import { AUDIO_BATCH_SEGMENTS, buildClipSoundArgs, buildJoinSoundArgs, buildMusicTrackArgs } from './render-audio-args.js';
import { buildChunkArgs, buildJoinArgs, concatList, planBatches, type Batch } from './render-batch-args.js';
import { ASPECTS, type RenderSettings } from './settings.js';
import { titleScript } from './title.js';

export interface RunOptions {
  /** The overall cap: killed after this long (TIMEOUT), progress or not. Set it generously (renderLimits). */
  timeoutMs: number;
  /** Names the cap in its error. */
  capReason?: string;
  /** Killed when ffmpeg shows no new frame or output time this long (TIMEOUT); default STALL_MS. */
  stallMs?: number;
  signal?: AbortSignal;
  /** 0..1 of this call's work, as ffmpeg reports it. */
  onProgress?: (fraction: number) => void;
}

/** The title's script and fonts in `dir` (when the title is on), for the chunks that draw it. */
export function prepareTitle(
  settings: RenderSettings,
  plan: EditPlan,
  dir: string,
): { title?: { assFile: string }; fontEnv?: Record<string, string> } {
  if (!settings.title_config.enabled || !settings.title_config.text.trim()) return {};
  const out = ASPECTS[settings.aspect];
  const assFile = path.join(dir, 'title.ass');
  fs.writeFileSync(assFile, titleScript(settings.title_config, out.width, out.height, plan.totalSec));
  return { title: { assFile }, fontEnv: prepareFonts(dir) };
}

async function run(cmd: BuiltCommand, opts: RunOptions, env?: Record<string, string>): Promise<void> {
  await execMedia('ffmpeg', cmd.args, {
    timeoutMs: opts.timeoutMs,
    capReason: opts.capReason,
    stallMs: opts.stallMs ?? STALL_MS,
    signal: opts.signal,
    env,
    onProgress: (f) => {
      const us = Number(f.out_time_us ?? f.out_time_ms ?? 0);
      if (Number.isFinite(us) && us > 0) opts.onProgress?.(Math.min(1, us / 1e6 / cmd.durationSec));
    },
  });
}

const mustExist = (file: string, what: string) => {
  if (!fs.existsSync(file) || fs.statSync(file).size === 0) throw new EngineError('RENDER_FAILED', `ffmpeg wrote no ${what}`);
};

export interface ChunkTask {
  clips: MediaInfo[];
  plan: EditPlan;
  settings: RenderSettings;
  batch: Batch;
  /** The reel's frames: the fades and the title are placed on its clock. */
  totalFrames: number;
  /** The video-only MP4 chunk. */
  output: string;
  /** From prepareTitle. */
  title?: { assFile: string };
  fontEnv?: Record<string, string>;
  /** The reel's thumbnail: written only by the chunk that holds `atSec`. */
  thumbnail?: { path: string; atSec: number };
  threads?: number;
  /** The x264 preset (RENDER_PRESET); default `veryfast`. */
  preset?: X264Preset;
}

/** One chunk of the reel's picture; true when it also wrote the thumbnail. */
export async function renderChunk(task: ChunkTask, opts: RunOptions): Promise<{ frames: number; thumbnail: boolean }> {
  const cmd = buildChunkArgs({ ...task, video: task.output });
  await run(cmd, opts, task.fontEnv);
  mustExist(task.output, `chunk ${path.basename(task.output)}`);
  const thumbnail = Boolean(task.thumbnail && cmd.args.includes(`file:${task.thumbnail.path}`));
  if (thumbnail) mustExist(task.thumbnail!.path, 'thumbnail');
  return { frames: cmd.frames, thumbnail };
}

export interface AudioTrackTask {
  clips: MediaInfo[];
  music?: MediaInfo;
  plan: EditPlan;
  settings: RenderSettings;
  totalFrames: number;
  /** PCM WAV of the whole track. */
  output: string;
  /** Where the pieces of clip sound go meanwhile (removed after). */
  dir: string;
}

/**
 * The reel's whole sound track, once, as PCM exactly as long as its frames, with its fades: the
 * music window, or the clips' sound in pieces of many segments joined by one last process.
 */
export async function renderAudioTrack(task: AudioTrackTask, opts: RunOptions): Promise<void> {
  if (task.music) {
    await run(buildMusicTrackArgs({ ...task, music: task.music }), opts);
  } else {
    const pieces = planBatches(task.plan, task.clips, { maxSegments: AUDIO_BATCH_SEGMENTS, maxPixels: Infinity });
    const names: Array<{ file: string; durationSec: number }> = [];
    const started = Date.now();
    try {
      for (const [k, batch] of pieces.entries()) {
        const file = `sound-${String(k).padStart(4, '0')}.wav`;
        names.push({ file, durationSec: batch.frames / task.plan.fps });
        const left = opts.timeoutMs - (Date.now() - started);
        if (left <= 0)
          throw new EngineError(
            'TIMEOUT',
            `the sound track did not finish within ${Math.round(opts.timeoutMs / 1000)} s (${opts.capReason ?? 'its overall cap'})`,
          );
        await run(buildClipSoundArgs({ clips: task.clips, plan: task.plan, batch, output: path.join(task.dir, file) }), {
          ...opts,
          timeoutMs: left,
          onProgress: (f) => opts.onProgress?.((0.9 * (batch.startFrame + f * batch.frames)) / task.totalFrames),
        });
      }
      const list = path.join(task.dir, 'sound.txt');
      fs.writeFileSync(list, concatList(names));
      await run(
        buildJoinSoundArgs({ settings: task.settings, fps: task.plan.fps, totalFrames: task.totalFrames, list, output: task.output }),
        {
          ...opts,
          timeoutMs: Math.max(1000, opts.timeoutMs - (Date.now() - started)),
          onProgress: (f) => opts.onProgress?.(0.9 + 0.1 * f),
        },
      );
    } finally {
      for (const n of names) fs.rmSync(path.join(task.dir, n.file), { force: true });
      fs.rmSync(path.join(task.dir, 'sound.txt'), { force: true });
    }
  }
  mustExist(task.output, 'sound track');
}

export interface JoinTask {
  /** The folder holding the chunks (and where the list is written). */
  dir: string;
  /** The chunks in reel order: plain file names in `dir` and their frames. */
  chunks: Array<{ file: string; frames: number }>;
  fps: number;
  /** The whole sound track (renderAudioTrack). */
  audio: string;
  output: string;
}

/** The chunks joined by copying the picture, with the sound track encoded; moov first. */
export async function joinChunks(task: JoinTask, opts: RunOptions): Promise<{ frames: number; durationSec: number }> {
  const videoList = path.join(task.dir, 'video.txt');
  fs.writeFileSync(videoList, concatList(task.chunks.map((c) => ({ file: c.file, durationSec: c.frames / task.fps }))));
  const totalFrames = task.chunks.reduce((s, c) => s + c.frames, 0);
  try {
    const cmd = buildJoinArgs({ fps: task.fps, totalFrames, videoList, audio: task.audio, output: task.output });
    await run(cmd, opts);
    mustExist(task.output, 'reel');
    return { frames: totalFrames, durationSec: cmd.durationSec };
  } finally {
    fs.rmSync(videoList, { force: true });
  }
}
