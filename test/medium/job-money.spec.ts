import crypto from 'node:crypto';
import {
  createMetrics,
  dial,
  migrate,
  openDatabase,
  outboxMigration,
  readMigrations,
  type Client,
  type Database,
  type RunningService,
} from '@reelsmith/kit';
import { TEST_NATS_URL, createTestDatabase, natsPrefix, quietLogger, tempDir, type TestDatabase } from '@reelsmith/kit/testing';
import { billing, planToWire } from '@reelsmith/proto';
import { wire as wireBilling } from '../../services/billing/src/app';
import { configSchema as billingSchema } from '../../services/billing/src/config';
import { JobSweeper } from '../../services/assembly-orchestrator/src/domain/job-sweeper';
import { JobsService, type MediaInfo, type Peers } from '../../services/assembly-orchestrator/src/domain/jobs.service';
import { DrizzleJobsRepository } from '../../services/assembly-orchestrator/src/repositories/jobs.repository';
import { grpcPeers } from '../../services/assembly-orchestrator/src/repositories/peers';
import { migrationsOf, startService } from '../support/in-process';

/**
 * The orchestrator's money paths against the real billing service (its own PostgreSQL, over gRPC)
 * and the orchestrator's job table on real PostgreSQL: a cancel racing the worker's completion
 * ends in exactly one of {charged and completed, released and cancelled}; the sweeper settles
 * what the job flow left; an edit plan never touches the ledger. Media-library is replaced by the
 * probed facts of the user's uploads (it holds no money); the reel's listing is counted.
 */
const uid = () => crypto.randomUUID();

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- rows are compared by value
type Row = Record<string, any>;

describe('job money against real billing and PostgreSQL (issue 20)', () => {
  const data = tempDir('job-money');
  let billingDb: TestDatabase;
  let jobsDb: TestDatabase;
  let billingService: RunningService;
  let billingOrm: Database;
  let db: Database;
  let client: Client<typeof billing.BillingService>;
  let peers: Peers & { close(): void };
  let repo: DrizzleJobsRepository;
  let svc: JobsService;
  const listed: string[] = [];
  /** Set to make billing's capture fail (billing down) for these jobs. */
  const captureDown = new Set<string>();

  const clipKey = (owner: string, n = 0) => `uploads/${owner}/clip${n}.mp4`;
  const musicKey = (owner: string) => `uploads/${owner}/song.mp3`;
  const mediaOf = (keys: string[]): MediaInfo[] =>
    keys.map((k) =>
      k.endsWith('.mp3')
        ? { objectKey: k, kind: 'audio', sizeBytes: 500_000, durationSec: 24, analysisStatus: 'done', peaks: [0.1, 0.5, 0.9] }
        : {
            objectKey: k,
            kind: 'video',
            sizeBytes: 2_000_000,
            durationSec: 12 + Number(k.match(/clip(\d+)/)?.[1] ?? 0),
            analysisStatus: 'done',
          },
    );

  beforeAll(async () => {
    billingDb = await createTestDatabase('billing');
    jobsDb = await createTestDatabase('orchestrator');
    const env = { DATA_DIR: data.dir, NATS_URL: TEST_NATS_URL, NATS_PREFIX: natsPrefix(), LOG_LEVEL: 'silent', GRPC_PORT: '0' };
    billingService = (await startService({ name: 'billing', schema: billingSchema, wire: wireBilling, env, outbox: true, db: billingDb }))
      .running;
    const billingAddr = `127.0.0.1:${billingService.grpcPort}`;
    client = dial(billing.BillingService, billingAddr, { deadlineMs: 10_000 });
    billingOrm = await openDatabase({ url: billingDb.url, pgliteDir: '', poolSize: 4 });
    db = await openDatabase({ url: jobsDb.url, pgliteDir: '', poolSize: 20 });
    await migrate(db, [outboxMigration(), ...readMigrations(migrationsOf('assembly-orchestrator'))]);
    // The orchestrator's own billing client; media-library's answers and the reel listing are local.
    const real = grpcPeers({ billing: billingAddr, media: '127.0.0.1:9' }, 10_000, createMetrics('orchestrator-test'));
    peers = {
      ...real,
      media: async (_owner, keys) => mediaOf(keys),
      markUsed: async () => undefined,
      addReel: async (job) => {
        listed.push(job.id);
      },
      capture: async (jobId) => {
        if (captureDown.has(jobId)) throw new Error('billing unavailable');
        await real.capture(jobId);
      },
    };
    repo = new DrizzleJobsRepository(db.orm);
    svc = new JobsService(repo, peers, { publish: () => undefined, stopWork: () => undefined }, quietLogger());
  }, 60_000);
  afterAll(async () => {
    peers?.close();
    client?.close();
    await billingService?.stop();
    await billingOrm?.close();
    await db?.close();
    await billingDb?.drop();
    await jobsDb?.drop();
    data.remove();
  });

  const balance = async (userId: string) => Number((await client.getAccount({ userId })).account!.credits);
  const paidUser = async (credits: number) => {
    const userId = uid();
    await client.setSubscription({ userId, plan: 'standard', billingCycle: 'monthly', status: 'active' });
    await client.grant({ userId, credits: BigInt(credits), idempotencyKey: `seed-${userId}`, reason: 'test' });
    return userId;
  };
  const reservation = async (jobId: string) =>
    (await billingOrm.query<{ status: string }>('select status from reservations where job_id = $1', [jobId]))[0]?.status;
  const holds = async (jobId: string) =>
    (await db.query<{ n: number }>('select count(*)::int as n from reservation_holds where job_id = $1', [jobId]))[0]!.n;
  const request = (owner: string, over: Row = {}) => ({
    media_files: [clipKey(owner, 0), clipKey(owner, 1), clipKey(owner, 2)],
    music_file: musicKey(owner),
    pacing_preset: 'standard',
    enable_beat_mapping: true,
    ...over,
  });
  /** A queued job (reserved by real billing) that a worker has started. */
  const running = async (owner: string) => {
    const id = await svc.create(owner, false, request(owner), '');
    expect((await svc.report(id, 1, { kind: 'started' })).accepted).toBe(true);
    return id;
  };
  const reel = (id: string) => ({
    kind: 'completed' as const,
    outputKey: `reels/x/${id}.mp4`,
    thumbnailKey: `reels/x/${id}.jpg`,
    durationSec: 24,
    sizeBytes: 1000,
  });
  const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

  it('a cancel racing the completion, 60 times: each job is either charged and completed or released and cancelled, never both', async () => {
    const owner = await paidUser(1_000_000);
    const start = await balance(owner);
    const outcomes = { completed: 0, cancelled: 0 };
    let charged = 0;
    for (let round = 0; round < 6; round++) {
      const ids = await Promise.all(Array.from({ length: 10 }, () => running(owner)));
      const estimates = new Map((await Promise.all(ids.map((id) => svc.get(id)))).map((j) => [j.id, j.estimateCredits]));
      // Both sides at once, in a different order each time (a few ms apart either way).
      const raced = await Promise.all(
        ids.map(async (id, i) => {
          const d = (i + round) % 4;
          const [report, cancel] = await Promise.allSettled([
            pause(d & 1 ? 0 : 3).then(() => svc.report(id, 1, reel(id))),
            pause(d & 2 ? 0 : 2).then(() => svc.cancel(id, owner)),
          ]);
          return { id, report, cancel };
        }),
      );
      for (const { id, report, cancel } of raced) {
        expect(report.status).toBe('fulfilled');
        const accepted = report.status === 'fulfilled' && report.value.accepted;
        const job = await svc.get(id);
        expect(await holds(id)).toBe(0);
        if (job.status === 'completed') {
          outcomes.completed += 1;
          charged += estimates.get(id)!;
          expect(accepted).toBe(true);
          expect(cancel).toMatchObject({
            status: 'rejected',
            reason: { message: 'This job has already finished.', reason: 'job_finished' },
          });
          expect(await reservation(id)).toBe('captured');
          expect(listed).toContain(id);
        } else {
          outcomes.cancelled += 1;
          expect(job.status).toBe('cancelled');
          expect(accepted).toBe(false);
          expect(cancel).toMatchObject({ status: 'fulfilled', value: { status: 'cancelled' } });
          expect(await reservation(id)).toBe('released');
          expect(listed).not.toContain(id);
        }
      }
    }
    // The race went both ways, and the user paid for exactly the reels completed.
    expect(outcomes.completed).toBeGreaterThan(0);
    expect(outcomes.cancelled).toBeGreaterThan(0);
    expect(outcomes.completed + outcomes.cancelled).toBe(60);
    expect(await balance(owner)).toBe(start - charged);
  }, 120_000);

  it('a completion recorded whose capture failed: cancel is refused, and the sweeper charges, lists and completes it once', async () => {
    const owner = await paidUser(10_000);
    const start = await balance(owner);
    const id = await running(owner);
    const estimate = (await svc.get(id)).estimateCredits;
    captureDown.add(id);
    await expect(svc.report(id, 1, reel(id))).rejects.toThrow('billing unavailable');
    // Recorded (shown as processing), not yet charged: the user cannot cancel it any more.
    expect((await svc.get(id)).status).toBe('finalizing');
    expect((await svc.list(owner, true, 20)).map((j) => j.id)).toContain(id);
    await expect(svc.cancel(id, owner)).rejects.toMatchObject({ message: 'This job has already finished.' });
    expect(await reservation(id)).toBe('held');
    captureDown.delete(id);

    const later = new Date(Date.now() + 10 * 60_000);
    const sweeper = new JobSweeper(
      repo,
      svc,
      peers,
      { ackWaitMs: 3_600_000, maxDeliver: 3, graceMs: 0, holdAgeMs: 60_000 },
      quietLogger(),
      () => later,
    );
    await sweeper.sweep();
    expect((await svc.get(id)).status).toBe('completed');
    expect(await reservation(id)).toBe('captured');
    expect(await holds(id)).toBe(0);
    expect(listed.filter((x) => x === id)).toHaveLength(1);
    expect(await balance(owner)).toBe(start - estimate);
    await sweeper.sweep();
    expect(await balance(owner)).toBe(start - estimate);
  }, 60_000);

  it('a hold whose reservation was already captured (a job that ended otherwise) is settled once, not retried forever', async () => {
    const owner = await paidUser(10_000);
    const id = await running(owner);
    // The state the old race could leave: charged, yet the job reads cancelled and still holds.
    await client.capture({ jobId: id });
    await db.query(`update jobs set status = 'cancelled' where id = $1`, [id]);
    const before = await balance(owner);
    const errors: Row[] = [];
    const log = quietLogger();
    const spy = { ...log, error: (o: Row) => errors.push(o) } as unknown as typeof log;
    const sweeper = new JobSweeper(
      repo,
      svc,
      peers,
      { ackWaitMs: 3_600_000, maxDeliver: 3, graceMs: 0, holdAgeMs: 60_000 },
      spy,
      () => new Date(Date.now() + 10 * 60_000),
    );
    await sweeper.sweep();
    expect(await holds(id)).toBe(0);
    expect(errors.filter((e) => e.job_id === id)).toHaveLength(1);
    await sweeper.sweep();
    expect(errors.filter((e) => e.job_id === id)).toHaveLength(1);
    expect(await reservation(id)).toBe('captured');
    expect(await balance(owner)).toBe(before);
  }, 60_000);

  /** Everything billing keeps about a user, and the orchestrator's jobs and holds. */
  const books = async (userId: string) => ({
    ledger: await billingOrm.query('select * from ledger where user_id = $1 order by id', [userId]),
    reservations: await billingOrm.query('select * from reservations where user_id = $1 order by job_id', [userId]),
    freeUses: await billingOrm.query('select * from daily_free_uses where user_id = $1', [userId]),
    accounts: await billingOrm.query('select * from accounts where user_id = $1', [userId]),
    account: (await client.getAccount({ userId })).account,
    jobs: await db.query('select id from jobs where owner_id = $1', [userId]),
    holds: await db.query('select job_id from reservation_holds where owner_id = $1', [userId]),
  });

  it('edit plans never touch the ledger: new plans, re-rolls and given plans leave balance, free video and rows as they were', async () => {
    const paid = await paidUser(500);
    const free = uid();
    await client.getAccount({ userId: free });
    for (const owner of [paid, free]) {
      const before = await books(owner);
      expect(before.account).toBeDefined();
      const first = await svc.plan(owner, false, request(owner), { reroll: [], locked: [], seed: 1 });
      expect(first.plan.segments.length).toBeGreaterThan(2);
      expect(first.estimate).toBeGreaterThan(0);
      // The plan as POST /jobs/plan shows it and a client sends it back.
      const sent = planToWire(first.plan, '16:9');
      const again = await svc.plan(owner, false, request(owner, { plan: sent }), { reroll: [], locked: [], seed: 1 });
      expect(planToWire(again.plan, '16:9')).toEqual(sent);
      const rerolled = await svc.plan(owner, false, request(owner, { plan: sent }), { reroll: [1], locked: [0], seed: 7 });
      expect(planToWire(rerolled.plan, '16:9').segments[0]).toEqual(sent.segments[0]);
      await svc.plan(owner, false, request(owner, { aspect: '9:16', enable_beat_mapping: false }), { reroll: [], locked: [], seed: 2 });
      await expect(svc.plan(owner, false, request(owner, { plan: sent }), { reroll: [999], locked: [], seed: 1 })).rejects.toMatchObject({
        code: 'INVALID_ARGUMENT',
      });
      expect(await books(owner)).toEqual(before);
    }
    // The free user's one free video of the day is still there: the job that follows takes it.
    const id = await svc.create(free, false, request(free), '');
    expect((await client.getAccount({ userId: free })).account!.dailyFreeUsed).toBe(true);
    await svc.cancel(id, free);
    expect(await reservation(id)).toBe('released');
  }, 60_000);
});
