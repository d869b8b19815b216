import { health, testing } from '@reelsmith/proto';
import { DomainError, ErrorCode } from '../../src/errors';
import { bind, dial, serveGrpc, useInternalToken, withDeadline, type RunningGrpcServer } from '../../src/grpc';
import { HealthMonitor, checkRemoteHealth } from '../../src/health';
import { createMetrics } from '../../src/metrics';
import { quietLogger } from '../../src/testing';

describe('gRPC over grpc-js with protobuf-es messages', () => {
  let server: RunningGrpcServer;
  let mode: 'ok' | 'domain' | 'bug' | 'slow' = 'ok';
  let dbUp = true;
  const metrics = createMetrics('test');
  const monitor = new HealthMonitor({
    checks: [
      {
        name: 'database',
        check: async () =>
          void (
            dbUp ||
            (() => {
              throw new Error('down');
            })()
          ),
      },
    ],
    cacheMs: 0,
  });

  beforeAll(async () => {
    server = await serveGrpc({
      host: '127.0.0.1',
      port: 0,
      log: quietLogger(),
      metrics,
      serviceName: 'test',
      services: [
        monitor.binding(),
        bind(testing.EchoService, {
          echo: async (req, ctx) => {
            if (mode === 'domain')
              throw new DomainError(ErrorCode.RESOURCE_EXHAUSTED, 'Insufficient credits or daily limit reached', 'insufficient_credits');
            if (mode === 'bug') throw new Error('secret internal detail');
            if (mode === 'slow') await new Promise((r) => setTimeout(r, 1500));
            return { text: req.text, requestId: ctx.metadata.get('x-request-id')[0]?.toString() ?? '', big: 42n };
          },
        }),
      ],
    });
  });
  afterAll(() => server.close());
  beforeEach(() => {
    mode = 'ok';
    dbUp = true;
  });

  const client = () => dial(testing.EchoService, `127.0.0.1:${server.port}`, { deadlineMs: 1000 });

  it('round-trips typed messages, metadata and 64-bit integers', async () => {
    const c = client();
    const res = await c.echo({ text: 'héllo ✓' }, { requestId: 'req-1' });
    expect(res.text).toBe('héllo ✓');
    expect(res.requestId).toBe('req-1');
    expect(res.big).toBe(42n);
    c.close();
  });

  it('maps a domain error to its gRPC status and back, keeping message and reason', async () => {
    mode = 'domain';
    const c = client();
    await expect(c.echo({})).rejects.toMatchObject({
      code: 'RESOURCE_EXHAUSTED',
      message: 'Insufficient credits or daily limit reached',
      reason: 'insufficient_credits',
    });
    c.close();
  });

  it('hides the text of unexpected errors behind INTERNAL', async () => {
    mode = 'bug';
    const c = client();
    const err = await c.echo({}).catch((e: DomainError) => e);
    expect(err).toMatchObject({ code: 'INTERNAL', message: 'internal error' });
    c.close();
  });

  it('enforces the deadline on every call', async () => {
    mode = 'slow';
    const c = client();
    const started = Date.now();
    await expect(c.echo({}, { deadlineMs: 200 })).rejects.toMatchObject({ code: 'DEADLINE_EXCEEDED' });
    expect(Date.now() - started).toBeLessThan(1200);
    c.close();
  });

  it('reports SERVING only while dependencies answer, and NOT_SERVING when draining', async () => {
    const addr = `127.0.0.1:${server.port}`;
    expect(await checkRemoteHealth(addr)).toBe('SERVING');
    dbUp = false;
    expect(await checkRemoteHealth(addr)).toBe('NOT_SERVING');
    const c = dial(health.Health, addr, { deadlineMs: 1000 });
    const res = await c.check({ service: '' });
    expect(res.status).toBe(health.HealthCheckResponse_ServingStatus.NOT_SERVING);
    c.close();
  });

  it('reports an unreachable service as NOT_SERVING', async () => {
    expect(await checkRemoteHealth('127.0.0.1:1', 500)).toBe('NOT_SERVING');
  });

  it('records call durations in a histogram', async () => {
    const text = await metrics.registry.metrics();
    expect(text).toMatch(/grpc_server_handling_seconds_count\{[^}]*method="Echo"[^}]*code="OK"[^}]*\} [1-9]/);
  });
});

describe('service-to-service authentication', () => {
  let server: RunningGrpcServer;
  const token = 'internal-token-0123456789';
  beforeAll(async () => {
    server = await serveGrpc({
      host: '127.0.0.1',
      port: 0,
      log: quietLogger(),
      serviceName: 'test',
      internalToken: token,
      services: [
        new HealthMonitor({ checks: [], cacheMs: 0 }).binding(),
        bind(testing.EchoService, { echo: async (req) => ({ text: req.text, requestId: '', big: 0n }) }),
      ],
    });
  });
  afterAll(async () => {
    useInternalToken(undefined);
    await server.close();
  });

  it('refuses a caller without the token, or with another, and serves one that has it', async () => {
    const c = dial(testing.EchoService, `127.0.0.1:${server.port}`, { deadlineMs: 2000 });
    try {
      useInternalToken(undefined);
      await expect(c.echo({ text: 'grant me credits' })).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
      useInternalToken('internal-token-guessed-wrong');
      await expect(c.echo({ text: 'grant me credits' })).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
      useInternalToken(token);
      expect((await c.echo({ text: 'hello' })).text).toBe('hello');
    } finally {
      c.close();
    }
  });

  it('leaves the standard health service open to probes', async () => {
    useInternalToken(undefined);
    expect(await checkRemoteHealth(`127.0.0.1:${server.port}`, 2000)).toBe('SERVING');
  });
});

describe('no work for callers who left', () => {
  let server: RunningGrpcServer;
  let reached: string[] = [];
  let seenDeadline = 0;
  const busyWait = (ms: number) => {
    const end = Date.now() + ms;
    while (Date.now() < end) {
      /* the process is too busy to serve anything else */
    }
  };
  beforeAll(async () => {
    server = await serveGrpc({
      host: '127.0.0.1',
      port: 0,
      log: quietLogger(),
      serviceName: 'test',
      services: [
        bind(testing.EchoService, {
          echo: async (req, ctx) => {
            seenDeadline = ctx.deadline;
            reached.push(req.text); // stands for the repository: the work a caller pays for
            if (req.text === 'busy') busyWait(400);
            return { text: req.text, requestId: '', big: 0n };
          },
        }),
      ],
    });
  });
  afterAll(() => server.close());
  beforeEach(() => {
    reached = [];
  });

  /** While a 'busy' call holds the service, `late` fails with DEADLINE_EXCEEDED and its handler never runs. */
  const expectOnlyBusyRuns = async (c: { echo(m: { text: string }): Promise<unknown> }, late: () => Promise<unknown>) => {
    const busy = c.echo({ text: 'busy' });
    await expect(late()).rejects.toMatchObject({ code: 'DEADLINE_EXCEEDED' });
    await busy;
    await new Promise((r) => setTimeout(r, 50));
    expect(reached).toEqual(['busy']);
  };

  it('does not run the handler of a call whose deadline passed while the service was busy', async () => {
    const c = dial(testing.EchoService, `127.0.0.1:${server.port}`, { deadlineMs: 5000 });
    try {
      await expectOnlyBusyRuns(c, () => c.echo({ text: 'late' }, { deadlineMs: 100 }));
    } finally {
      c.close();
    }
  });

  it('passes on the deadline of the work a call is part of, and the late call does no work', async () => {
    const c = dial(testing.EchoService, `127.0.0.1:${server.port}`, { deadlineMs: 5000 });
    try {
      // The caller's own request has 50 ms left: the call inherits that, not the client's 5 s.
      await expectOnlyBusyRuns(c, () => withDeadline(Date.now() + 50, () => c.echo({ text: 'inherited' })));
    } finally {
      c.close();
    }
  });

  it('hands the handler the deadline its caller set', async () => {
    const c = dial(testing.EchoService, `127.0.0.1:${server.port}`, { deadlineMs: 5000 });
    try {
      const before = Date.now();
      await c.echo({ text: 'x' }, { deadlineMs: 3000 });
      expect(seenDeadline).toBeGreaterThan(before + 2000);
      expect(seenDeadline).toBeLessThan(before + 3500);
    } finally {
      c.close();
    }
  });
});
