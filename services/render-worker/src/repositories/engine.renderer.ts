import path from 'node:path';
import { planBatches, prepare, renderLimits, renderReel, thumbnailTime, type EditPlan, type MediaInfo } from '@reelsmith/engine';
import { planFromWire } from '@reelsmith/proto';
import type { Renderer } from '../domain/render-job.service.js';
import type { ChunkWork, HeavySlot } from './chunks.js';

export interface EngineRendererOptions {
  /** Encoder threads (RENDER_THREADS); unset for the encoder's own choice. */
  threads?: number;
  /** Segments per chunk (RENDER_CHUNK_SEGMENTS); unset: the engine's batch size. */
  chunkSegments?: number;
  /** Long reels are spread over every worker through these; without, rendered here in batches. */
  chunks?: ChunkWork;
  heavy: HeavySlot;
}

/**
 * The render engine, writing the reel and its thumbnail into the job's scratch folder. The job is
 * prepared (probed, analysed, planned) once, here; a plan of one batch renders in a single pass on
 * this worker from that preparation, a longer one is coordinated from here as chunk tasks that any
 * worker takes (chunks.ts).
 */
export const engineRenderer = (o: EngineRendererOptions): Renderer => ({
  async render(input) {
    const output = path.join(input.dir, 'reel.mp4');
    const thumbnail = path.join(input.dir, 'reel.jpg');
    // A plan the user saw (and perhaps edited): rendered exactly, no planning of our own.
    const given = input.request.plan ? (planFromWire(input.request.plan) as EditPlan) : undefined;
    const batch = o.chunkSegments ? { maxSegments: o.chunkSegments } : undefined;
    const prepared = await prepare(
      {
        clips: input.clips,
        music: input.music,
        settings: input.request,
        analyses: input.analyses,
        targetSec: input.request.target_duration_sec ?? undefined,
        musicStartSec: input.request.music_start_sec ?? undefined,
        plan: given,
        signal: input.signal,
        // RENDER_THREADS bounds the analysis's decoders as it bounds the encoder.
        threads: o.threads,
      },
      input.onProgress,
    );
    const batches = planBatches(prepared.plan, prepared.clips, batch);
    if (batches.length === 1 || !o.chunks) {
      // The render takes what was prepared above: each clip is probed once per job.
      const r = await o.heavy.run(() =>
        renderReel({
          clips: input.clips,
          music: input.music,
          settings: input.request,
          output,
          thumbnail,
          prepared,
          signal: input.signal,
          tmpRoot: input.dir,
          onProgress: input.onProgress,
          threads: o.threads,
          batch,
        }),
      );
      return { output: r.output, thumbnail: r.thumbnail, durationSec: r.durationSec };
    }
    input.onProgress(10, 'rendering');
    const r = await o.chunks.coordinate({
      job: input.job,
      attempt: input.attempt,
      clips: prepared.clips,
      music: prepared.music,
      plan: prepared.plan,
      settings: prepared.settings,
      batches,
      thumbnailAtSec: thumbnailTime(prepared.settings, prepared.plan.totalSec),
      dir: input.dir,
      output,
      thumbnail,
      signal: input.signal,
      // A generous cap (each ffmpeg process is judged on stalled progress): twice one worker's,
      // for the wait for free workers.
      ...coordinatorCap(prepared.plan.totalSec, [...prepared.clips, ...(prepared.music ? [prepared.music] : [])], o.threads),
      onProgress: (p) => input.onProgress(p, p >= 95 ? 'finalizing' : 'rendering'),
    });
    return { output, thumbnail, durationSec: r.durationSec, chunks: r.chunks };
  },
});

/** The coordinator's overall cap: twice one worker's (renderLimits), for the wait for free workers. */
function coordinatorCap(reelSec: number, inputs: MediaInfo[], threads?: number) {
  const one = renderLimits({ reelSec, inputBytes: inputs.reduce((sum, m) => sum + m.sizeBytes, 0), threads });
  return {
    timeoutMs: 2 * one.capMs,
    capReason: `overall cap ${Math.round((2 * one.capMs) / 1000)} s, twice one worker's ${one.capReason}`,
  };
}
