import crypto from 'node:crypto';
import path from 'node:path';
import { fromBinary } from '@bufbuild/protobuf';
import pg from 'pg';
import { migrate, openDatabase, outboxMigration, readMigrations, type Database } from '@reelsmith/kit';
import { createTestDatabase, quietLogger, waitFor, type TestDatabase } from '@reelsmith/kit/testing';
import { subjects } from '@reelsmith/proto';
import { JobsService, type JobRecord, type Peers, type ReportAnswer } from '../../src/domain/jobs.service';
import { DrizzleJobsRepository } from '../../src/repositories/jobs.repository';
import { queuedJob } from '../queued-job';

/**
 * The orchestrator's job table against real PostgreSQL, migrated as the service migrates it at
 * start (the kit's outbox first, then the service's own files). Each test makes its own jobs.
 */

const uid = () => crypto.randomUUID();

const reel = { outputKey: 'reels/u/j.mp4', thumbnailKey: 'reels/u/j.jpg', durationSec: 31.5, sizeBytes: 4_200_000 };

describe('DrizzleJobsRepository against real PostgreSQL', () => {
  let testDb: TestDatabase;
  let db: Database;

  beforeAll(async () => {
    testDb = await createTestDatabase('orchestrator');
    db = await openDatabase({ url: testDb.url, pgliteDir: '', poolSize: 12 });
    // As services/kit/src/service.ts does for a service with `outbox: true` (see src/main.ts).
    await migrate(db, [outboxMigration(), ...readMigrations(path.join(__dirname, '..', '..', 'migrations'))]);
  });
  afterAll(async () => {
    await db?.close();
    await testDb?.drop();
  });

  /** A repository of its own, counting the relay kicks it makes after committing facts. */
  const repository = () => {
    const kicks = { n: 0 };
    return { repo: new DrizzleJobsRepository(db.orm, () => kicks.n++), kicks };
  };

  const queued = async (r: DrizzleJobsRepository, over: Partial<JobRecord> = {}) => {
    const job = queuedJob(over);
    expect(await r.insertQueued(job)).toBe(true);
    return job;
  };

  const processing = async (r: DrizzleJobsRepository, attempt = 1) => {
    const job = await queued(r);
    expect(await r.transition(job.id, 'processing', { attempt, message: 'Initializing' })).not.toBeNull();
    return job;
  };

  /** Every outbox row about one job, oldest first (rows, not distinct ids: a duplicate would show). */
  const outbox = (jobId: string) =>
    db.query<{ subject: string; msg_id: string; payload: string }>(
      `select subject, msg_id, payload from outbox where msg_id like '%.' || $1 order by id`,
      [jobId],
    );
  const subjectsOf = async (jobId: string) => (await outbox(jobId)).map((r) => r.subject);
  const decode = <S extends 'events.job.completed' | 'events.job.failed' | 'render.jobs'>(subject: S, payload: string) =>
    fromBinary(subjects[subject], Buffer.from(payload, 'base64'));

  const row = async (jobId: string) => {
    const [r] = await db.query<{ status: string; attempt: number; progress: number; output_key: string; finished_at: Date | null }>(
      'select status, attempt, progress, output_key, finished_at from jobs where id = $1',
      [jobId],
    );
    if (!r) throw new Error(`job ${jobId} is not in the table`);
    return r;
  };

  /**
   * Takes the job's row lock from a connection of the test's own, so that the statements started
   * next all queue behind it and meet the same row when it is let go.
   */
  const lockRow = async (jobId: string) => {
    const c = new pg.Client({ connectionString: testDb.url });
    await c.connect();
    await c.query('begin');
    await c.query('select 1 from jobs where id = $1 for update', [jobId]);
    return {
      release: async () => {
        await c.query('commit');
        await c.end();
      },
    };
  };
  /** Waits until `n` statements in this database are waiting for a lock. */
  const waiting = (n: number) =>
    waitFor(async () => {
      const [r] = await db.query<{ n: number }>(
        `select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`,
      );
      return (r?.n ?? 0) >= n;
    });

  describe('queueing', () => {
    it('stores the job and its one work message together', async () => {
      const { repo, kicks } = repository();
      const job = await queued(repo, { idempotencyKey: 'key-1' });
      expect(await repo.byId(job.id)).toMatchObject({
        id: job.id,
        ownerId: job.ownerId,
        status: 'queued',
        attempt: 0,
        estimateCredits: 30,
      });
      expect((await repo.byIdempotencyKey(job.ownerId, 'key-1'))?.id).toBe(job.id);
      const rows = await outbox(job.id);
      expect(rows.map((r) => [r.subject, r.msg_id])).toEqual([
        ['render.jobs', `render.${job.id}`],
        ['events.job.submitted', `job.submitted.${job.id}`],
      ]);
      expect(decode('render.jobs', rows[0]!.payload)).toMatchObject({ jobId: job.id, userId: job.ownerId });
      expect(kicks.n).toBe(1);
    });

    it('the same job, or another with the same Idempotency-Key, adds no second job and no second work message', async () => {
      const { repo, kicks } = repository();
      const job = await queued(repo, { idempotencyKey: 'key-1' });
      const twin = queuedJob({ ownerId: job.ownerId, idempotencyKey: 'key-1' });
      // Refused either way (see the next test for how it should be refused).
      const settle = (p: Promise<boolean>) => p.catch(() => 'threw');
      expect(await settle(repo.insertQueued(job))).not.toBe(true);
      expect(await settle(repo.insertQueued(twin))).not.toBe(true);
      expect(await repo.byId(twin.id)).toBeNull();
      expect(await subjectsOf(job.id)).toEqual(['render.jobs', 'events.job.submitted']);
      expect(await outbox(twin.id)).toEqual([]);
      expect(kicks.n).toBe(1);
    });

    // drizzle-orm wraps the driver's error (the 23505 is its cause): a duplicate must still be `false`.
    it('a duplicate is answered with false, as JobsRepository.insertQueued promises, not thrown', async () => {
      const { repo } = repository();
      const job = await queued(repo, { idempotencyKey: 'key-1' });
      expect(await repo.insertQueued(queuedJob({ ownerId: job.ownerId, idempotencyKey: 'key-1' }))).toBe(false);
    });
  });

  describe('legal transitions', () => {
    it('queued -> processing -> processing -> completed, with the completion fact written once, in the same move', async () => {
      const { repo, kicks } = repository();
      const job = await queued(repo);

      const taken = await repo.transition(job.id, 'processing', { attempt: 1, message: 'Initializing' });
      expect(taken).toMatchObject({ status: 'processing', attempt: 1, message: 'Initializing', progress: 0 });
      const moving = await repo.transition(job.id, 'processing', { progress: 40, message: 'Processing' });
      expect(moving).toMatchObject({ status: 'processing', attempt: 1, progress: 40 });
      expect(await subjectsOf(job.id)).toEqual(['render.jobs', 'events.job.submitted']);
      expect((await row(job.id)).finished_at).toBeNull();

      // The worker's completion is recorded first (no fact yet: it is not charged), then completed.
      expect(await repo.transition(job.id, 'finalizing', { message: 'Finalizing', ...reel })).toMatchObject({ status: 'finalizing' });
      expect(await repo.transition(job.id, 'cancelled', {}, { kind: 'cancelled' })).toBeNull();
      expect((await row(job.id)).finished_at).toBeNull();
      const done = await repo.transition(
        job.id,
        'completed',
        { progress: 100, message: 'Complete', ...reel },
        { kind: 'completed', attempt: 1, wallSeconds: 95.5 },
      );
      expect(done).toMatchObject({ status: 'completed', progress: 100, ...reel });
      expect((await row(job.id)).finished_at).toBeInstanceOf(Date);

      const rows = await outbox(job.id);
      expect(rows.map((r) => r.subject)).toEqual(['render.jobs', 'events.job.submitted', 'events.job.completed']);
      expect(decode('events.job.completed', rows[2]!.payload)).toMatchObject({
        jobId: job.id,
        userId: job.ownerId,
        outputKey: reel.outputKey,
        thumbnailKey: reel.thumbnailKey,
        durationSeconds: 31.5,
        sizeBytes: 4_200_000n,
        attempt: 1,
        wallSeconds: 95.5,
      });
      // The relay is kicked after the queueing and after the completion: moves without a fact do not.
      expect(kicks.n).toBe(2);
    });

    it.each(['queued', 'processing'] as const)('%s -> failed writes one failure fact with the reason', async (from) => {
      const { repo } = repository();
      const job = from === 'queued' ? await queued(repo) : await processing(repo);
      const failed = await repo.transition(
        job.id,
        'failed',
        { message: 'a.mp4: not a video' },
        { kind: 'failed', reason: 'a.mp4: not a video' },
      );
      expect(failed).toMatchObject({ status: 'failed', message: 'a.mp4: not a video' });
      expect((await row(job.id)).finished_at).toBeInstanceOf(Date);
      const rows = await outbox(job.id);
      expect(rows.map((r) => r.subject)).toEqual(['render.jobs', 'events.job.submitted', 'events.job.failed']);
      expect(decode('events.job.failed', rows[2]!.payload)).toMatchObject({
        jobId: job.id,
        userId: job.ownerId,
        reason: 'a.mp4: not a video',
      });
    });
  });

  describe('illegal transitions', () => {
    it('a queued job cannot complete without being taken', async () => {
      const { repo, kicks } = repository();
      const job = await queued(repo);
      expect(
        await repo.transition(job.id, 'completed', { progress: 100, ...reel }, { kind: 'completed', attempt: 1, wallSeconds: 1 }),
      ).toBeNull();
      expect(await row(job.id)).toMatchObject({ status: 'queued', progress: 0, output_key: '', finished_at: null });
      expect(await subjectsOf(job.id)).toEqual(['render.jobs', 'events.job.submitted']);
      expect(kicks.n).toBe(1);
    });

    it('a completed job stays completed: no second completion, no failure, no restart, and no second fact', async () => {
      const { repo, kicks } = repository();
      const job = await processing(repo);
      await repo.transition(job.id, 'finalizing', reel);
      await repo.transition(job.id, 'completed', { progress: 100, ...reel }, { kind: 'completed', attempt: 1, wallSeconds: 1 });
      const kicked = kicks.n;

      expect(
        await repo.transition(job.id, 'completed', { outputKey: 'reels/u/other.mp4' }, { kind: 'completed', attempt: 2, wallSeconds: 2 }),
      ).toBeNull();
      expect(await repo.transition(job.id, 'failed', { message: 'late' }, { kind: 'failed', reason: 'late' })).toBeNull();
      expect(await repo.transition(job.id, 'processing', { attempt: 3, progress: 10 })).toBeNull();
      expect(await repo.transition(job.id, 'cancelled', {}, { kind: 'cancelled' })).toBeNull();

      expect(await row(job.id)).toMatchObject({ status: 'completed', progress: 100, attempt: 1, output_key: reel.outputKey });
      expect(await subjectsOf(job.id)).toEqual(['render.jobs', 'events.job.submitted', 'events.job.completed']);
      expect(kicks.n).toBe(kicked);
    });

    it('a failed job stays failed: a late completion or a restart is refused and writes nothing', async () => {
      const { repo } = repository();
      const job = await processing(repo);
      await repo.transition(job.id, 'failed', { message: 'x' }, { kind: 'failed', reason: 'x' });

      expect(
        await repo.transition(job.id, 'completed', { progress: 100, ...reel }, { kind: 'completed', attempt: 1, wallSeconds: 1 }),
      ).toBeNull();
      expect(await repo.transition(job.id, 'processing', { attempt: 2 })).toBeNull();
      expect(await repo.transition(job.id, 'failed', { message: 'y' }, { kind: 'failed', reason: 'y' })).toBeNull();

      expect(await row(job.id)).toMatchObject({ status: 'failed', output_key: '' });
      expect(await subjectsOf(job.id)).toEqual(['render.jobs', 'events.job.submitted', 'events.job.failed']);
    });

    it('a job that does not exist does not move', async () => {
      const { repo, kicks } = repository();
      const id = uid();
      expect(await repo.transition(id, 'processing', { attempt: 1 })).toBeNull();
      expect(await repo.transition(id, 'failed', {}, { kind: 'failed', reason: 'x' })).toBeNull();
      expect(await outbox(id)).toEqual([]);
      expect(kicks.n).toBe(0);
    });
  });

  describe('attempts', () => {
    it('records the delivery that took the job; progress and the end keep it', async () => {
      const { repo } = repository();
      const job = await processing(repo, 1);
      expect(await repo.transition(job.id, 'processing', { attempt: 2, message: 'Initializing' })).toMatchObject({ attempt: 2 });
      expect(await repo.transition(job.id, 'processing', { progress: 50 })).toMatchObject({ attempt: 2, progress: 50 });
      await repo.transition(job.id, 'finalizing', reel);
      await repo.transition(job.id, 'completed', { progress: 100, ...reel }, { kind: 'completed', attempt: 2, wallSeconds: 3 });
      expect(await row(job.id)).toMatchObject({ status: 'completed', attempt: 2 });
      const [, , fact] = await outbox(job.id);
      expect(decode('events.job.completed', fact!.payload).attempt).toBe(2);
    });

    const service = (repo: DrizzleJobsRepository) => {
      const noop = async () => undefined;
      const peers: Peers = {
        media: async () => [],
        entitlements: async () => {
          throw new Error('not used');
        },
        estimate: async () => 0,
        reserve: noop,
        capture: noop,
        release: noop,
        addReel: noop,
        markUsed: noop,
      };
      return new JobsService(repo, peers, { publish: () => undefined, stopWork: () => undefined }, quietLogger());
    };

    it("ignores the reports of a stale delivery once a later one took the job (the worker's view)", async () => {
      const { repo } = repository();
      const svc = service(repo);
      const job = await queued(repo);
      expect((await svc.report(job.id, 1, { kind: 'started' })).accepted).toBe(true);
      expect((await svc.report(job.id, 2, { kind: 'started' })).accepted).toBe(true);
      expect((await svc.report(job.id, 1, { kind: 'started' })).accepted).toBe(false);
      expect((await svc.report(job.id, 1, { kind: 'progress', stage: 'rendering', percent: 80 })).accepted).toBe(false);
      expect((await svc.report(job.id, 2, { kind: 'progress', stage: 'rendering', percent: 30 })).accepted).toBe(true);
      expect(await row(job.id)).toMatchObject({ status: 'processing', attempt: 2, progress: 30 });
    });

    // The attempt is checked in the UPDATE itself: when two deliveries start together, the older loses.
    it('when deliveries 2 and 1 start at the same moment, delivery 1 is refused and the job keeps attempt 2', async () => {
      const { repo } = repository();
      const svc = service(repo);
      const job = await queued(repo);
      const lock = await lockRow(job.id);
      let second: Promise<ReportAnswer> | undefined;
      let first: Promise<ReportAnswer> | undefined;
      try {
        // Both read the job before either has moved it, so the check made on that read passes for both.
        second = svc.report(job.id, 2, { kind: 'started' });
        await waiting(1);
        first = svc.report(job.id, 1, { kind: 'started' });
        await waiting(2);
      } finally {
        await lock.release();
      }
      expect((await second)?.accepted).toBe(true);
      expect((await first)?.accepted).toBe(false);
      expect((await row(job.id)).attempt).toBe(2);
    });
  });

  describe('concurrent transitions on one job', () => {
    it('a completion, a failure and a cancel racing for the same job: one wins, and only its fact is written', async () => {
      const { repo, kicks } = repository();
      const job = await processing(repo);
      const before = kicks.n;
      const lock = await lockRow(job.id);
      let racing: Array<Promise<JobRecord | null>> = [];
      try {
        racing = [
          repo.transition(job.id, 'finalizing', { message: 'Finalizing', ...reel }),
          repo.transition(job.id, 'failed', { message: 'gave up' }, { kind: 'failed', reason: 'gave up' }),
          repo.transition(job.id, 'cancelled', { message: 'Cancelled' }, { kind: 'cancelled' }),
        ];
        await waiting(3);
      } finally {
        await lock.release();
      }
      const results = await Promise.all(racing);
      const winners = results.filter((r) => r !== null);
      expect(winners).toHaveLength(1);
      const status = winners[0]!.status;
      expect((await row(job.id)).status).toBe(status);
      // A recorded completion's fact comes with its move to completed, after the charge.
      const facts = status === 'finalizing' ? [] : [`events.job.${status}`];
      expect(await subjectsOf(job.id)).toEqual(['render.jobs', 'events.job.submitted', ...facts]);
      expect(kicks.n).toBe(before + facts.length);
    });

    it('eight workers reporting the same completion at once: one move, one fact row', async () => {
      const { repo, kicks } = repository();
      const job = await processing(repo);
      expect(await repo.transition(job.id, 'finalizing', reel)).not.toBeNull();
      expect(await repo.transition(job.id, 'finalizing', reel)).toBeNull();
      const before = kicks.n;
      const lock = await lockRow(job.id);
      let racing: Array<Promise<JobRecord | null>> = [];
      try {
        racing = Array.from({ length: 8 }, (_, i) =>
          repo.transition(job.id, 'completed', { progress: 100, ...reel }, { kind: 'completed', attempt: 1, wallSeconds: i }),
        );
        await waiting(8);
      } finally {
        await lock.release();
      }
      const results = await Promise.all(racing);
      expect(results.filter((r) => r !== null)).toHaveLength(1);
      const rows = await outbox(job.id);
      expect(rows.filter((r) => r.subject === 'events.job.completed')).toHaveLength(1);
      expect(rows).toHaveLength(3);
      expect(kicks.n).toBe(before + 1);
    });
  });
});
