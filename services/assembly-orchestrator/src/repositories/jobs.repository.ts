import { and, desc, eq, inArray, lt, lte, sql } from 'drizzle-orm';
import { enqueueEvent, injectTrace, type Orm } from '@reelsmith/kit';
import type { JobRequest } from '@reelsmith/proto';
import { isTerminal, sourcesOf, type JobState } from '../domain/job-states.js';
import type { FootageOptIn, JobFact, JobFields, JobRecord, JobsRepository, RenderedChunk } from '../domain/jobs.service.js';
import { jobs, reservationHolds } from './schema.js';

const toJob = (r: typeof jobs.$inferSelect): JobRecord => ({
  id: r.id,
  ownerId: r.ownerId,
  status: r.status as JobState,
  progress: r.progress,
  message: r.message,
  request: r.request as JobRequest,
  idempotencyKey: r.idempotencyKey,
  estimateCredits: r.estimateCredits,
  attempt: r.attempt,
  outputKey: r.outputKey,
  thumbnailKey: r.thumbnailKey,
  durationSec: r.durationSec,
  sizeBytes: r.sizeBytes,
  renderChunks: r.renderChunks as RenderedChunk[],
  createdAt: r.createdAt,
  updatedAt: r.updatedAt,
});

type Tx = Parameters<Parameters<Orm['transaction']>[0]>[0];

export class DrizzleJobsRepository implements JobsRepository {
  constructor(
    private readonly orm: Orm,
    /** Called after a transaction that recorded events has committed (kicks the outbox relay). */
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

  async insertQueued(job: JobRecord, optIns: FootageOptIn[] = []) {
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
          createdAt: job.createdAt,
          updatedAt: job.updatedAt,
        });
        // The work message is queued with the job or not at all; its id de-duplicates re-sends.
        await enqueueEvent(
          tx,
          'render.jobs',
          {
            jobId: job.id,
            userId: job.ownerId,
            queuedAtUnixMs: BigInt(job.createdAt.getTime()),
            traceparent: injectTrace({}).traceparent ?? '',
          },
          `render.${job.id}`,
        );
        await enqueueEvent(
          tx,
          'events.job.submitted',
          { jobId: job.id, userId: job.ownerId, submittedAtUnixMs: BigInt(job.createdAt.getTime()) },
          `job.submitted.${job.id}`,
        );
        // The consent to footage offers travels with the job: the marketplace records each clip.
        for (const o of optIns)
          await enqueueEvent(
            tx,
            'events.marketplace.opted_in',
            {
              uploadKey: o.uploadKey,
              userId: job.ownerId,
              jobId: job.id,
              filename: o.filename,
              sizeBytes: BigInt(o.sizeBytes),
              thumbnailKey: o.thumbnailKey,
              consentedAtUnixMs: BigInt(job.createdAt.getTime()),
            },
            `marketplace.opted_in.${job.id}.${o.uploadKey}`,
          );
      });
    } catch (e) {
      // Drizzle wraps the driver's error: the unique violation (23505) is its cause.
      const codes = [e, (e as { cause?: unknown }).cause].map((x) => (x as { code?: unknown } | undefined)?.code);
      if (codes.includes('23505')) return false;
      throw e;
    }
    this.committed();
    return true;
  }

  async transition(id: string, to: JobState, fields: JobFields, fact?: JobFact) {
    const moved = await this.orm.transaction(async (tx) => {
      const now = new Date();
      const rows = await tx
        .update(jobs)
        .set({ ...fields, status: to, updatedAt: now, ...(isTerminal(to) ? { finishedAt: now } : {}) })
        // A delivery's attempt never goes back: a start from an older delivery loses any race.
        .where(
          and(
            eq(jobs.id, id),
            inArray(jobs.status, sourcesOf(to)),
            fields.attempt === undefined ? undefined : lte(jobs.attempt, fields.attempt),
          ),
        )
        .returning();
      const job = rows[0] ? toJob(rows[0]) : null;
      if (job && fact) await this.record(tx, job, fact, now);
      return job;
    });
    if (moved && fact) this.committed();
    return moved;
  }

  async hold(jobId: string, ownerId: string) {
    await this.orm.insert(reservationHolds).values({ jobId, ownerId }).onConflictDoNothing();
  }

  async settled(jobId: string) {
    await this.orm.delete(reservationHolds).where(eq(reservationHolds.jobId, jobId));
  }

  async holdsBefore(before: Date) {
    const rows = await this.orm
      .select({ jobId: reservationHolds.jobId, job: jobs })
      .from(reservationHolds)
      .leftJoin(jobs, eq(jobs.id, reservationHolds.jobId))
      .where(lt(reservationHolds.createdAt, before))
      .limit(500);
    return rows.map((r) => ({ jobId: r.jobId, job: r.job ? toJob(r.job) : null }));
  }

  async stalled(now: Date, ackWaitMs: number, maxDeliver: number, graceMs: number) {
    // Each delivery left may sit out one ack wait before JetStream redelivers it (or gives up).
    const silentMs = sql`(${ackWaitMs}::double precision * greatest(1, ${maxDeliver}::integer - ${jobs.attempt} + 1) + ${graceMs}::double precision)`;
    const rows = await this.orm
      .select()
      .from(jobs)
      .where(
        and(
          eq(jobs.status, 'processing'),
          lt(jobs.updatedAt, sql`${now.toISOString()}::timestamptz - make_interval(secs => ${silentMs} / 1000.0)`),
        ),
      )
      .limit(100);
    return rows.map(toJob);
  }

  async list(ownerId: string, activeOnly: boolean, limit: number) {
    const rows = await this.orm
      .select()
      .from(jobs)
      .where(and(eq(jobs.ownerId, ownerId), activeOnly ? inArray(jobs.status, ['queued', 'processing', 'finalizing']) : undefined))
      .orderBy(desc(jobs.createdAt), desc(jobs.id))
      .limit(limit);
    return rows.map(toJob);
  }

  /** The durable fact others react to (telemetry, marketplace), in the transaction of the move. */
  private async record(tx: Tx, job: JobRecord, fact: JobFact, at: Date) {
    if (fact.kind === 'started')
      await enqueueEvent(
        tx,
        'events.job.started',
        { jobId: job.id, userId: job.ownerId, attempt: fact.attempt, startedAtUnixMs: BigInt(at.getTime()) },
        `job.started.${job.id}.${fact.attempt}`,
      );
    else if (fact.kind === 'completed')
      await enqueueEvent(
        tx,
        'events.job.completed',
        {
          jobId: job.id,
          userId: job.ownerId,
          outputKey: job.outputKey,
          thumbnailKey: job.thumbnailKey,
          durationSeconds: job.durationSec,
          sizeBytes: BigInt(job.sizeBytes),
          completedAtUnixMs: BigInt(at.getTime()),
          attempt: fact.attempt,
          wallSeconds: fact.wallSeconds,
        },
        `job.completed.${job.id}`,
      );
    else if (fact.kind === 'cancelled')
      await enqueueEvent(
        tx,
        'events.job.cancelled',
        { jobId: job.id, userId: job.ownerId, cancelledAtUnixMs: BigInt(at.getTime()) },
        `job.cancelled.${job.id}`,
      );
    else
      await enqueueEvent(
        tx,
        'events.job.failed',
        {
          jobId: job.id,
          userId: job.ownerId,
          reason: fact.reason,
          failedAtUnixMs: BigInt(at.getTime()),
          wallSeconds: (at.getTime() - job.createdAt.getTime()) / 1000,
        },
        `job.failed.${job.id}`,
      );
  }
}
