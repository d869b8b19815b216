import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildThumbnailArgs, execMedia } from '@reelsmith/engine';
import type { FrameGrabber } from '../domain/showcase.service.js';

/** Three frames at a quarter, a half and three quarters of the reel, 640 px wide, by the engine's thumbnail command. */
export const grabPreviewFrames: FrameGrabber = async (file, durationSec) => {
  const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'reelsmith-frames-'));
  try {
    const frames: Buffer[] = [];
    for (const share of [0.25, 0.5, 0.75]) {
      const out = path.join(dir, `f${frames.length}.jpg`);
      await execMedia('ffmpeg', buildThumbnailArgs(file, Math.max(0, durationSec * share), out), { timeoutMs: 30_000 });
      frames.push(await fs.promises.readFile(out));
    }
    return frames;
  } finally {
    await fs.promises.rm(dir, { recursive: true, force: true });
  }
};
