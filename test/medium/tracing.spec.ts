// One trace for a job: the browser's request at the gateway, the gRPC call it makes, the work
// message the orchestrator queues (through its outbox, published later by the relay) and the
// render worker that picks it up; log lines written inside carry the trace id.
import crypto from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { fromBinary } from '@bufbuild/protobuf';
import {
  Bus,
  bind,
  createMetrics,
  currentTraceId,
  dial,
  migrate,
  OutboxRelay,
  openDatabase,
  outboxMigration,
  readMigrations,
  serveGrpc,
  startTracing,
  type Database,
  type RunningGrpcServer,
} from '@reelsmith/kit';
import {
  TEST_NATS_URL,
  capturingLogger,
  createTestDatabase,
  natsPrefix,
  quietLogger,
  waitFor,
  type TestDatabase,
} from '@reelsmith/kit/testing';
import { assemblyEvents, streams, testing } from '@reelsmith/proto';
import { DrizzleJobsRepository } from '../../services/assembly-orchestrator/src/repositories/jobs.repository';
import { queuedJob } from '../../services/assembly-orchestrator/test/queued-job';
import type { RenderJobService } from '../../services/render-worker/src/domain/render-job.service';
import { RenderJobsConsumer } from '../../services/render-worker/src/transport/jobs.consumer';
import { buildHttpApp } from '../../services/gateway/src/transport/http/server';
import { migrationsOf } from '../support/in-process';

describe('one trace from the gateway through gRPC and NATS to the render worker', () => {
  let tdb: TestDatabase;
  let db: Database;
  let bus: Bus;
  let grpcServer: RunningGrpcServer;
  const { log, lines } = capturingLogger('test');

  beforeAll(async () => {
    startTracing('test');
    tdb = await createTestDatabase('trace');
    db = await openDatabase({ url: tdb.url, pgliteDir: '' });
    await migrate(db, [outboxMigration(), ...readMigrations(migrationsOf('assembly-orchestrator'))]);
    bus = await Bus.connect({ url: TEST_NATS_URL, name: 'trace', log: quietLogger(), prefix: natsPrefix() });
    await bus.ensureDeclaredStreams();
  });
  afterAll(async () => {
    await grpcServer?.close();
    await bus.deleteStream(streams.EVENTS);
    await bus.deleteStream(streams.RENDER);
    await bus.close();
    await db.close();
    await tdb.drop();
  });

  it('keeps the caller’s trace id from the HTTP request to the render', async () => {
    const repo = new DrizzleJobsRepository(db.orm);
    const seen: Record<string, string | undefined> = {};
    // The orchestrator's part: a gRPC call that records a queued job (work message in the outbox).
    grpcServer = await serveGrpc({
      host: '127.0.0.1',
      port: 0,
      log: quietLogger(),
      serviceName: 'orchestrator',
      services: [
        bind(testing.EchoService, {
          echo: async (req) => {
            seen.grpc = currentTraceId();
            await repo.insertQueued(queuedJob({ id: req.text, estimateCredits: 10 }));
            return { text: req.text };
          },
        }),
      ],
    });
    const echo = dial(testing.EchoService, `127.0.0.1:${grpcServer.port}`, { deadlineMs: 5000 });

    // The gateway's part: a POST route (its body is read on the socket's own context) that calls it.
    const app = await buildHttpApp({
      log,
      metrics: createMetrics('gateway'),
      webDist: '/nonexistent',
      health: { report: async () => ({ status: 'healthy', services: {}, unavailable: [], instance: 't' }) },
    });
    app.post('/api/v1/trace-test', async (req) => {
      seen.handler = currentTraceId();
      req.log.info('submitting');
      const r = await echo.echo({ text: (req.body as { job: string }).job });
      return { job: r.text };
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const job = crypto.randomUUID();
    const traceId = crypto.randomBytes(16).toString('hex');
    const res = await fetch(`http://127.0.0.1:${(app.server.address() as AddressInfo).port}/api/v1/trace-test`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', traceparent: `00-${traceId}-${crypto.randomBytes(8).toString('hex')}-01` },
      body: JSON.stringify({ job }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-trace-id')).toBe(traceId);
    expect(seen.handler).toBe(traceId);
    expect(seen.grpc).toBe(traceId);
    expect(lines.map((l) => JSON.parse(l) as { msg?: string; trace_id?: string }).find((l) => l.msg === 'submitting')?.trace_id).toBe(
      traceId,
    );
    await app.close();
    echo.close();

    // The work message carries the trace although the relay publishes it later, outside the request.
    const [row] = await db.query<{ payload: string }>(`select payload from outbox where subject = 'render.jobs' and msg_id = $1`, [
      `render.${job}`,
    ]);
    expect(fromBinary(assemblyEvents.RenderJobSchema, Buffer.from(row!.payload, 'base64')).traceparent).toContain(traceId);
    const relay = new OutboxRelay(db.orm, bus, quietLogger());
    await relay.flush();

    // The render worker's part: its render runs inside the same trace.
    const jobs = {
      run: async () => {
        seen.render = currentTraceId();
        return { kind: 'done' };
      },
      giveUp: async () => undefined,
    } as unknown as RenderJobService;
    const consumer = new RenderJobsConsumer(bus, jobs, { ackWaitMs: 5000, maxDeliver: 3, concurrency: 1 });
    await consumer.start();
    await waitFor(() => seen.render, 10_000);
    await consumer.stop();
    expect(seen.render).toBe(traceId);
  });
});
