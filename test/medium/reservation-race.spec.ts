import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import {
  DomainError,
  ErrorCode,
  LocalObjectStore,
  createMetrics,
  dial,
  parseConfig,
  runService,
  type RunningService,
} from '@reelsmith/kit';
import { TEST_NATS_URL, createTestDatabase, natsPrefix, quietLogger, tempDir, type TestDatabase } from '@reelsmith/kit/testing';
import { assembly, billing, media } from '@reelsmith/proto';
import { wire as wireBilling } from '../../services/billing/src/app';
import { configSchema as billingSchema } from '../../services/billing/src/config';
import { wire as wireMedia } from '../../services/media-library/src/app';
import { configSchema as mediaSchema } from '../../services/media-library/src/config';
import { wire as wireOrchestrator } from '../../services/assembly-orchestrator/src/app';
import { configSchema as orchestratorSchema } from '../../services/assembly-orchestrator/src/config';
import type { Peers } from '../../services/gateway/src/repositories/clients';
import { buildHttpApp } from '../../services/gateway/src/transport/http/server';

const SECRET = 'reservation-race-signing-secret-0123456';
const ORIGIN = 'http://localhost:8080';

const ff = (...args: string[]) => execFileSync('ffmpeg', ['-v', 'error', '-nostdin', '-y', ...args]);

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are checked by value
type Json = Record<string, any>;

/**
 * 30 submits of the same user at once, through the gateway with its rate limit raised, against
 * the real billing, media-library and orchestrator on PostgreSQL: the reservation is what decides,
 * and it lets exactly as many jobs through as the account can pay for.
 */
describe('the reservation race: 30 concurrent submits, rate limit raised', () => {
  const data = tempDir('reservation-race');
  const store = new LocalObjectStore({ root: path.join(data.dir, 'objects'), signingSecret: SECRET, publicUrl: ORIGIN });
  const dbs: TestDatabase[] = [];
  const running: RunningService[] = [];
  let peers: Peers;
  let app: FastifyInstance;
  let base: string;
  const users = new Map<string, string>();
  const signIn = () => {
    const token = crypto.randomBytes(16).toString('hex');
    users.set(token, crypto.randomUUID());
    return token;
  };

  beforeAll(async () => {
    const prefix = natsPrefix();
    const common = { DATA_DIR: data.dir, NATS_URL: TEST_NATS_URL, NATS_PREFIX: prefix, LOG_LEVEL: 'silent' };
    const db = async (label: string) => {
      const d = await createTestDatabase(label);
      dbs.push(d);
      return d.url;
    };
    const start = async (name: string, dir: string, config: unknown, wire: unknown) => {
      const s = await runService(
        {
          name,
          config: config as never,
          migrationsDir: path.join(__dirname, '../../services', dir, 'migrations'),
          outbox: true,
          wire: wire as never,
        },
        { handleSignals: false, log: quietLogger() },
      );
      running.push(s);
      return `127.0.0.1:${s.grpcPort}`;
    };
    const billingAddr = await start(
      'billing',
      'billing',
      parseConfig(billingSchema, { ...common, DATABASE_URL: await db('billing') }),
      wireBilling,
    );
    const mediaAddr = await start(
      'media-library',
      'media-library',
      parseConfig(mediaSchema, {
        ...common,
        DATABASE_URL: await db('media'),
        SIGNING_SECRET: SECRET,
        PUBLIC_URL: ORIGIN,
        LIBRARY_STARTER_DIR: 'none',
        ANALYSIS_CONCURRENCY: '2',
      }),
      wireMedia,
    );
    const jobsAddr = await start(
      'assembly-orchestrator',
      'assembly-orchestrator',
      parseConfig(orchestratorSchema, {
        ...common,
        DATABASE_URL: await db('orchestrator'),
        BILLING_GRPC_ADDR: billingAddr,
        MEDIA_LIBRARY_GRPC_ADDR: mediaAddr,
        DEMO_REELS: 'false',
      }),
      wireOrchestrator,
    );
    const opts = { deadlineMs: 60_000 };
    const clients = {
      billing: dial(billing.BillingService, billingAddr, opts),
      media: dial(media.MediaLibraryService, mediaAddr, opts),
      jobs: dial(assembly.AssemblyOrchestratorService, jobsAddr, opts),
    };
    peers = {
      ...clients,
      identity: {
        authenticate: async ({ sessionToken }: { sessionToken: string }) => {
          const id = users.get(sessionToken);
          if (!id) throw new DomainError(ErrorCode.UNAUTHENTICATED, 'Please sign in to continue.', 'unauthenticated');
          return { user: { id, email: `${id}@example.com`, isAdmin: false, isGuest: false, unlimited: false } };
        },
      },
      close: () => Object.values(clients).forEach((c) => c.close()),
    } as unknown as Peers;
    app = await buildHttpApp({
      log: quietLogger(),
      metrics: createMetrics('gateway_reservation_race'),
      webDist: data.dir,
      health: { report: async () => ({ status: 'healthy', services: {}, unavailable: [], instance: 't' }) },
      peers,
      store,
      files: { store, signingSecret: SECRET },
      // The per-user limit (10 submits a minute) would answer most of the burst with 429 before
      // billing sees it: raised here so all 30 really race for the reservation.
      rateLimitMax: 1000,
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  }, 180_000);

  afterAll(async () => {
    await app?.close();
    peers?.close();
    for (const s of running.reverse()) await s.stop();
    for (const d of dbs) await d.drop();
    data.remove();
  });

  const upload = async (token: string, file: string) => {
    const form = new FormData();
    form.append('file', new Blob([fs.readFileSync(file)]), path.basename(file));
    const r = await fetch(`${base}/api/v1/uploads/file`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
    const body = (await r.json()) as Json;
    expect([path.basename(file), r.status]).toEqual([path.basename(file), 201]);
    return body;
  };

  let clip = '';
  const burst = async (token: string, tag: string) => {
    const statuses = await Promise.all(
      Array.from({ length: 30 }, async (_, i) => {
        const r = await fetch(`${base}/api/v1/jobs/assemble`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': `${tag}-${i}` },
          body: JSON.stringify({ media_files: [clip], pacing_preset: 'standard' }),
        });
        return r.status;
      }),
    );
    const count = (s: number) => statuses.filter((x) => x === s).length;
    return { accepted: count(200), unpaid: count(402), limited: count(429), other: statuses.filter((s) => ![200, 402, 429].includes(s)) };
  };
  const account = async (token: string) => (await peers.billing.getAccount({ userId: users.get(token)! })).account!;

  it('a free account: exactly one job takes the daily free video, 29 are refused with 402, none with 429', async () => {
    const token = signIn();
    const file = path.join(data.dir, 'race.mp4');
    ff('-f', 'lavfi', '-i', 'testsrc2=s=160x120:r=25:d=3', '-c:v', 'libx264', '-pix_fmt', 'yuv420p', file);
    clip = (await upload(token, file)).object_key as string;

    expect(await burst(token, 'free')).toEqual({ accepted: 1, unpaid: 29, limited: 0, other: [] });
    const a = await account(token);
    expect(a.dailyFreeUsed).toBe(true);
    expect(Number(a.credits)).toBe(0);
  }, 120_000);

  it('credits for three jobs: exactly three are reserved, the balance ends at 0, never below', async () => {
    const token = signIn();
    // The clip belongs to the first user: this one uploads its own copy.
    clip = (await upload(token, path.join(data.dir, 'race.mp4'))).object_key as string;
    const userId = users.get(token)!;
    // The daily free video goes first (one submit), then credits for exactly three more.
    expect((await burst(token, 'free')).accepted).toBe(1);
    const plan = await fetch(`${base}/api/v1/jobs/plan`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ media_files: [clip], pacing_preset: 'standard' }),
    });
    const cost = ((await plan.json()) as Json).estimate.credits as number;
    expect(cost).toBeGreaterThan(0);
    await peers.billing.grant({ userId, credits: BigInt(cost * 3), idempotencyKey: `race-${userId}`, reason: 'test' });

    expect(await burst(token, 'paid')).toEqual({ accepted: 3, unpaid: 27, limited: 0, other: [] });
    expect(Number((await account(token)).credits)).toBe(0);
    const { jobs } = await peers.jobs.listJobs({ ownerId: userId, activeOnly: false, limit: 100 });
    expect(jobs).toHaveLength(4);
  }, 120_000);
});
