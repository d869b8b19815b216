import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DomainError, ErrorCode } from '@reelsmith/kit';
import crypto from 'node:crypto';
import { pipeline } from 'node:stream/promises';
import {
  CLIP_ANALYSIS_VERSION,
  MUSIC_ANALYSIS_VERSION,
  analyseClip,
  analyseMusic,
  buildFramesArgs,
  buildThumbnailArgs,
  decodeAudio,
  execMedia,
  isEngineError,
  probe,
} from '@reelsmith/engine';
import type { ObjectStore } from '@reelsmith/kit';
import type { LibraryObjects, LibraryTools } from '../domain/library.service.js';
import type { MediaTools } from '../domain/media.service.js';
import { LUMA_SAMPLES_PER_SEC, LUMA_WINDOW_SEC, thumbnailMoment } from '../domain/thumbnail-moment.js';

/** Width of the edit plan's timeline frames (JPEG, height to match). */
const SMALL_FRAME = 240;
/** Waveform slices of an uploaded track (the timeline's resolution). */
const UPLOAD_WAVEFORM_PEAKS = 400;

async function frameAt(file: string, at: number, width?: number): Promise<Buffer> {
  const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'reelsmith-thumb-'));
  try {
    const out = path.join(dir, 'frame.jpg');
    const args = buildThumbnailArgs(file, Math.max(0, at), out);
    if (width) args[args.indexOf('scale=640:-2')] = `scale=${width}:-2`;
    await execMedia('ffmpeg', args, { timeoutMs: 30_000 });
    return await fs.promises.readFile(out);
  } finally {
    await fs.promises.rm(dir, { recursive: true, force: true });
  }
}

/** Mean luma (0-255) of the first LUMA_WINDOW_SEC of a video, LUMA_SAMPLES_PER_SEC frames a second (32x18 grey). */
async function lumas(file: string, durationSec: number): Promise<number[]> {
  const size = 32 * 18;
  const chunks: Buffer[] = [];
  const args = ['-hide_banner', '-nostdin', '-v', 'error', '-t', String(Math.min(durationSec, LUMA_WINDOW_SEC)), '-i', `file:${file}`];
  args.push('-an', '-vf', `fps=${LUMA_SAMPLES_PER_SEC},scale=32:18,format=gray`, '-f', 'rawvideo', 'pipe:1');
  await execMedia('ffmpeg', args, { timeoutMs: 30_000, onStdout: (c) => void chunks.push(c) });
  const all = Buffer.concat(chunks);
  const out: number[] = [];
  for (let o = 0; o + size <= all.length; o += size) {
    let sum = 0;
    for (let i = o; i < o + size; i++) sum += all[i]!;
    out.push(sum / size);
  }
  return out;
}

/** A video's thumbnail: a second in, or the first frame after a fade from black (thumbnailMoment). */
async function thumbnail(file: string, durationSec: number): Promise<Buffer> {
  const preferred = Math.min(1, durationSec / 2);
  const at = await lumas(file, durationSec).then(
    (ys) => thumbnailMoment(ys, preferred),
    () => preferred, // a file ffmpeg cannot sample this way still gets its usual frame
  );
  return frameAt(file, at);
}

/** Small JPEGs of one video at `ats` (seconds), made by one ffmpeg process. */
async function framesAt(file: string, ats: number[], width: number): Promise<Buffer[]> {
  const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'reelsmith-frames-'));
  try {
    const outs = ats.map((_, i) => path.join(dir, `frame-${i}.jpg`));
    await execMedia('ffmpeg', buildFramesArgs(file, ats, outs, width), { timeoutMs: 30_000 + 2000 * ats.length });
    return await Promise.all(outs.map((o) => fs.promises.readFile(o)));
  } finally {
    await fs.promises.rm(dir, { recursive: true, force: true });
  }
}

/** Peak amplitude (0..1) of `count` equal slices of a track: a waveform. */
async function peaks(file: string, count: number): Promise<number[]> {
  const rate = 4000;
  const samples = await decodeAudio(file, rate);
  const out: number[] = [];
  const slice = Math.max(1, Math.floor(samples.length / count));
  for (let i = 0; i < count && i * slice < samples.length; i++) {
    let peak = 0;
    for (let j = i * slice; j < Math.min(samples.length, (i + 1) * slice); j++) peak = Math.max(peak, Math.abs(samples[j]!));
    out.push(Math.round(Math.min(1, peak) * 1000) / 1000);
  }
  return out;
}

/** ffprobe, thumbnails and analyses through the render engine's own code. */
export const engineTools: MediaTools = {
  async probe(file, displayName) {
    try {
      const info = await probe(file, 'any');
      return {
        kind: info.video ? 'video' : 'audio',
        formatName: info.formatName,
        durationSec: info.durationSec,
        width: info.video?.width ?? 0,
        height: info.video?.height ?? 0,
        videoCodec: info.video?.codec ?? '',
        audioCodec: info.audio?.codec ?? '',
      };
    } catch (e) {
      if (isEngineError(e)) {
        // The engine names the temporary file; the user knows their own file name.
        const reason = e.message.replace(/^[^:]*:\s*/, '');
        throw new DomainError(ErrorCode.INVALID_ARGUMENT, `${displayName}: ${reason}`, 'unsupported_media');
      }
      throw e;
    }
  },
  thumbnail,
  frame: (file, atSec) => frameAt(file, atSec, SMALL_FRAME),
  framesOf: (file, atSecs) => framesAt(file, atSecs, SMALL_FRAME),
  analysisVersions: { video: CLIP_ANALYSIS_VERSION, audio: MUSIC_ANALYSIS_VERSION },
  async analyse(file, kind, durationSec, video) {
    // The probe's codec and size let a light clip skip the packet index (frame rate assumed 30).
    if (kind === 'video') return analyseClip(file, durationSec, undefined, undefined, { video: video && { ...video, fps: 30 } });
    const { rawBeats: _raw, ...music } = await analyseMusic(file, durationSec);
    // The waveform the timeline draws, kept with the analysis.
    return { ...music, peaks: await peaks(file, UPLOAD_WAVEFORM_PEAKS) };
  },
};

/** The upload tools, plus what library imports need: content hash, frames and a waveform. */
export const libraryTools: LibraryTools = {
  ...engineTools,
  async hash(file) {
    const h = crypto.createHash('sha256');
    await pipeline(fs.createReadStream(file), h);
    return h.digest('hex');
  },
  frameAt,
  peaks,
  sizeOf: async (file) => (await fs.promises.stat(file)).size,
};

export const libraryObjects = (store: ObjectStore): LibraryObjects => ({
  putFile: async (key, file, contentType) => void (await store.put(key, fs.createReadStream(file), { contentType })),
  put: (key, body, opts) => store.put(key, body, opts),
  withLocalFile: (key, fn) => store.withLocalFile(key, fn),
  delete: (key) => store.delete(key),
  copy: async (from, to) => {
    const info = await store.stat(from);
    if (!info) return false;
    await store.put(to, await store.get(from));
    return true;
  },
});
