import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { Bus, migrate, openDatabase, outboxMigration, readMigrations, type Database, type RunningConsumer } from '@reelsmith/kit';
import { TEST_NATS_URL, createTestDatabase, natsPrefix, quietLogger, waitFor, type TestDatabase } from '@reelsmith/kit/testing';
import { streams } from '@reelsmith/proto';
import { verifySignature } from '../../src/domain/webhooks/signature';
import { WebhooksService } from '../../src/domain/webhooks/webhooks.service';
import { httpWebhookSender } from '../../src/repositories/webhook-sender';
import { DbWebhookRepository } from '../../src/repositories/webhooks.repository';
import { busDeliveryQueue, startWebhookConsumers } from '../../src/transport/webhook-events';

/** A local receiver whose answers the test scripts; it records each request with its raw body. */
async function receiver() {
  const got: Array<{ headers: http.IncomingHttpHeaders; body: string; status: number }> = [];
  const script: number[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const status = script.shift() ?? 200;
      got.push({ headers: req.headers, body, status });
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, got, script, close: () => server.close() };
}

/**
 * Webhooks end to end inside the orchestrator: a job fact on the EVENTS stream becomes a signed
 * delivery on the WEBHOOKS work queue, tried again with back-off on failures, on real PostgreSQL,
 * NATS JetStream and HTTP; a restart in the middle of the back-off loses nothing.
 */
describe('webhook deliveries through JetStream', () => {
  let pg: TestDatabase;
  let db: Database;
  let bus: Bus;
  let svc: WebhooksService;
  let consumers: RunningConsumer[] = [];
  const owner = crypto.randomUUID();

  const start = async () => (consumers = await startWebhookConsumers(bus, svc, quietLogger()));
  const stop = async () => {
    await Promise.all(consumers.map((c) => c.stop()));
    consumers = [];
  };
  const completed = (jobId: string) =>
    bus.publish(
      'events.job.completed',
      { jobId, userId: owner, outputKey: 'reels/x.mp4', durationSeconds: 12, completedAtUnixMs: BigInt(Date.now()), sizeBytes: 999n },
      { msgId: `completed:${jobId}` },
    );

  beforeAll(async () => {
    pg = await createTestDatabase('webhooks');
    db = await openDatabase({ url: pg.url, pgliteDir: '', poolSize: 4 });
    await migrate(db, [outboxMigration(), ...readMigrations(path.join(__dirname, '..', '..', 'migrations'))]);
    bus = await Bus.connect({ url: TEST_NATS_URL, name: 'webhooks-test', log: quietLogger(), prefix: natsPrefix() });
    await bus.ensureStream(streams.EVENTS);
    await bus.ensureStream(streams.WEBHOOKS);
    svc = new WebhooksService(
      new DbWebhookRepository(db),
      httpWebhookSender({ allowPrivate: true, timeoutMs: 2000 }),
      busDeliveryQueue(bus),
      {
        allowPrivate: true,
        publicUrl: 'http://localhost:8080',
        backoff: { firstMs: 400, maxMs: 2000 },
      },
    );
    await start();
  });
  afterAll(async () => {
    await stop();
    await bus?.deleteStream(streams.EVENTS);
    await bus?.deleteStream(streams.WEBHOOKS);
    await bus?.close();
    await db?.close();
    await pg?.drop();
  });

  it('a receiver answering 500 twice, then 200, gets the signed event on the third try, with back-off between', async () => {
    const r = await receiver();
    try {
      const { secret } = await svc.createEndpoint(owner, r.url, ['job.completed']);
      r.script.push(500, 500);
      const jobId = crypto.randomUUID();
      await completed(jobId);
      await waitFor(async () => r.got.length >= 3, 15_000, 50);
      await new Promise((res) => setTimeout(res, 600)); // no fourth try
      expect(r.got.map((g) => g.status)).toEqual([500, 500, 200]);
      const last = r.got[2]!;
      expect(verifySignature(secret, last.headers['reelsmith-signature'] as string, last.body)).toBe(true);
      expect(JSON.parse(last.body)).toMatchObject({ type: 'job.completed', data: { job_id: jobId, reel_id: jobId } });
      expect(new Set(r.got.map((g) => g.headers['reelsmith-event-id'])).size).toBe(1);
      const [d] = await svc.listDeliveries(owner, 1);
      expect(d).toMatchObject({ status: 'delivered', attempts: 3, lastStatusCode: 200, eventType: 'job.completed', jobId });
    } finally {
      r.close();
    }
  });

  it('an endpoint that never answers 2xx is logged with its last status; a resend delivers it', async () => {
    const r = await receiver();
    try {
      const { endpoint } = await svc.createEndpoint(owner, r.url, ['job.completed']);
      const d = await svc.sendTest(owner, endpoint.id);
      r.script.push(404);
      await waitFor(async () => (await new DbWebhookRepository(db).delivery(d.id))?.attempts === 1, 5000, 50);
      expect(await new DbWebhookRepository(db).delivery(d.id)).toMatchObject({ status: 'pending', lastStatusCode: 404 });
      await svc.resend(owner, d.id);
      await waitFor(async () => (await new DbWebhookRepository(db).delivery(d.id))?.status === 'delivered', 5000, 50);
      await svc.deleteEndpoint(owner, endpoint.id);
    } finally {
      r.close();
    }
  });

  it('a restart during the back-off loses no delivery', async () => {
    const r = await receiver();
    try {
      const other = crypto.randomUUID();
      const { secret } = await svc.createEndpoint(other, r.url, ['job.failed']);
      r.script.push(503);
      const jobId = crypto.randomUUID();
      await bus.publish(
        'events.job.failed',
        { jobId, userId: other, reason: 'bad clip', failedAtUnixMs: BigInt(Date.now()) },
        { msgId: `failed:${jobId}` },
      );
      await waitFor(async () => r.got.length === 1, 5000, 50);
      await stop(); // the process stops while the delivery waits for its next try
      await new Promise((res) => setTimeout(res, 800));
      expect(r.got).toHaveLength(1);
      await start();
      await waitFor(async () => r.got.length === 2, 10_000, 50);
      expect(r.got[1]!.status).toBe(200);
      expect(verifySignature(secret, r.got[1]!.headers['reelsmith-signature'] as string, r.got[1]!.body)).toBe(true);
      expect(JSON.parse(r.got[1]!.body).data).toEqual({ job_id: jobId, reason: 'bad clip' });
    } finally {
      r.close();
    }
  });

  it('the SSRF guard refuses a host that resolves to a private address when private addresses are not allowed', async () => {
    const strict = httpWebhookSender({ allowPrivate: false, timeoutMs: 2000 });
    const r = await receiver();
    try {
      const port = new URL(r.url).port;
      expect(await strict.post(`http://localhost:${port}/hook`, {}, '{}')).toEqual({ error: expect.stringMatching(/private address/) });
      expect(r.got).toHaveLength(0);
    } finally {
      r.close();
    }
  });
});
