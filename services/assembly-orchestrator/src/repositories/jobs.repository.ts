import { and, eq, inArray } from 'drizzle-orm';
import { enqueueEvent, type Orm } from '@reelsmith/kit';
import type { JobRequest } from '../domain/job-request.js';
import { isTerminal, sourcesOf, type JobState } from '../domain/job-states.js';
import type { JobRecord, JobsRepository } from '../domain/jobs.service.js';
import { jobs } from './schema.js';

const toJob = (r: typeof jobs.$inferSelect): JobRecord => ({
  id: r.id,
  ownerId: r.ownerId,
  status: r.status as JobState,
  progress: r.progress,
  message: r.message,
  request: r.request as JobRequest,
  idempotencyKey: r.idempotencyKey,
  estimateCredits: r.estimateCredits,
  outputKey: r.outputKey,
  thumbnailKey: r.thumbnailKey,
  durationSec: r.durationSec,
  sizeBytes: r.sizeBytes,
  createdAt: r.createdAt,
  updatedAt: r.updatedAt,
});

export class DrizzleJobsRepository implements JobsRepository {
  constructor(
    private readonly orm: Orm,
    private readonly committed: () => void = () => undefined,
  ) {}

  async byId(id: string) {
    const [r] = await this.orm.select().from(jobs).where(eq(jobs.id, id));
    return r ? toJob(r) : null;
  }

  async byIdempotencyKey(ownerId: string, key: string) {
    const [r] = await this.orm
      .select()
      .from(jobs)
      .where(and(eq(jobs.ownerId, ownerId), eq(jobs.idempotencyKey, key)));
    return r ? toJob(r) : null;
  }

  async insertQueued(job: JobRecord) {
    try {
      await this.orm.transaction(async (tx) => {
        await tx.insert(jobs).values({
          id: job.id,
          ownerId: job.ownerId,
          status: job.status,
          progress: 0,
          request: job.request,
          message: job.message,
          idempotencyKey: job.idempotencyKey,
          estimateCredits: job.estimateCredits,
        });
        // The work message is queued with the job or not at all; its id de-duplicates re-sends.
        await enqueueEvent(
          tx,
          'render.jobs',
          { jobId: job.id, userId: job.ownerId, queuedAtUnixMs: BigInt(Date.now()) },
          `render.${job.id}`,
        );
      });
    } catch (e) {
      if (String((e as { code?: string }).code ?? (e as Error).message).match(/23505|duplicate key/)) return false;
      throw e;
    }
    this.committed();
    return true;
  }

  async transition(id: string, to: JobState, fields: Parameters<JobsRepository['transition']>[2]) {
    const rows = await this.orm
      .update(jobs)
      .set({ ...fields, status: to, updatedAt: new Date(), ...(isTerminal(to) ? { finishedAt: new Date() } : {}) })
      .where(and(eq(jobs.id, id), inArray(jobs.status, sourcesOf(to))))
      .returning();
    return rows[0] ? toJob(rows[0]) : null;
  }
}
