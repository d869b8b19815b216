import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import {
  Bus,
  ack,
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
import { DrizzleLibraryRepository } from '../../services/media-library/src/repositories/library.repository';
import { footageOptIns } from '../../services/assembly-orchestrator/src/domain/jobs.service';
import { DrizzleJobsRepository } from '../../services/assembly-orchestrator/src/repositories/jobs.repository';
import { queuedJob } from '../../services/assembly-orchestrator/test/queued-job';
import type { Peers } from '../../services/gateway/src/repositories/clients';
import { buildHttpApp } from '../../services/gateway/src/transport/http/server';
import { decodeQuotedPrintable, gatewayPeers, healthyReport, listenLocal, migrationsOf, startService } from '../support/in-process';
import { makeClip } from '../support/media';

/** A small real video (the stock library probes and analyses what it imports). */
const realVideo = (file: string) => makeClip(file, { size: '160x120', fps: 15, seconds: 2, hue: Math.floor(Math.random() * 360) });

/**
 * The footage marketplace's whole loop with real parts: identity, billing, marketplace and
 * media-library (its stock library) as the
 * services run (PostgreSQL each, NATS JetStream, local object storage), the orchestrator's own
 * repository publishing the consent through its outbox, and the gateway's HTTP routes.
 */
const ADMIN = `admin.${Date.now()}@reelsmith.test`;
const TOKEN_SECRET = 'test-token-secret-0123456789abcdef';
const SIGNING_SECRET = 'test-signing-secret-0123456789abcdef';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are checked by value
type Json = Record<string, any>;

interface Mail {
  to: string;
  raw: string;
}

describe('footage marketplace: opt-in -> offer -> answer, through the gateway', () => {
  const dbs: TestDatabase[] = [];
  const running: Record<string, RunningService> = {};
  const data = tempDir('marketplace');
  const mails: Mail[] = [];
  const prefix = natsPrefix();
  let smtpPort = 0;
  let smtp: SmtpStandIn;
  let app: FastifyInstance;
  let peers: Peers;
  let base: string;
  let store: LocalObjectStore;
  let jobsDb: Database;
  let bus: Bus;
  let relay: OutboxRelay;
  let jobs: DrizzleJobsRepository;
  let marketplaceDb: TestDatabase;
  let marketplacePort = 0;
  let billingDb: TestDatabase;
  let billingPort = 0;
  let mediaDb: TestDatabase;
  let mediaOrm: Database;
  let library: Client<typeof media.MediaLibraryService>;
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
    library = dial(media.MediaLibraryService, `127.0.0.1:${running.media.grpcPort}`, { deadlineMs: 60_000 });
    mediaOrm = await openDatabase({ url: mediaDb.url, pgliteDir: '' });

    // The orchestrator's side: its job table and outbox, relayed to the same NATS namespace.
    jobsDb = await openDatabase({ url: orchestratorDb.url, pgliteDir: '' });
    await migrate(jobsDb, [outboxMigration(), ...readMigrations(migrationsOf('assembly-orchestrator'))]);
    bus = await Bus.connect({ url: TEST_NATS_URL, name: 'orchestrator-test', log: quietLogger(), prefix });
    relay = new OutboxRelay(jobsDb.orm, bus, quietLogger(), 200);
    relay.start();
    jobs = new DrizzleJobsRepository(jobsDb.orm, () => void relay.flush());

    store = new LocalObjectStore({
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
      store,
      trustProxy: true,
    });
    base = `${await listenLocal(app)}/api/v1`;
  }, 90_000);

  // Teardown shaped like the other composed specs by design: each stops exactly what it started.
  afterAll(async () => {
    await app?.close();
    peers?.close();
    await relay?.stop();
    for (const s of Object.values(running)) await s.stop();
    await bus?.deleteStream(streams.EVENTS);
    await bus?.close();
    await jobsDb?.close();
    library?.close();
    await mediaOrm?.close();
    await smtp.close();
    for (const d of dbs) await d.drop();
    data.remove();
  }, 60_000);

  let ip = 0;
  const call = (method: string, route: string, body?: unknown, token?: string, headers: Record<string, string> = {}) =>
    fetch(`${base}${route}`, {
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

  let adminToken = '';
  beforeAll(async () => {
    adminToken = (await signUp(ADMIN)).token;
  }, 30_000);

  /** An upload of `userId` (bytes on the shared store) used in a job, with or without consent. */
  const submitJob = async (userId: string, consent: boolean, name = 'beach day.mp4', content?: Buffer) => {
    const uploadKey = `uploads/${userId}/${crypto.randomUUID()}.mp4`;
    const bytes = content ?? crypto.randomBytes(300_000);
    await store.put(uploadKey, bytes);
    const thumbKey = uploadKey.replace(/\.mp4$/, '.jpg');
    await store.put(thumbKey, Buffer.from('jpeg-bytes'));
    const job = queuedJob({ ownerId: userId, estimateCredits: 0 }, { media_files: [uploadKey], get_footage_offers: consent });
    const clips = [
      { objectKey: uploadKey, kind: 'video' as const, sizeBytes: bytes.length, durationSec: 5, displayName: name, thumbnailKey: thumbKey },
    ];
    expect(await jobs.insertQueued(job, footageOptIns(job.request, userId, clips))).toBe(true);
    return { uploadKey, bytes, name };
  };

  const adminClips = async () => {
    const r = await call('GET', '/admin/footage-marketplace', undefined, adminToken);
    expect(r.status).toBe(200);
    return r.body as { clips: Array<Json>; total: number; pending: number };
  };
  /** Waits for the clip to show (a restarted service's channel may answer 503 for a moment). */
  const clipNamed = (name: string) =>
    waitFor(async () => {
      const r = await call('GET', '/admin/footage-marketplace', undefined, adminToken);
      return r.status === 200 ? (r.body.clips as Array<Json>).find((c) => c.filename === name) : undefined;
    }, 15_000);
  /** The balance the user menu shows (retried while a restarted peer's channel reconnects). */
  const credits = (token: string) =>
    waitFor(async () => {
      const r = await call('GET', '/auth/me', undefined, token);
      return r.status === 200 ? { n: r.body.user.credits as number } : undefined;
    }).then((x) => x.n);

  it('only consented clips reach the admin, who alone sees, streams and offers; the owner accepts credits once', async () => {
    const user = await signUp(uniqueEmail('maker'));
    const purchased: Array<Record<string, unknown>> = [];
    const consumer = await bus.consume(
      'events.marketplace.clip_purchased',
      { stream: streams.EVENTS, durable: `test-${crypto.randomUUID()}`, ackWaitMs: 5000, maxDeliver: 1 },
      async ({ data }) => {
        if (data.uploaderUserId === user.id) purchased.push({ ...data });
        return ack();
      },
    );
    const shy = `${crypto.randomUUID()}.mp4`;
    const open = `${crypto.randomUUID()}.mp4`;
    await submitJob(user.id, false, shy);
    const { bytes } = await submitJob(user.id, true, open);

    const clip = await clipNamed(open);
    expect(clip).toMatchObject({ status: 'pending', user_email: expect.stringMatching(/^maker\./), cash_offer: null, credits_offer: null });
    expect(clip.file_size_mb).toBeCloseTo(300_000 / 1048576, 2);
    expect(clip.thumbnail_url).toMatch(/\/api\/v1\/files\/marketplace\/thumbnails\//);
    // The clip without consent never shows, however long we wait for the one with it.
    expect((await adminClips()).clips.some((c) => c.filename === shy)).toBe(false);

    // Admin only, enforced by the server.
    expect((await call('GET', '/admin/footage-marketplace', undefined, user.token)).status).toBe(403);
    expect((await call('POST', `/admin/footage-marketplace/${clip.id}/offer`, { type: 'credits' }, user.token)).status).toBe(403);
    expect((await call('GET', `/admin/footage-marketplace/${clip.id}/stream`, undefined, user.token)).status).toBe(403);
    expect((await call('DELETE', `/admin/footage-marketplace/${clip.id}`, undefined, user.token)).status).toBe(403);
    expect((await call('GET', '/admin/footage-marketplace')).status).toBe(401);

    // The player's range requests.
    const part = await fetch(`${base}/admin/footage-marketplace/${clip.id}/stream`, {
      headers: { authorization: `Bearer ${adminToken}`, range: 'bytes=1000-1999' },
    });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 1000-1999/${bytes.length}`);
    expect(Buffer.from(await part.arrayBuffer()).equals(bytes.subarray(1000, 2000))).toBe(true);
    const whole = await fetch(`${base}/admin/footage-marketplace/${clip.id}/stream`, {
      headers: { authorization: `Bearer ${adminToken}` },
    });
    expect(whole.status).toBe(200);
    expect(whole.headers.get('cache-control')).toBe('private, no-store');
    expect(Buffer.from(await whole.arrayBuffer()).equals(bytes)).toBe(true);
    const past = await fetch(`${base}/admin/footage-marketplace/${clip.id}/stream`, {
      headers: { authorization: `Bearer ${adminToken}`, range: `bytes=${bytes.length}-` },
    });
    expect(past.status).toBe(416);
    expect(past.headers.get('content-range')).toBe(`bytes */${bytes.length}`);
    expect(await past.json()).toMatchObject({ code: 'range_not_satisfiable' });

    const offered = await call('POST', `/admin/footage-marketplace/${clip.id}/offer`, { type: 'credits' }, adminToken);
    expect(offered.status).toBe(200);
    expect(offered.body).toMatchObject({ status: 'credits_offered', credits_offer: 50, cash_offer: null });
    // Only a pending clip takes an offer.
    const again = await call('POST', `/admin/footage-marketplace/${clip.id}/offer`, { type: 'cash' }, adminToken);
    expect(again).toEqual({ status: 409, body: { detail: 'Only pending clips can receive offers.', code: 'clip_not_pending' } });

    // The owner hears of it by mail and sees it among their offers; nobody else does.
    const mail = await waitFor(() => mails.find((m) => m.to === user.email && /new offer/.test(m.raw)));
    expect(mail.raw).toContain(open);
    expect(mail.raw).toContain('50 credits');
    const offers = await call('GET', '/user/offers', undefined, user.token);
    expect(offers.body.offers).toEqual([expect.objectContaining({ id: clip.id, status: 'credits_offered', credits_offer: 50 })]);
    const other = await signUp(uniqueEmail('other'));
    expect((await call('GET', '/user/offers', undefined, other.token)).body.offers).toEqual([]);
    expect((await call('POST', `/user/offers/${clip.id}/accept`, { offer_type: 'credits' }, other.token)).status).toBe(404);

    // Ten accepts at once: one outcome, credits granted exactly once.
    const before = await credits(user.token);
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => call('POST', `/user/offers/${clip.id}/accept`, { offer_type: 'credits' }, user.token)),
    );
    for (const a of answers)
      expect(a).toEqual({ status: 200, body: { message: 'Offer accepted! 50 credits have been added to your account.' } });
    expect(await credits(user.token)).toBe(before + 50);
    expect((await call('GET', '/user/offers', undefined, user.token)).body.offers).toEqual([]);
    expect((await clipNamed(open)).status).toBe('purchased');
    // A different answer afterwards changes nothing.
    expect((await call('POST', `/user/offers/${clip.id}/decline`, undefined, user.token)).status).toBe(409);
    expect(await credits(user.token)).toBe(before + 50);
    expect((await call('POST', `/admin/footage-marketplace/${clip.id}/offer`, { type: 'credits' }, adminToken)).status).toBe(409);

    // The stock library learns of the purchase once, with what it needs to list the clip.
    await waitFor(() => purchased.length > 0);
    await consumer.stop();
    expect(purchased).toHaveLength(1);
    const event = purchased[0]!;
    expect(event).toMatchObject({ clipId: clip.id, filename: open, uploaderEmail: user.email, category: 'community', sizeBytes: 300_000n });
    const copy = await store.get(event.objectKey as string);
    const chunks: Buffer[] = [];
    for await (const c of copy) chunks.push(c as Buffer);
    expect(Buffer.concat(chunks).equals(bytes)).toBe(true);
  });

  it('accept and decline of a cash offer at once: one outcome; an accepted cash offer is a payout to mark paid', async () => {
    const user = await signUp(uniqueEmail('racer'));
    for (let round = 0; round < 3; round++) {
      const name = `${crypto.randomUUID()}.mp4`;
      await submitJob(user.id, true, name);
      const clip = await clipNamed(name);
      expect((await call('POST', `/admin/footage-marketplace/${clip.id}/offer`, { type: 'cash', amount: 0.25 }, adminToken)).status).toBe(
        200,
      );
      const [a, d] = await Promise.all([
        call('POST', `/user/offers/${clip.id}/accept`, { offer_type: 'cash' }, user.token),
        call('POST', `/user/offers/${clip.id}/decline`, undefined, user.token),
      ]);
      expect([a.status, d.status].sort()).toEqual([200, 409]);
      const after = await clipNamed(name);
      const payouts = (await call('GET', '/admin/footage-marketplace/payouts', undefined, adminToken)).body.payouts as Array<Json>;
      const mine = payouts.filter((p) => p.clip_id === clip.id);
      if (a.status === 200) {
        expect(after.status).toBe('purchased');
        expect(mine).toEqual([expect.objectContaining({ amount: 0.25, state: 'pending', filename: name })]);
        const paid = await call('POST', `/admin/footage-marketplace/payouts/${mine[0]!.id}/paid`, undefined, adminToken);
        expect(paid.body).toMatchObject({ state: 'paid', paid_at: expect.any(String) });
        expect((await call('POST', `/admin/footage-marketplace/payouts/${mine[0]!.id}/paid`, undefined, user.token)).status).toBe(403);
      } else {
        expect(after.status).toBe('rejected');
        expect(mine).toEqual([]);
      }
    }
  });

  it('Delete removes only the marketplace copy; the upload stays', async () => {
    const user = await signUp(uniqueEmail('deleter'));
    const name = `${crypto.randomUUID()}.mp4`;
    const { uploadKey } = await submitJob(user.id, true, name);
    const clip = await clipNamed(name);
    const copies = fs.readdirSync(path.join(data.dir, 'objects', 'marketplace', 'clips')).filter((f) => f.startsWith(clip.id));
    expect(copies).toHaveLength(1);
    expect((await call('DELETE', `/admin/footage-marketplace/${clip.id}`, undefined, adminToken)).status).toBe(200);
    expect((await adminClips()).clips.some((c) => c.id === clip.id)).toBe(false);
    expect(fs.existsSync(path.join(data.dir, 'objects', 'marketplace', 'clips', copies[0]!))).toBe(false);
    expect(await store.stat(uploadKey)).not.toBeNull();
    expect((await call('DELETE', `/admin/footage-marketplace/${clip.id}`, undefined, adminToken)).status).toBe(404);
  });

  it('a purchased clip joins the stock library under community, attributed, once; a vanished clip is dropped', async () => {
    const user = await signUp(uniqueEmail('filmer'));
    const file = path.join(data.dir, `${crypto.randomUUID()}.mp4`);
    realVideo(file);
    const name = `Harbour ${crypto.randomUUID().slice(0, 8)}.mp4`;
    await submitJob(user.id, true, name, fs.readFileSync(file));
    const clip = await clipNamed(name);
    expect((await call('POST', `/admin/footage-marketplace/${clip.id}/offer`, { type: 'credits' }, adminToken)).status).toBe(200);
    expect((await call('POST', `/user/offers/${clip.id}/accept`, { offer_type: 'credits' }, user.token)).status).toBe(200);

    // Found by its name and by its category, in category 'community'.
    const found = await waitFor(async () => {
      const r = await library.listLibrary({ kind: 'video', q: name.slice(0, 16).toUpperCase(), category: '', limit: 50, offset: 0 });
      return r.items.length ? r : undefined;
    }, 30_000);
    expect(found.items).toEqual([expect.objectContaining({ filename: name, category: 'community', kind: 'video' })]);
    expect(found.categories).toContain('community');
    const community = await library.listLibrary({ kind: 'video', q: 'communi', category: '', limit: 50, offset: 0 });
    expect(community.items.map((i) => i.filename)).toContain(name);
    const item = found.items[0]!;
    expect(item.durationSec).toBeGreaterThan(1);
    const stored = await new DrizzleLibraryRepository(mediaOrm.orm).itemBySourceClip(clip.id);
    expect(stored).toMatchObject({ key: item.key, attribution: user.email, attributionUserId: user.id, sourceClipId: clip.id });

    // The library owns its copy: an admin's Remove of the marketplace clip leaves the item playable.
    expect(item.objectKey).toMatch(/^library\/video\//);
    expect((await call('DELETE', `/admin/footage-marketplace/${clip.id}`, undefined, adminToken)).status).toBe(200);
    expect(await store.stat(item.objectKey)).toMatchObject({ size: fs.statSync(file).size });

    // The same purchase delivered again (as JetStream may) adds nothing; a clip whose object is
    // already gone is dropped without an item.
    const total = (await library.listLibrary({ kind: 'video', q: '', category: 'community', limit: 50, offset: 0 })).total;
    const event = {
      clipId: clip.id,
      objectKey: `marketplace/clips/${clip.id}.mp4`,
      filename: name,
      sizeBytes: BigInt(fs.statSync(file).size),
      uploaderUserId: user.id,
      uploaderEmail: user.email,
      category: 'community',
      purchasedAtUnixMs: BigInt(Date.now()),
    };
    await bus.publish('events.marketplace.clip_purchased', event, { msgId: `redelivered.${clip.id}` });
    const gone = crypto.randomUUID();
    await bus.publish(
      'events.marketplace.clip_purchased',
      { ...event, clipId: gone, objectKey: `marketplace/clips/${gone}.mp4`, filename: `gone-${gone}.mp4` },
      { msgId: `marketplace.clip_purchased.${gone}` },
    );
    // What media-library reports of each delivery (a dropped message shows nowhere else).
    await waitFor(
      () =>
        mediaLog.some((l) => l.clip_id === clip.id && l.outcome === 'duplicate') &&
        mediaLog.some((l) => l.clip_id === gone && /gone from storage/.test(String(l.msg))),
      30_000,
    );
    const after = await library.listLibrary({ kind: 'video', q: '', category: 'community', limit: 50, offset: 0 });
    expect(after.total).toBe(total);
    expect(after.items.filter((i) => i.filename === name)).toHaveLength(1);
    expect(await new DrizzleLibraryRepository(mediaOrm.orm).itemBySourceClip(gone)).toBeNull();
  }, 60_000);

  it('a restart of the marketplace and a billing outage mid-flow lose nothing', async () => {
    const user = await signUp(uniqueEmail('patient'));
    await running.marketplace!.stop();
    // Consent given while the marketplace is down: the fact waits in JetStream.
    const name = `${crypto.randomUUID()}.mp4`;
    await submitJob(user.id, true, name);
    await startMarketplace();
    const clip = await clipNamed(name);
    expect((await call('POST', `/admin/footage-marketplace/${clip.id}/offer`, { type: 'credits', amount: 70 }, adminToken)).status).toBe(
      200,
    );
    const before = await credits(user.token);

    // Billing goes away; the acceptance is recorded and the credits are owed, then granted once.
    await running.billing!.stop();
    const accepted = await call('POST', `/user/offers/${clip.id}/accept`, { offer_type: 'credits' }, user.token);
    expect(accepted).toEqual({ status: 200, body: { message: 'Offer accepted! 70 credits have been added to your account.' } });
    await running.marketplace!.stop();
    await startBilling();
    await startMarketplace();
    await waitFor(async () => (await credits(user.token)) === before + 70, 15_000);
    await new Promise((r) => setTimeout(r, 1500)); // another sweep: still once
    expect(await credits(user.token)).toBe(before + 70);
  }, 60_000);
});
