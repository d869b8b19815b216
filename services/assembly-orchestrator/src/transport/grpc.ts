import { bind, describeHandler } from '@reelsmith/kit';
import { assembly } from '@reelsmith/proto';
import type { JobRecord, JobsService } from '../domain/jobs.service.js';

const job = (j: JobRecord) => ({
  id: j.id,
  ownerId: j.ownerId,
  status: j.status,
  progress: j.progress,
  message: j.message,
  requestJson: JSON.stringify(j.request),
  outputKey: j.outputKey,
  thumbnailKey: j.thumbnailKey,
  durationSec: j.durationSec,
  createdAtUnixMs: BigInt(j.createdAt.getTime()),
  updatedAtUnixMs: BigInt(j.updatedAt.getTime()),
});

/** gRPC handlers of the orchestrator: thin, one call into the domain per handler. */
export const grpcBinding = (svc: JobsService) =>
  bind(assembly.AssemblyOrchestratorService, {
    describe: describeHandler('assembly-orchestrator'),
    createJob: async (req) => {
      let body: unknown;
      try {
        body = JSON.parse(req.requestJson || '{}');
      } catch {
        body = null;
      }
      return { jobId: await svc.create(req.ownerId, req.unlimited, body, req.idempotencyKey) };
    },
    getJob: async (req) => job(await svc.get(req.jobId, req.ownerId || undefined)),
    startJob: async (req) => {
      const r = await svc.start(req.jobId);
      return { started: r.started, job: job(r.job) };
    },
    updateProgress: async (req) => ({ accepted: await svc.progress(req.jobId, req.progress, req.message) }),
  });
