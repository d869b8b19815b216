// The stack marketplace.spec.ts runs the footage marketplace's whole loop on, with real parts:
// identity, billing, marketplace and media-library (its stock library) as the services run
// (PostgreSQL each, NATS JetStream, local object storage), the orchestrator's own repository
// publishing the consent through its outbox, and the gateway's HTTP routes.
import crypto from 'node:crypto';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import {
  Bus,
  LocalObjectStore,
  OutboxRelay,
  createLogger,
  createMetrics,
  migrate,
  openDatabase,
  outboxMigration,
  readMigrations,
  dial,
  type Client,
  type Database,
  type RunningService,
} from '@reelsmith/kit';
import { TEST_NATS_URL, createTestDatabase, natsPrefix, quietLogger, startSmtpStandIn, tempDir, waitFor } from '@reelsmith/kit/testing';
import type { SmtpStandIn, TestDatabase } from '@reelsmith/kit/testing';
import { media, streams } from '@reelsmith/proto';
import { wire as wireIdentity } from '../../services/identity/src/app';
import { configSchema as identitySchema } from '../../services/identity/src/config';
import { wire as wireBilling } from '../../services/billing/src/app';
import { configSchema as billingSchema } from '../../services/billing/src/config';
import { wire as wireMarketplace } from '../../services/marketplace/src/app';
import { configSchema as marketplaceSchema } from '../../services/marketplace/src/config';
import { wire as wireMedia } from '../../services/media-library/src/app';
import { configSchema as mediaSchema } from '../../services/media-library/src/config';
import { footageOptIns } from '../../services/assembly-orchestrator/src/domain/jobs.service';
import { DrizzleJobsRepository } from '../../services/assembly-orchestrator/src/repositories/jobs.repository';
import { queuedJob } from '../../services/assembly-orchestrator/test/queued-job';
import type { Peers } from '../../services/gateway/src/repositories/clients';
import { buildHttpApp } from '../../services/gateway/src/transport/http/server';
import { decodeQuotedPrintable, gatewayPeers, healthyReport, listenLocal, migrationsOf, startService } from '../support/in-process';

const ADMIN = `admin.${Date.now()}@reelsmith.test`;
const TOKEN_SECRET = 'test-token-secret-0123456789abcdef';
const SIGNING_SECRET = 'test-signing-secret-0123456789abcdef';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are checked by value
export type Json = Record<string, any>;

interface Mail {
  to: string;
  raw: string;
}

/**
 * Starts the stack before the calling describe's tests and signs the admin up; stops it all after.
 * What it sets up as it starts (the gateway's address, the bus, the store, the admin's token...) is
 * read on the returned object once the tests run.
 */
export function marketplaceStack() {
  /** What the stack sets up as it starts, read on the object marketplaceStack returns. */
  const live = { base: '', adminToken: '' } as {
    base: string;
    adminToken: string;
    bus: Bus;
    store: LocalObjectStore;
    library: Client<typeof media.MediaLibraryService>;
    mediaOrm: Database;
  };
  const dbs: TestDatabase[] = [];
  const running: Record<string, RunningService> = {};
  const data = tempDir('marketplace');
  const mails: Mail[] = [];
  const prefix = natsPrefix();
  let smtpPort = 0;
  let smtp: SmtpStandIn;
  let app: FastifyInstance;
  let peers: Peers;
  let jobsDb: Database;
  let relay: OutboxRelay;
  let jobs: DrizzleJobsRepository;
  let marketplaceDb: TestDatabase;
  let marketplacePort = 0;
  let billingDb: TestDatabase;
  let billingPort = 0;
  let mediaDb: TestDatabase;
  const mediaLog: Json[] = [];
  const mediaSink = {
    write(line: string) {
      mediaLog.push(JSON.parse(line) as Json);
    },
  };
  const common = () => ({ DATA_DIR: data.dir, NATS_URL: TEST_NATS_URL, NATS_PREFIX: prefix, LOG_LEVEL: 'silent' });

  const startBilling = async () => {
    const env = { ...common(), GRPC_PORT: String(billingPort) };
    running.billing = (
      await startService({ name: 'billing', schema: billingSchema, wire: wireBilling, env, outbox: true, db: billingDb })
    ).running;
    billingPort = running.billing.grpcPort;
  };
  const startMarketplace = async () => {
    const env = {
      ...common(),
      GRPC_PORT: String(marketplacePort),
      IDENTITY_GRPC_ADDR: `127.0.0.1:${running.identity!.grpcPort}`,
      BILLING_GRPC_ADDR: `127.0.0.1:${billingPort}`,
      SIGNING_SECRET,
      SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
      MARKETPLACE_SWEEP_INTERVAL_MS: '1000',
    };
    const schema = marketplaceSchema;
    running.marketplace = (
      await startService({ name: 'marketplace', schema, wire: wireMarketplace, env, outbox: true, db: marketplaceDb })
    ).running;
    marketplacePort = running.marketplace.grpcPort;
  };

  beforeAll(async () => {
    smtp = await startSmtpStandIn((m) => mails.push({ to: m.to, raw: decodeQuotedPrintable(m.raw) }));
    smtpPort = smtp.port;

    const identityDb = await createTestDatabase('identity');
    billingDb = await createTestDatabase('billing');
    marketplaceDb = await createTestDatabase('marketplace');
    const orchestratorDb = await createTestDatabase('orchestrator');
    dbs.push(identityDb, billingDb, marketplaceDb, orchestratorDb);

    running.identity = (
      await startService({
        name: 'identity',
        schema: identitySchema,
        wire: wireIdentity,
        env: { ...common(), SMTP_URL: `smtp://127.0.0.1:${smtpPort}`, PRIVILEGED_EMAILS: ADMIN, TOKEN_SECRET },
        outbox: true,
        db: identityDb,
      })
    ).running;
    await startBilling();
    await startMarketplace();
    mediaDb = await createTestDatabase('media');
    dbs.push(mediaDb);
    running.media = (
      await startService({
        name: 'media-library',
        schema: mediaSchema,
        wire: wireMedia,
        env: { ...common(), SIGNING_SECRET, PUBLIC_URL: 'http://localhost:8080', LIBRARY_STARTER_DIR: 'none' },
        db: mediaDb,
        log: createLogger({ service: 'media-library', destination: mediaSink }),
      })
    ).running;
    live.library = dial(media.MediaLibraryService, `127.0.0.1:${running.media.grpcPort}`, { deadlineMs: 60_000 });
    live.mediaOrm = await openDatabase({ url: mediaDb.url, pgliteDir: '' });

    // The orchestrator's side: its job table and outbox, relayed to the same NATS namespace.
    jobsDb = await openDatabase({ url: orchestratorDb.url, pgliteDir: '' });
    await migrate(jobsDb, [outboxMigration(), ...readMigrations(migrationsOf('assembly-orchestrator'))]);
    live.bus = await Bus.connect({ url: TEST_NATS_URL, name: 'orchestrator-test', log: quietLogger(), prefix });
    relay = new OutboxRelay(jobsDb.orm, live.bus, quietLogger(), 200);
    relay.start();
    jobs = new DrizzleJobsRepository(jobsDb.orm, () => void relay.flush());

    live.store = new LocalObjectStore({
      root: path.join(data.dir, 'objects'),
      signingSecret: SIGNING_SECRET,
      publicUrl: 'http://localhost:8080',
    });
    peers = gatewayPeers({
      identity: `127.0.0.1:${running.identity.grpcPort}`,
      billing: `127.0.0.1:${billingPort}`,
      marketplace: `127.0.0.1:${marketplacePort}`,
    });
    app = await buildHttpApp({
      log: quietLogger(),
      metrics: createMetrics('gateway'),
      webDist: data.dir,
      health: healthyReport,
      peers,
      store: live.store,
      trustProxy: true,
    });
    live.base = `${await listenLocal(app)}/api/v1`;
  }, 90_000);

  afterAll(async () => {
    await app?.close();
    peers?.close();
    await relay?.stop();
    for (const s of Object.values(running)) await s.stop();
    await live.bus?.deleteStream(streams.EVENTS);
    await live.bus?.close();
    await jobsDb?.close();
    live.library?.close();
    await live.mediaOrm?.close();
    await smtp.close();
    for (const d of dbs) await d.drop();
    data.remove();
  }, 60_000);

  let ip = 0;
  const call = (method: string, route: string, body?: unknown, token?: string, headers: Record<string, string> = {}) =>
    fetch(`${live.base}${route}`, {
      method,
      headers: {
        ...(body ? { 'content-type': 'application/json' } : {}),
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        'x-forwarded-for': `10.7.${Math.floor(++ip / 250)}.${ip % 250}`,
        ...headers,
      },
      body: body ? JSON.stringify(body) : undefined,
    }).then(async (r) => ({ status: r.status, body: (await r.json().catch(() => null)) as Json }));

  const signUp = async (email: string) => {
    expect((await call('POST', '/auth/register', { email, password: 'correct horse' })).status).toBe(201);
    const mail = await waitFor(() => mails.find((m) => m.to === email.toLowerCase() && /verification code is/.test(m.raw)));
    const code = /verification code is (\d{6})/.exec(mail.raw)![1];
    const v = await call('POST', '/auth/verify-email', { email, code });
    expect(v.status).toBe(200);
    return { token: v.body.session_token as string, id: (v.body.user as { id: string }).id, email: email.toLowerCase() };
  };
  const uniqueEmail = (label: string) => `${label}.${Date.now()}.${crypto.randomBytes(3).toString('hex')}@example.com`;

  beforeAll(async () => {
    live.adminToken = (await signUp(ADMIN)).token;
  }, 30_000);

  /** An upload of `userId` (bytes on the shared store) used in a job, with or without consent. */
  const submitJob = async (userId: string, consent: boolean, name = 'beach day.mp4', content?: Buffer) => {
    const uploadKey = `uploads/${userId}/${crypto.randomUUID()}.mp4`;
    const bytes = content ?? crypto.randomBytes(300_000);
    await live.store.put(uploadKey, bytes);
    const thumbKey = uploadKey.replace(/\.mp4$/, '.jpg');
    await live.store.put(thumbKey, Buffer.from('jpeg-bytes'));
    const job = queuedJob({ ownerId: userId, estimateCredits: 0 }, { media_files: [uploadKey], get_footage_offers: consent });
    const clips = [
      { objectKey: uploadKey, kind: 'video' as const, sizeBytes: bytes.length, durationSec: 5, displayName: name, thumbnailKey: thumbKey },
    ];
    expect(await jobs.insertQueued(job, footageOptIns(job.request, userId, clips))).toBe(true);
    return { uploadKey, bytes, name };
  };

  const adminClips = async () => {
    const r = await call('GET', '/admin/footage-marketplace', undefined, live.adminToken);
    expect(r.status).toBe(200);
    return r.body as { clips: Array<Json>; total: number; pending: number };
  };
  /** Waits for the clip to show (a restarted service's channel may answer 503 for a moment). */
  const clipNamed = (name: string) =>
    waitFor(async () => {
      const r = await call('GET', '/admin/footage-marketplace', undefined, live.adminToken);
      return r.status === 200 ? (r.body.clips as Array<Json>).find((c) => c.filename === name) : undefined;
    }, 15_000);
  /** The balance the user menu shows (retried while a restarted peer's channel reconnects). */
  const credits = (token: string) =>
    waitFor(async () => {
      const r = await call('GET', '/auth/me', undefined, token);
      return r.status === 200 ? { n: r.body.user.credits as number } : undefined;
    }).then((x) => x.n);

  return Object.assign(live, {
    running,
    data,
    mails,
    mediaLog,
    call,
    signUp,
    uniqueEmail,
    submitJob,
    adminClips,
    clipNamed,
    credits,
    startBilling,
    startMarketplace,
  });
}
