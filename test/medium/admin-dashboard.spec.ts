// The admin dashboard end to end in one process: identity, billing and telemetry as real services
// on PostgreSQL and NATS, the gateway's HTTP app in front with its per-minute request counts.
// Scripted traffic (sign-ups, logins, a failed login, a reel, a 5xx), then the three admin
// endpoints must report exactly those counts, again after every event has been replayed.
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { Bus, LocalObjectStore, createMetrics, type RunningService } from '@reelsmith/kit';
import { TEST_NATS_URL, createTestDatabase, natsPrefix, quietLogger, startSmtpStandIn, tempDir, waitFor } from '@reelsmith/kit/testing';
import type { SmtpStandIn, TestDatabase } from '@reelsmith/kit/testing';
import { streams } from '@reelsmith/proto';
import { wire as wireIdentity } from '../../services/identity/src/app';
import { configSchema as identitySchema } from '../../services/identity/src/config';
import { wire as wireBilling } from '../../services/billing/src/app';
import { configSchema as billingSchema } from '../../services/billing/src/config';
import { wire as wireTelemetry } from '../../services/telemetry/src/app';
import { configSchema as telemetrySchema } from '../../services/telemetry/src/config';
import { CONSUMED } from '../../services/telemetry/src/domain/facts';
import { durableName } from '../../services/telemetry/src/transport/events.consumer';
import { detailedHealth } from '../../services/gateway/src/domain/detailed-health';
import { RequestCounter } from '../../services/gateway/src/domain/request-counter';
import type { Peers } from '../../services/gateway/src/repositories/clients';
import { RequestCountsPublisher } from '../../services/gateway/src/repositories/request-counts.publisher';
import { probeServices, probeStorage, renderQueue, systemResources } from '../../services/gateway/src/repositories/system.repository';
import { buildHttpApp } from '../../services/gateway/src/transport/http/server';
import { gatewayPeers, listenLocal, startService } from '../support/in-process';

const ADMIN = 'chief@reelsmith.test';
const TOKEN_SECRET = 'test-token-secret-0123456789abcdef';
jest.setTimeout(120_000);

describe('admin dashboard: telemetry counts exactly what happened', () => {
  const dbs: Record<string, TestDatabase> = {};
  const services: Record<string, RunningService> = {};
  const data = tempDir('admin');
  const mails: { to: string; raw: string }[] = [];
  const log = quietLogger();
  const prefix = natsPrefix();
  let smtp: SmtpStandIn;
  let app: FastifyInstance;
  let peers: Peers;
  let bus: Bus;
  let counts: RequestCountsPublisher;
  let base: string;

  /** On the port it had before, when restarted: the gateway's channel reconnects to it. */
  const startTelemetry = async (port = 0) => {
    const env = { DATA_DIR: data.dir, NATS_URL: TEST_NATS_URL, NATS_PREFIX: prefix, GRPC_PORT: String(port) };
    services.telemetry = (
      await startService({ name: 'telemetry', schema: telemetrySchema, wire: wireTelemetry, env, db: dbs.telemetry, log })
    ).running;
  };

  beforeAll(async () => {
    smtp = await startSmtpStandIn((m) => mails.push({ to: m.to, raw: m.raw.replace(/=\r?\n/g, '') }));
    const smtpPort = smtp.port;
    const common = { DATA_DIR: data.dir, NATS_URL: TEST_NATS_URL, NATS_PREFIX: prefix };
    for (const name of ['identity', 'billing', 'telemetry']) dbs[name] = await createTestDatabase(name);
    for (const [name, schema, wire, extra] of [
      ['identity', identitySchema, wireIdentity, { SMTP_URL: `smtp://127.0.0.1:${smtpPort}`, PRIVILEGED_EMAILS: ADMIN, TOKEN_SECRET }],
      ['billing', billingSchema, wireBilling, {}],
    ] as const) {
      services[name] = (await startService({ name, schema, wire, env: { ...common, ...extra }, outbox: true, db: dbs[name], log })).running;
    }
    await startTelemetry();
    const addr = (n: string) => `127.0.0.1:${services[n]!.grpcPort}`;
    // media-library is not running: the library route answers 503 (the scripted error).
    peers = gatewayPeers({ identity: addr('identity'), billing: addr('billing'), telemetry: addr('telemetry') }, 5_000);
    bus = await Bus.connect({ url: TEST_NATS_URL, name: 'test', log, prefix });
    counts = new RequestCountsPublisher(new RequestCounter(), bus, log);
    const store = new LocalObjectStore({
      root: path.join(data.dir, 'objects'),
      signingSecret: 'signing-secret-0123456789',
      publicUrl: 'http://localhost',
    });
    const probed = { identity: addr('identity'), billing: addr('billing'), telemetry: addr('telemetry') };
    app = await buildHttpApp({
      log,
      metrics: createMetrics('gateway'),
      webDist: data.dir,
      health: {
        report: async () => ({ status: 'healthy', services: {}, unavailable: [], instance: 't' }),
        detailed: async () => {
          const db = { ping: async () => undefined } as never;
          const [svc, storage, system, queue, summary] = await Promise.all([
            probeServices(probed, { db, version: '0.1.0' }, 2000, {}),
            probeStorage(store),
            systemResources(data.dir),
            renderQueue(bus),
            peers.telemetry.summary({ hours: 24 }),
          ]);
          return detailedHealth({ services: svc, storage, system, queue: { ...queue, deadLettered: Number(summary.deadLettered) } });
        },
      },
      peers,
      store,
      trustProxy: true,
      requestCounts: counts,
    });
    base = `${await listenLocal(app)}/api/v1`;
  }, 90_000);

  afterAll(async () => {
    await app?.close();
    peers?.close();
    for (const s of Object.values(services)) await s.stop();
    if (bus) {
      await bus.deleteStream(streams.EVENTS);
      await bus.deleteStream(streams.RENDER);
      await bus.close();
    }
    await smtp.close();
    for (const d of Object.values(dbs)) await d.drop();
    data.remove();
  });

  let sent = 0;
  let serverErrors = 0;
  let ip = 0;
  const call = async (method: string, route: string, body?: unknown, token?: string) => {
    const r = await fetch(`${base}${route}`, {
      method,
      headers: {
        ...(body ? { 'content-type': 'application/json' } : {}),
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        'x-forwarded-for': `10.7.0.${++ip % 250}`,
      },
      body: body ? JSON.stringify(body) : undefined,
    });
    sent++;
    if (r.status >= 500) serverErrors++;
    return { status: r.status, body: (await r.json().catch(() => null)) as never as Record<string, unknown> & unknown[] };
  };

  const signUp = async (email: string) => {
    expect((await call('POST', '/auth/register', { email, password: 'secret-pass' })).status).toBe(201);
    const mail = await waitFor(() => mails.find((m) => m.to === email && /verification code is (\d{6})/.test(m.raw)));
    const code = /verification code is (\d{6})/.exec(mail.raw)![1];
    const v = await call('POST', '/auth/verify-email', { email, code });
    expect(v.status).toBe(200);
    return v.body.session_token as string;
  };

  /** Every durable consumer of telemetry has nothing left to deliver or to ack. */
  const drained = async () => {
    const jsm = await bus.nc.jetstreamManager();
    for (const s of CONSUMED) {
      const info = await jsm.consumers.info(bus.streamName(streams.EVENTS), durableName(s)).catch(() => null);
      if (!info || info.num_pending > 0 || info.num_ack_pending > 0) return false;
    }
    return true;
  };

  it('reports the scripted traffic exactly, refuses non-admins, and counts replayed events once', async () => {
    const admin = await signUp(ADMIN);
    const alice = 'alice@reelsmith.test';
    const bob = 'bob@reelsmith.test';
    const aliceToken = await signUp(alice);
    await signUp(bob);
    expect((await call('POST', '/auth/login', { email: alice, password: 'secret-pass' })).status).toBe(200);
    expect((await call('POST', '/auth/login', { email: bob, password: 'secret-pass' })).status).toBe(200);
    expect((await call('POST', '/auth/login', { email: alice, password: 'wrong-pass' })).status).toBe(401);
    // The scripted error: media-library is down, so the library answers 503.
    expect((await call('GET', '/library', undefined, aliceToken)).status).toBe(503);

    // Non-admins get 403 on every admin route, anonymous callers 401.
    const adminRoutes = app.adminRoutes.filter((r) => r.method === 'GET').map((r) => r.url.replace('/api/v1', ''));
    expect(adminRoutes).toEqual(expect.arrayContaining(['/health/detailed', '/metrics', '/admin/activity-feed']));
    for (const r of adminRoutes) {
      expect((await call('GET', r, undefined, aliceToken)).status).toBe(403);
      expect((await call('GET', r)).status).toBe(401);
    }

    // A reel, as the orchestrator records it: submitted, started 5 s later, completed 42 s after that.
    const t0 = Date.now() - 60_000;
    const job = crypto.randomUUID();
    const aliceId = ((await call('GET', '/auth/me', undefined, aliceToken)).body.user as { id: string } | undefined)?.id ?? '';
    await bus.publish(
      'events.job.submitted',
      { jobId: job, userId: aliceId, submittedAtUnixMs: BigInt(t0) },
      { msgId: `job.submitted.${job}` },
    );
    await bus.publish(
      'events.job.started',
      { jobId: job, userId: aliceId, attempt: 1, startedAtUnixMs: BigInt(t0 + 5_000) },
      { msgId: `job.started.${job}.1` },
    );
    await bus.publish(
      'events.job.completed',
      { jobId: job, userId: aliceId, wallSeconds: 47, completedAtUnixMs: BigInt(t0 + 47_000), attempt: 1 },
      { msgId: `job.completed.${job}` },
    );
    // Payments through the gateway with the sandbox card, as the pricing page makes them: $40 taken
    // (a $20 pack twice); a declined $10 and an unconfirmed $80 take nothing. Revenue is the ledger's.
    const pay = async (itemId: string, cents: number, card?: string) => {
      const intent = await call('POST', '/payments/create-intent', { type: 'credits', item_id: itemId, amount: cents }, aliceToken);
      expect(intent.status).toBe(200);
      if (!card) return;
      const confirm = { payment_intent_id: intent.body.payment_intent_id, test_card: card, test_expiry: '12/34', test_cvc: '123' };
      return (await call('POST', '/payments/confirm', confirm, aliceToken)).status;
    };
    expect(await pay('credits_400', 2000, '4242424242424242')).toBe(200);
    expect(await pay('credits_400', 2000, '4242424242424242')).toBe(200);
    expect(await pay('credits_200', 1000, '4000000000000002')).not.toBe(200);
    await pay('credits_2500', 8000);

    // Everything answered so far goes out as this replica's request counts.
    const requests = sent;
    const errors = serverErrors;
    await counts.flush(true);

    const expected = {
      metrics_summary: { total_requests: requests, error_rate: Math.round((10_000 * errors) / requests) / 100 },
      user_analytics: { total_users: 3, new_users: 3, active_users: 3 },
      jobs: { submitted: 1, completed: 1, failed: 0, p50_render_s: 42, p95_render_s: 42, p95_queue_wait_s: 5 },
      // Three logins by verification, two by password; one refused.
      logins: { succeeded: 5, failed: 1 },
      revenue_usd: 40,
    };
    const metrics = await waitFor(
      async () => {
        const m = await call('GET', '/metrics', undefined, admin);
        return m.status === 200 &&
          (m.body as unknown as { metrics_summary: { total_requests: number } }).metrics_summary.total_requests === requests &&
          (await drained())
          ? m.body
          : null;
      },
      20_000,
      200,
    );
    expect(metrics).toMatchObject(expected);
    expect(errors).toBe(1);
    const hourly = (metrics as unknown as { hourly: { requests: number; errors: number; completed_reels: number }[] }).hourly;
    expect(hourly.reduce((a, h) => a + h.requests, 0)).toBe(requests);
    expect(hourly.reduce((a, h) => a + h.errors, 0)).toBe(1);
    expect(hourly.reduce((a, h) => a + h.completed_reels, 0)).toBe(1);

    const feed = await call('GET', '/admin/activity-feed?limit=100', undefined, admin);
    expect(feed.status).toBe(200);
    const events = feed.body as unknown as {
      type: string;
      user_email: string;
      login_type: string | null;
      actual_duration_seconds: number | null;
      timestamp: string;
    }[];
    expect(events.filter((e) => e.type === 'login')).toHaveLength(5);
    expect(
      events
        .filter((e) => e.type === 'login' && e.login_type === 'password')
        .map((e) => e.user_email)
        .sort(),
    ).toEqual([alice, bob]);
    expect(events.filter((e) => e.type === 'login_failed')).toEqual([expect.objectContaining({ user_email: alice })]);
    expect(events.filter((e) => e.type === 'project_completed')).toEqual([
      expect.objectContaining({ user_email: alice, actual_duration_seconds: 47 }),
    ]);
    const times = events.map((e) => Date.parse(e.timestamp));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    // Paged: the next page starts strictly before the last timestamp of this one.
    const page = await call('GET', '/admin/activity-feed?limit=2', undefined, admin);
    const next = await call(
      'GET',
      `/admin/activity-feed?limit=100&before=${encodeURIComponent((page.body as unknown as { timestamp: string }[])[1]!.timestamp)}`,
      undefined,
      admin,
    );
    expect((next.body as unknown as unknown[]).length).toBeGreaterThan(0);
    expect(
      (next.body as unknown as { timestamp: string }[]).every(
        (e) => Date.parse(e.timestamp) < Date.parse((page.body as unknown as { timestamp: string }[])[1]!.timestamp),
      ),
    ).toBe(true);

    const health = await call('GET', '/health/detailed', undefined, admin);
    expect(health.status).toBe(200);
    expect(health.body).toMatchObject({
      checks: {
        database: { status: expect.stringMatching(/healthy|warning/) },
        s3_storage: { status: expect.stringMatching(/healthy|warning/) },
      },
      queue: { pending: 0, in_progress: 0, dead_lettered: 0 },
    });
    expect((health.body as unknown as { services: { name: string; status: string }[] }).services.map((s) => [s.name, s.status])).toEqual([
      ['gateway', 'healthy'],
      ['identity', 'healthy'],
      ['billing', 'healthy'],
      ['telemetry', 'healthy'],
    ]);

    // Replay: telemetry restarts with its consumers deleted, so every event is delivered again.
    const port = services.telemetry!.grpcPort;
    await services.telemetry!.stop();
    const jsm = await bus.nc.jetstreamManager();
    for (const s of CONSUMED) await jsm.consumers.delete(bus.streamName(streams.EVENTS), durableName(s)).catch(() => undefined);
    await startTelemetry(port);
    await waitFor(drained, 20_000, 200);
    // The gateway's channel reconnects to the restarted service within its backoff.
    const again = await waitFor(
      async () => {
        const m = await call('GET', '/metrics', undefined, admin);
        return m.status === 200 ? m.body : null;
      },
      20_000,
      250,
    );
    expect(again).toMatchObject(expected);
    const feedAgain = await call('GET', '/admin/activity-feed?limit=100', undefined, admin);
    expect((feedAgain.body as unknown as unknown[]).length).toBe(events.length);
    // RED metrics of telemetry's NATS handlers: the restarted process acked each login once more.
    const prom = await (await fetch(`http://127.0.0.1:${services.telemetry!.opsPort}/metrics`)).text();
    expect(prom).toMatch(/nats_handler_seconds_count\{service="telemetry",subject="events\.identity\.user_logged_in",outcome="ack"\} 5\n/);
  });
});
