import { type Client, type Logger } from '@reelsmith/kit';
import { assembly, fromJobRequestMessage, parseJobRequest } from '@reelsmith/proto';
import type { JobReporter, ReportStage, WorkerJob } from '../domain/render-job.service.js';

const STAGE: Record<ReportStage, assembly.RenderStage> = {
  preparing: assembly.RenderStage.PREPARING,
  analysing: assembly.RenderStage.ANALYSING,
  rendering: assembly.RenderStage.RENDERING,
  finalizing: assembly.RenderStage.FINALIZING,
};

/** Tries a report a few times: completion and failure must reach the orchestrator. */
async function persist<T>(fn: () => Promise<T>, tries = 4): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await fn();
    } catch (e) {
      if (i >= tries) throw e;
      await new Promise((r) => setTimeout(r, 250 * 2 ** i));
    }
  }
}

/** The worker's reports to the orchestrator over gRPC (ReportJob). */
export function orchestratorReporter(orchestrator: Client<typeof assembly.AssemblyOrchestratorService>, log: Logger): JobReporter {
  // Progress: at most one call in flight per job; a newer report replaces one still waiting.
  const pending = new Map<string, { attempt: number; stage: ReportStage; percent: number }>();
  const sending = new Set<string>();
  const pump = (jobId: string) => {
    const next = pending.get(jobId);
    if (!next || sending.has(jobId)) return;
    pending.delete(jobId);
    sending.add(jobId);
    orchestrator
      .reportJob({
        jobId,
        attempt: next.attempt,
        // A whole percent (the field is an int32: a fraction would fail to encode, every time).
        event: { case: 'progress', value: { stage: STAGE[next.stage], percent: Math.min(100, Math.max(0, Math.round(next.percent))) } },
      })
      // Not delivered: the next report (or heartbeat) tries again; the orchestrator's sweeper fails
      // a job whose reports stop for longer than its deliveries left, so this must be seen.
      .catch((e: unknown) => log.warn({ err: e, job_id: jobId }, 'progress report not delivered'))
      .finally(() => {
        sending.delete(jobId);
        pump(jobId);
      });
  };
  return {
    async started(jobId, attempt) {
      const r = await orchestrator.reportJob({ jobId, attempt, event: { case: 'started', value: {} } });
      if (!r.accepted || !r.job?.request) return null;
      const request = parseJobRequest(fromJobRequestMessage(r.job.request));
      if (!request.ok) throw new Error(`job ${jobId} has an invalid request: ${request.problems}`);
      const job: WorkerJob = { id: r.job.id, ownerId: r.job.ownerId, request: request.value };
      return job;
    },
    progress(jobId, attempt, stage, percent) {
      pending.set(jobId, { attempt, stage, percent });
      pump(jobId);
    },
    async completed(jobId, attempt, reel) {
      pending.delete(jobId);
      const r = await persist(() =>
        orchestrator.reportJob({
          jobId,
          attempt,
          event: {
            case: 'completed',
            value: {
              outputKey: reel.outputKey,
              thumbnailKey: reel.thumbnailKey,
              durationSec: reel.durationSec,
              sizeBytes: BigInt(reel.sizeBytes),
              chunks: (reel.chunks ?? []).map((c) => ({ index: c.index, worker: c.worker, frames: c.frames, seconds: c.seconds })),
            },
          },
        }),
      );
      return r.accepted;
    },
    async failed(jobId, attempt, reason) {
      pending.delete(jobId);
      await persist(() => orchestrator.reportJob({ jobId, attempt, event: { case: 'failed', value: { reason } } }));
    },
  };
}
