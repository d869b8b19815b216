import type { Bus } from '@reelsmith/kit';
import { publicStatus } from '../domain/job-states.js';
import type { JobRecord, StatusPublisher } from '../domain/jobs.service.js';

/** The authoritative job status on core NATS (`jobs.<id>.status`), for every gateway replica. */
export const busStatusPublisher = (bus: Bus): StatusPublisher => ({
  publish: (job: JobRecord) =>
    bus.publishCore('jobStatus', {
      jobId: job.id,
      ownerId: job.ownerId,
      status: publicStatus(job.status),
      progress: job.progress,
      message: job.message,
      outputKey: job.status === 'completed' ? job.outputKey : '',
      outputFilename: job.request.output_filename,
      updatedAtUnixMs: BigInt(job.updatedAt.getTime()),
      createdAtUnixMs: BigInt(job.createdAt.getTime()),
    }),
  stopWork: (job: JobRecord) =>
    bus.publishCore('jobCancel', { jobId: job.id, userId: job.ownerId, cancelledAtUnixMs: BigInt(job.updatedAt.getTime()) }),
});
