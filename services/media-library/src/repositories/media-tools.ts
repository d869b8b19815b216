import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DomainError, ErrorCode } from '@reelsmith/kit';
import { analyseClip, analyseMusic, buildThumbnailArgs, execMedia, isEngineError, probe } from '@reelsmith/engine';
import type { MediaTools } from '../domain/media.service.js';

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
  async thumbnail(file, durationSec) {
    const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'reelsmith-thumb-'));
    try {
      const out = path.join(dir, 'thumb.jpg');
      await execMedia('ffmpeg', buildThumbnailArgs(file, Math.min(1, durationSec / 2), out), { timeoutMs: 30_000 });
      return await fs.promises.readFile(out);
    } finally {
      await fs.promises.rm(dir, { recursive: true, force: true });
    }
  },
  async analyse(file, kind, durationSec) {
    if (kind === 'video') return analyseClip(file, durationSec);
    const { rawBeats: _raw, ...music } = await analyseMusic(file, durationSec);
    return music;
  },
};
