import type { assembly, assemblyEvents } from '@reelsmith/proto';
import type { JobStatusFacts } from '../domain/job-status.js';

/** The orchestrator's job (gRPC) or status message (NATS) as the facts the status view needs. */
export function jobStatusFacts(j: assembly.Job | assemblyEvents.JobStatus): JobStatusFacts {
  const common = {
    status: j.status,
    progress: j.progress,
    message: j.message,
    outputKey: j.outputKey,
    createdAtMs: Number(j.createdAtUnixMs),
  };
  if (j.$typeName === 'reelsmith.assembly.v1.Job') return { ...common, jobId: j.id, outputFilename: j.request?.outputFilename ?? '' };
  return { ...common, jobId: j.jobId, outputFilename: j.outputFilename };
}
