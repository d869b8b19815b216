import { ack, type Bus, type RunningConsumer } from '@reelsmith/kit';
import { streams } from '@reelsmith/proto';
import type { JobsService } from '../domain/jobs.service.js';

/** The worker's completion and failure facts; every effect they cause is idempotent. */
export async function consumeJobEvents(bus: Bus, svc: JobsService): Promise<RunningConsumer[]> {
  const opts = { stream: streams.EVENTS, ackWaitMs: 30_000, maxDeliver: 20 };
  return [
    await bus.consume('events.job.completed', { ...opts, durable: 'orchestrator-completed' }, async (d) => {
      await svc.completed({
        jobId: d.data.jobId,
        outputKey: d.data.outputKey,
        thumbnailKey: d.data.thumbnailKey,
        durationSec: d.data.durationSeconds,
        sizeBytes: Number(d.data.sizeBytes),
      });
      return ack();
    }),
    await bus.consume('events.job.failed', { ...opts, durable: 'orchestrator-failed' }, async (d) => {
      await svc.failed({ jobId: d.data.jobId, reason: d.data.reason });
      return ack();
    }),
  ];
}
