import path from 'node:path';
import { renderReel, type EditPlan } from '@reelsmith/engine';
import { planFromWire } from '@reelsmith/proto';
import type { Renderer } from '../domain/render-job.service.js';

/**
 * The render engine, writing the reel and its thumbnail into the job's scratch folder; `threads`
 * are the encoder's (RENDER_THREADS), unset for the encoder's own choice.
 */
export const engineRenderer = (threads?: number): Renderer => ({
  async render(input) {
    const r = await renderReel({
      clips: input.clips,
      music: input.music,
      settings: input.request,
      output: path.join(input.dir, 'reel.mp4'),
      thumbnail: path.join(input.dir, 'reel.jpg'),
      analyses: input.analyses,
      // A plan the user saw (and perhaps edited): rendered exactly, no planning of our own.
      plan: input.request.plan ? (planFromWire(input.request.plan) as EditPlan) : undefined,
      signal: input.signal,
      tmpRoot: input.dir,
      onProgress: input.onProgress,
      threads,
    });
    return { output: r.output, thumbnail: r.thumbnail, durationSec: r.durationSec };
  },
});
