import { DomainError, ErrorCode, bind, describeHandler } from '@reelsmith/kit';
import { assembly, fromJobRequestMessage, toJobRequestMessage } from '@reelsmith/proto';
import { publicStatus, type Stage } from '../domain/job-states.js';
import type { JobRecord, JobsService, WorkerReport } from '../domain/jobs.service.js';
import type { WebhooksService } from '../domain/webhooks/webhooks.service.js';

const job = (j: JobRecord) => ({
  id: j.id,
  ownerId: j.ownerId,
  status: publicStatus(j.status),
  progress: j.progress,
  message: j.message,
  request: toJobRequestMessage(j.request),
  outputKey: j.outputKey,
  thumbnailKey: j.thumbnailKey,
  durationSec: j.durationSec,
  sizeBytes: BigInt(j.sizeBytes),
  renderChunks: j.renderChunks ?? [],
  estimateCredits: BigInt(j.estimateCredits),
  createdAtUnixMs: BigInt(j.createdAt.getTime()),
  updatedAtUnixMs: BigInt(j.updatedAt.getTime()),
});

const STAGES: Record<assembly.RenderStage, Stage | undefined> = {
  [assembly.RenderStage.UNSPECIFIED]: undefined,
  [assembly.RenderStage.PREPARING]: 'preparing',
  [assembly.RenderStage.ANALYSING]: 'analysing',
  [assembly.RenderStage.RENDERING]: 'rendering',
  [assembly.RenderStage.FINALIZING]: 'finalizing',
};

function workerReport(e: assembly.JobReport['event']): WorkerReport {
  switch (e.case) {
    case 'started':
      return { kind: 'started' };
    case 'progress':
      return { kind: 'progress', stage: STAGES[e.value.stage] ?? 'rendering', percent: e.value.percent };
    case 'completed':
      return {
        kind: 'completed',
        outputKey: e.value.outputKey,
        thumbnailKey: e.value.thumbnailKey,
        durationSec: e.value.durationSec,
        sizeBytes: Number(e.value.sizeBytes),
        renderChunks: e.value.chunks.map((c) => ({ index: c.index, worker: c.worker, frames: c.frames, seconds: c.seconds })),
      };
    case 'failed':
      return { kind: 'failed', reason: e.value.reason };
    default:
      throw new DomainError(ErrorCode.INVALID_ARGUMENT, 'a job report needs an event');
  }
}

/**
 * gRPC handlers of the orchestrator: thin, one call into the domain per handler. A job's
 * callback_url passes the webhooks' SSRF guard first.
 */
export const grpcBinding = (svc: JobsService, webhooks?: Pick<WebhooksService, 'checkUrl'>) =>
  bind(assembly.AssemblyOrchestratorService, {
    describe: describeHandler('assembly-orchestrator'),
    createJob: async (req) => {
      if (req.request?.callbackUrl) webhooks?.checkUrl(req.request.callbackUrl);
      return {
        jobId: await svc.create(req.ownerId, req.unlimited, req.request ? fromJobRequestMessage(req.request) : {}, req.idempotencyKey),
      };
    },
    getJob: async (req) => job(await svc.get(req.jobId, req.ownerId || undefined)),
    planJob: async (req) => {
      const r = await svc.plan(req.ownerId, req.unlimited, req.request ? fromJobRequestMessage(req.request) : {}, {
        reroll: req.reroll,
        locked: req.locked,
        seed: Number(req.seed),
      });
      return { plan: r.plan, estimateCredits: BigInt(r.estimate), music: r.music ?? undefined };
    },
    cancelJob: async (req) => job(await svc.cancel(req.jobId, req.ownerId)),
    listJobs: async (req) => ({ jobs: (await svc.list(req.ownerId, req.activeOnly, req.limit)).map(job) }),
    reportJob: async (req) => {
      const r = await svc.report(req.jobId, req.attempt, workerReport(req.event));
      return { accepted: r.accepted, job: job(r.job) };
    },
  });
