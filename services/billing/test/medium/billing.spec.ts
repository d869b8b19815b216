import crypto from 'node:crypto';
import path from 'node:path';
import {
  Bus,
  OutboxRelay,
  dial,
  migrate,
  openDatabase,
  outboxMigration,
  readMigrations,
  serveGrpc,
  type Client,
  type Database,
  type RunningGrpcServer,
} from '@reelsmith/kit';
import { TEST_NATS_URL, createTestDatabase, natsPrefix, quietLogger, waitFor, type TestDatabase } from '@reelsmith/kit/testing';
import { billing, streams } from '@reelsmith/proto';
import { BillingService } from '../../src/domain/billing.service';
import { PaymentsService } from '../../src/domain/payments.service';
import { DrizzleBillingRepository } from '../../src/repositories/billing.repository';
import { DrizzlePaymentsRepository } from '../../src/repositories/payments.repository';
import { SandboxProvider } from '../../src/repositories/providers/sandbox';
import { grpcBinding } from '../../src/transport/grpc';

type BillingClient = Client<typeof billing.BillingService>;
const uid = () => crypto.randomUUID();

describe('billing against real PostgreSQL, over gRPC', () => {
  let pg: TestDatabase;
  let db: Database;
  let bus: Bus;
  let relay: OutboxRelay;
  let server: RunningGrpcServer;
  let client: BillingClient;
  let now = new Date('2026-11-21T10:00:00Z');

  beforeAll(async () => {
    pg = await createTestDatabase('billing');
    db = await openDatabase({ url: pg.url, pgliteDir: '', poolSize: 20 });
    await migrate(db, [outboxMigration(), ...readMigrations(path.join(__dirname, '..', '..', 'migrations'))]);
    bus = await Bus.connect({ url: TEST_NATS_URL, name: 'billing-test', log: quietLogger(), prefix: natsPrefix() });
    await bus.ensureStream(streams.EVENTS);
    relay = new OutboxRelay(db.orm, bus, quietLogger());
    const service = new BillingService(
      new DrizzleBillingRepository(db.orm),
      () => now,
      () => void relay.flush(),
    );
    const sandbox = new SandboxProvider();
    const payments = new PaymentsService(
      new DrizzlePaymentsRepository(db.orm),
      { card: sandbox, paypal: sandbox, byName: () => sandbox, publishableKey: '' },
      { send: async () => undefined },
    );
    server = await serveGrpc({
      host: '127.0.0.1',
      port: 0,
      services: [grpcBinding(service, payments)],
      log: quietLogger(),
      serviceName: 'billing',
    });
    client = dial(billing.BillingService, `127.0.0.1:${server.port}`, { deadlineMs: 10_000 });
  });
  afterAll(async () => {
    client.close();
    await server.close();
    await relay.stop();
    await bus.deleteStream(streams.EVENTS);
    await bus.close();
    await db.close();
    await pg.drop();
  });
  beforeEach(() => {
    now = new Date('2026-11-21T10:00:00Z');
  });

  const balance = async (userId: string) => Number((await client.getAccount({ userId })).account!.credits);
  const paidUser = async (credits: number) => {
    const userId = uid();
    await client.setSubscription({ userId, plan: 'standard', billingCycle: 'monthly', status: 'active' });
    if (credits) await client.grant({ userId, credits: BigInt(credits), idempotencyKey: `seed-${userId}`, reason: 'test' });
    return userId;
  };

  it('30 concurrent reservations by a paid user whose balance covers one: exactly one succeeds, never below zero', async () => {
    const userId = await paidUser(30);
    const results = await Promise.allSettled(
      Array.from({ length: 30 }, () => client.reserve({ jobId: uid(), userId, estimateCredits: 30n })),
    );
    const ok = results.filter((r) => r.status === 'fulfilled');
    const refused = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(ok).toHaveLength(1);
    expect(refused).toHaveLength(29);
    for (const r of refused)
      expect(r.reason).toMatchObject({ code: 'RESOURCE_EXHAUSTED', message: 'Insufficient credits or daily limit reached' });
    expect(await balance(userId)).toBe(0);
    const rows = await db.query<{ min: string }>(
      'select min(running) as min from (select sum(delta) over (order by id) as running from ledger where user_id = $1) t',
      [userId],
    );
    expect(Number(rows[0]!.min)).toBeGreaterThanOrEqual(0);
  });

  it('20 concurrent reservations by a free user on one day: exactly one takes the free video; the next UTC day it is back', async () => {
    const userId = uid();
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, () => client.reserve({ jobId: uid(), userId, estimateCredits: 30n })),
    );
    const ok = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value.reservation!] : []));
    expect(ok).toHaveLength(1);
    expect(ok[0]!.kind).toBe(billing.ReservationKind.FREE_VIDEO);
    const acct = (await client.getAccount({ userId })).account!;
    expect(acct.dailyFreeUsed).toBe(true);
    expect(acct.lastFreeUse).toBe('2026-11-21');

    now = new Date('2026-11-21T23:59:59Z');
    await expect(client.reserve({ jobId: uid(), userId, estimateCredits: 30n })).rejects.toMatchObject({ code: 'RESOURCE_EXHAUSTED' });
    now = new Date('2026-11-22T00:00:00Z');
    expect((await client.getAccount({ userId })).account!.dailyFreeUsed).toBe(false);
    const next = await client.reserve({ jobId: uid(), userId, estimateCredits: 30n });
    expect(next.reservation!.kind).toBe(billing.ReservationKind.FREE_VIDEO);
  });

  it("account deletion: the user's ledger rows stay under an anonymous id, and the user's balance and account are gone", async () => {
    const userId = await paidUser(100);
    await client.reserve({ jobId: uid(), userId, estimateCredits: 30n });
    const rows = async (id: string) =>
      (await db.query<{ n: number }>('select count(*)::int as n from ledger where user_id = $1', [id]))[0]!.n;
    const total = async () => (await db.query<{ n: number }>('select count(*)::int as n from ledger'))[0]!.n;
    const before = await total();
    expect(await rows(userId)).toBeGreaterThan(0);
    await client.anonymiseUser({ userId });
    expect(await rows(userId)).toBe(0);
    expect(await total()).toBe(before);
    expect(await db.query('select * from accounts where user_id = $1', [userId])).toEqual([]);
    expect(await balance(userId)).toBe(0);
  });

  it('applies the same grant sent five times once', async () => {
    const userId = uid();
    const key = `purchase-${uid()}`;
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => client.grant({ userId, credits: 400n, idempotencyKey: key, reason: 'credits_400' })),
    );
    expect(answers.filter((a) => a.applied)).toHaveLength(1);
    expect(await balance(userId)).toBe(400);
  });

  it('Reserve then Release restores the balance exactly, and both are idempotent by job id', async () => {
    const userId = await paidUser(100);
    const jobId = uid();
    await client.reserve({ jobId, userId, estimateCredits: 47n });
    await client.reserve({ jobId, userId, estimateCredits: 47n }); // a retried request: the same reservation
    expect(await balance(userId)).toBe(53);
    await client.release({ jobId });
    await client.release({ jobId });
    expect(await balance(userId)).toBe(100);
  });

  it('refuses Release after Capture and Capture after Release', async () => {
    const userId = await paidUser(100);
    const captured = uid();
    await client.reserve({ jobId: captured, userId, estimateCredits: 30n });
    await client.capture({ jobId: captured });
    await client.capture({ jobId: captured });
    await expect(client.release({ jobId: captured })).rejects.toMatchObject({ code: 'FAILED_PRECONDITION' });
    expect(await balance(userId)).toBe(70);

    const released = uid();
    await client.reserve({ jobId: released, userId, estimateCredits: 30n });
    await client.release({ jobId: released });
    await expect(client.capture({ jobId: released })).rejects.toMatchObject({ code: 'FAILED_PRECONDITION' });
    expect(await balance(userId)).toBe(70);
  });

  it('gives a free user the free video back when the job is released', async () => {
    const userId = uid();
    const jobId = uid();
    await client.reserve({ jobId, userId, estimateCredits: 20n });
    await client.release({ jobId });
    expect((await client.getAccount({ userId })).account!.dailyFreeUsed).toBe(false);
    expect((await client.reserve({ jobId: uid(), userId, estimateCredits: 20n })).reservation!.kind).toBe(
      billing.ReservationKind.FREE_VIDEO,
    );
  });

  it('lets a free user with purchased credits pay once the free video is used', async () => {
    const userId = uid();
    await client.grant({ userId, credits: 50n, idempotencyKey: `pack-${userId}`, reason: 'credits_200' });
    expect((await client.reserve({ jobId: uid(), userId, estimateCredits: 40n })).reservation!.kind).toBe(
      billing.ReservationKind.FREE_VIDEO,
    );
    expect((await client.reserve({ jobId: uid(), userId, estimateCredits: 40n })).reservation!.kind).toBe(billing.ReservationKind.CREDITS);
    await expect(client.reserve({ jobId: uid(), userId, estimateCredits: 40n })).rejects.toMatchObject({ code: 'RESOURCE_EXHAUSTED' });
    expect(await balance(userId)).toBe(10);
  });

  it('never charges admins or limits them', async () => {
    const userId = uid();
    for (let i = 0; i < 3; i++) {
      const r = await client.reserve({ jobId: uid(), userId, estimateCredits: 64n, unlimited: true });
      expect(r.reservation!.kind).toBe(billing.ReservationKind.UNLIMITED);
    }
    const acct = (await client.getAccount({ userId, unlimited: true })).account!;
    expect(acct.credits).toBe(0n);
    expect(acct.dailyFreeUsed).toBe(false);
    expect(acct.entitlements!.unlimited).toBe(true);
    expect(acct.entitlements!.reelCapSeconds).toBe(3600n);
  });

  it('caps the reel length by plan over GetAccount, with the message for the plan', async () => {
    const free = (await client.getAccount({ userId: uid() })).account!.entitlements!;
    expect([free.reelCapSeconds, free.reelLengthLimitMessage]).toEqual([
      180n,
      'Free videos can be up to 3 minutes long. Upgrade to make longer reels.',
    ]);
    const paid = (await client.getAccount({ userId: await paidUser(0) })).account!.entitlements!;
    expect([paid.reelCapSeconds, paid.reelLengthLimitMessage]).toEqual([3600n, 'Reels can be up to 60 minutes long.']);
  });

  it('publishes reserved, captured, released and granted facts on NATS, once each', async () => {
    const userId = await paidUser(0);
    const a = uid();
    const b = uid();
    await client.grant({ userId, credits: 100n, idempotencyKey: `evt-${userId}`, reason: 'test' });
    await client.grant({ userId, credits: 100n, idempotencyKey: `evt-${userId}`, reason: 'test' });
    await client.reserve({ jobId: a, userId, estimateCredits: 30n });
    await client.capture({ jobId: a });
    await client.reserve({ jobId: b, userId, estimateCredits: 30n });
    await client.release({ jobId: b });
    await relay.flush();
    const seen: string[] = [];
    const facts = ['events.billing.granted', 'events.billing.reserved', 'events.billing.captured', 'events.billing.released'] as const;
    const consumers = await Promise.all(
      facts.map((s) =>
        bus.consume(s, { stream: streams.EVENTS, durable: `t-${s.split('.').pop()}`, ackWaitMs: 5000, maxDeliver: 2 }, async (d) => {
          if ((d.data as { userId: string }).userId === userId) seen.push(s.split('.').pop()!);
          return { kind: 'ack' };
        }),
      ),
    );
    await waitFor(() => seen.length >= 5, 10_000);
    // A quiet moment to catch a duplicate: absence cannot be polled for.
    await new Promise((r) => setTimeout(r, 300));
    await Promise.all(consumers.map((c) => c.stop()));
    expect(seen.sort()).toEqual(['captured', 'granted', 'released', 'reserved', 'reserved']);
  });

  it('estimates with the formula and rejects an unknown pacing', async () => {
    expect((await client.estimate({ pacingPreset: 'high-energy', hasMusic: true, totalSourceBytes: 0n })).credits).toBe(64n);
    // A 12-minute reel: 30 for a standard reel without music, plus 9 started minutes beyond the third.
    expect((await client.estimate({ pacingPreset: 'standard', hasMusic: false, totalSourceBytes: 0n, outputSeconds: 720 })).credits).toBe(
      120n,
    );
    await expect(
      client.estimate({ pacingPreset: 'standard', hasMusic: false, totalSourceBytes: 0n, outputSeconds: -1 }),
    ).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(client.estimate({ pacingPreset: 'frantic', hasMusic: false, totalSourceBytes: 0n })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
    });
  });
});
