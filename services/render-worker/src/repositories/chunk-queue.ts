import type { Bus } from '@reelsmith/kit';
import { editPlanOf, fromJobRequestMessage, parseJobRequest, toJobRequestMessage, type assemblyEvents } from '@reelsmith/proto';
import type { ChunkQueue, ChunkTaskBody } from '../domain/render.ports.js';

/**
 * Chunk tasks on the RENDER stream's work-queue subject `render.chunks` (RenderChunk, its task a
 * ChunkTask message), with the message id `<job>.<attempt>.<plan key>.<index>`: a task republished
 * by the same coordinator is not queued twice. The task's encoding and decoding both live here.
 */
export function chunkQueue(bus: Bus): ChunkQueue {
  return {
    async publish({ body, ...ref }) {
      await bus.publish(
        'render.chunks',
        { ...ref, task: { ...body, request: toJobRequestMessage(body.request) } },
        { msgId: `${ref.jobId}.${ref.attempt}.${ref.planKey}.${ref.index}` },
      );
    },
  };
}

/** The chunk task message as the worker renders it: its job request checked by the one schema. */
export function decodeChunkTask(m: assemblyEvents.RenderChunk): ChunkTaskBody {
  const t = m.task;
  if (!t?.request || !t.plan || !t.batch) throw new Error('a chunk task needs its request, plan and batch');
  const request = parseJobRequest(fromJobRequestMessage(t.request));
  if (!request.ok) throw new Error(`a chunk task's request: ${request.problems}`);
  const { first, end, startFrame, frames } = t.batch;
  return {
    request: request.value,
    plan: editPlanOf(t.plan),
    batch: { first, end, startFrame, frames },
    totalFrames: t.totalFrames,
    thumbnailAtSec: t.thumbnailAtSec,
    clipKeys: t.clipKeys,
    media: t.media.length ? t.media : undefined,
  };
}
