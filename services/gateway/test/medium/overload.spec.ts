import crypto from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { io as connect } from 'socket.io-client';
import { Bus, DomainError, ErrorCode, bind, createMetrics, serveGrpc, type RunningGrpcServer } from '@reelsmith/kit';
import { TEST_NATS_URL, natsPrefix, quietLogger, waitFor } from '@reelsmith/kit/testing';
import { create, toBinary } from '@bufbuild/protobuf';
import { billing, identity, subjects } from '@reelsmith/proto';
import { SessionVerifier, tokenHash } from '../../src/domain/sessions';
import { admitted, dialPeers, type Peers } from '../../src/repositories/clients';
import { gatewayMetrics } from '../../src/repositories/gateway-metrics';
import { followRevocations, verifyWithIdentity } from '../../src/repositories/sessions';
import { ShortCache } from '../../src/domain/short-cache';
import { followBillingFacts } from '../../src/repositories/billing-facts';
import type { UserBody } from '../../src/transport/http/schemas';
import { buildHttpApp } from '../../src/transport/http/server';
import { mountSocket } from '../../src/transport/socket';

const UNAVAILABLE = { detail: 'Service temporarily unavailable, please retry', code: 'unavailable' };
/** The given handlers, and UNIMPLEMENTED for the rest of the service's methods. */
const complete = (service: { methods: Array<{ localName: string }> }, impl: Record<string, unknown>) =>
  Object.fromEntries(
    service.methods.map((m) => [
      m.localName,
      impl[m.localName] ??
        (async () => {
          throw new DomainError(ErrorCode.INTERNAL, 'not in this fake');
        }),
    ]),
  );
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Identity and billing as real gRPC servers the test can make slow; identity publishes
 * sessions.revoked on logout, as the real one does.
 */
async function fakeServices(bus?: Bus) {
  const sessions = new Map<string, string>();
  const state = { delayMs: 0, authenticateCalls: 0, credits: 0n, accountCalls: 0 };
  const user = (id: string) => ({ id, email: `${id}@example.com`, emailVerified: true });
  const identityImpl = {
    authenticate: async ({ sessionToken }: { sessionToken: string }) => {
      state.authenticateCalls++;
      if (state.delayMs) await sleep(state.delayMs);
      const id = sessions.get(sessionToken);
      if (!id) throw new DomainError(ErrorCode.UNAUTHENTICATED, 'Your session has expired. Please sign in again.', 'session_expired');
      return { user: user(id) };
    },
    getUser: async ({ userId }: { userId: string }) => ({ user: user(userId) }),
    logout: async ({ sessionToken }: { sessionToken: string }) => {
      sessions.delete(sessionToken);
      bus?.publishCore('sessionsRevoked', { tokenHashes: [tokenHash(sessionToken)], atUnixMs: BigInt(Date.now()) });
      return {};
    },
  };
  const servers: RunningGrpcServer[] = [];
  for (const [service, impl] of [
    [identity.IdentityService, identityImpl],
    [
      billing.BillingService,
      {
        getAccount: async () => {
          state.accountCalls++;
          return { account: { credits: state.credits } };
        },
      },
    ],
  ] as const)
    servers.push(
      await serveGrpc({
        host: '127.0.0.1',
        port: 0,
        log: quietLogger(),
        serviceName: 'fake',
        services: [bind(service as never, complete(service, impl) as never)],
      }),
    );
  return {
    state,
    addresses: { identity: `127.0.0.1:${servers[0]!.port}`, billing: `127.0.0.1:${servers[1]!.port}` },
    signIn: () => {
      const token = crypto.randomBytes(16).toString('hex');
      sessions.set(token, crypto.randomUUID());
      return token;
    },
    close: () => Promise.all(servers.map((s) => s.close())),
  };
}

interface Gateway {
  base: string;
  app: FastifyInstance;
  peers: Peers;
  sessions: SessionVerifier;
  metrics: ReturnType<typeof createMetrics>;
}

async function gateway(
  addresses: Record<string, string>,
  opts: {
    deadlineMs: number;
    identity?: { maxInFlight: number; maxQueue: number; maxWaitMs: number };
    bus?: Bus;
    accounts?: ShortCache<UserBody>;
  },
): Promise<Gateway> {
  const metrics = createMetrics(`gw_${crypto.randomBytes(3).toString('hex')}`);
  const observers = gatewayMetrics(metrics);
  const peers = admitted(
    dialPeers({ 'media-library': '127.0.0.1:1', 'assembly-orchestrator': '127.0.0.1:1', ...addresses }, opts.deadlineMs, metrics),
    {
      identity: opts.identity ?? { maxInFlight: 64, maxQueue: 256, maxWaitMs: 5000 },
      others: { maxInFlight: 64, maxQueue: 256, maxWaitMs: 5000 },
    },
    observers,
  );
  const sessions = new SessionVerifier(verifyWithIdentity(peers), { maxEntries: 1000, ttlMs: 60_000 }, observers);
  const app = await buildHttpApp({
    log: quietLogger(),
    metrics,
    webDist: '/nonexistent',
    health: { report: async () => ({ status: 'healthy', services: {}, unavailable: [], instance: 'x' }) },
    peers,
    sessions,
    accounts: opts.accounts,
  });
  mountSocket(app.server, { log: quietLogger(), allowedOrigins: [], peers, sessions });
  if (opts.bus) followRevocations(opts.bus, sessions, quietLogger());
  if (opts.bus && opts.accounts) {
    const accounts = opts.accounts;
    followBillingFacts(opts.bus, (userId) => (userId ? accounts.invalidate(userId) : accounts.clear()));
  }
  await app.listen({ port: 0, host: '127.0.0.1' });
  return { base: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`, app, peers, sessions, metrics };
}

const me = (g: Gateway, token: string) => fetch(`${g.base}/api/v1/auth/me`, { headers: { authorization: `Bearer ${token}` } });

/** How a socket handshake with `token` ends: 'connected', or the connect_error's message and data. */
function handshake(g: Gateway, token: string): Promise<{ outcome: string; data?: { retry_after_ms?: number } }> {
  const s = connect(g.base, { path: '/ws', transports: ['websocket'], auth: { token }, reconnection: false, forceNew: true });
  return new Promise((resolve) => {
    s.on('connect', () => {
      s.close();
      resolve({ outcome: 'connected' });
    });
    s.on('connect_error', (e: Error & { data?: { retry_after_ms?: number } }) => {
      s.close();
      resolve({ outcome: e.message, data: e.data });
    });
  });
}

describe('gateway under overload: slow down or shed, never lie about auth', () => {
  let fake: Awaited<ReturnType<typeof fakeServices>>;
  let g: Gateway;
  beforeAll(async () => {
    fake = await fakeServices();
    g = await gateway(fake.addresses, { deadlineMs: 400 });
  });
  afterAll(async () => {
    await g.app.close();
    g.peers.close();
    await fake.close();
  });
  beforeEach(() => {
    fake.state.delayMs = 0;
    fake.state.authenticateCalls = 0;
  });

  it('identity slow: REST answers 503 + Retry-After and the socket "busy", never 401/unauthorized; both succeed once identity answers', async () => {
    const token = fake.signIn();
    fake.state.delayMs = 1000; // longer than the 400 ms deadline
    const res = await me(g, token);
    expect(res.status).toBe(503);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await res.json()).toEqual(UNAVAILABLE);
    const socket = await handshake(g, token);
    expect(socket.outcome).toBe('busy');
    expect(socket.data?.retry_after_ms).toBeGreaterThan(0);

    fake.state.delayMs = 0;
    expect((await me(g, token)).status).toBe(200);
    expect((await handshake(g, token)).outcome).toBe('connected');
    // A token identity refuses is still refused as such.
    expect((await me(g, 'not-a-session')).status).toBe(401);
    expect((await handshake(g, 'not-a-session')).outcome).toBe('unauthorized');
  });

  it('identity unreachable: the same retryable answers', async () => {
    const down = await gateway({ identity: '127.0.0.1:1', billing: fake.addresses.billing }, { deadlineMs: 400 });
    try {
      const res = await me(down, fake.signIn());
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBeTruthy();
      expect((await handshake(down, fake.signIn())).outcome).toBe('busy');
    } finally {
      await down.app.close();
      down.peers.close();
    }
  });

  it('single-flight: 50 concurrent handshakes of one token reach identity once, and all join', async () => {
    const token = fake.signIn();
    fake.state.delayMs = 150;
    const outcomes = await Promise.all(Array.from({ length: 50 }, () => handshake(g, token)));
    expect(outcomes.every((o) => o.outcome === 'connected')).toBe(true);
    expect(fake.state.authenticateCalls).toBe(1);
    // Cached afterwards: no further call.
    expect((await me(g, token)).status).toBe(200);
    expect(fake.state.authenticateCalls).toBe(1);
  });

  it('admission: beyond the in-flight limit and its queue, requests are shed at once with 503 + Retry-After', async () => {
    const small = await gateway(fake.addresses, { deadlineMs: 5000, identity: { maxInFlight: 2, maxQueue: 2, maxWaitMs: 5000 } });
    try {
      fake.state.delayMs = 800;
      const started = Date.now();
      const timed = await Promise.all(
        Array.from({ length: 12 }, async () => {
          const res = await me(small, fake.signIn()); // distinct users: no single-flight
          return { status: res.status, retryAfter: res.headers.get('retry-after'), ms: Date.now() - started };
        }),
      );
      const shed = timed.filter((t) => t.status === 503);
      expect(timed.filter((t) => t.status === 401)).toEqual([]);
      expect(shed.length).toBeGreaterThanOrEqual(8);
      const served = timed.filter((t) => t.status === 200);
      expect(served.length).toBeGreaterThanOrEqual(2);
      // At once: every shed request is answered before the first admitted one (identity takes
      // 800 ms), not after waiting for a slot or a deadline. (A wall-clock bound failed under load.)
      const firstServed = Math.min(...served.map((t) => t.ms));
      expect(firstServed).toBeGreaterThanOrEqual(fake.state.delayMs);
      for (const t of shed) {
        expect(t.retryAfter).toBeTruthy();
        expect(t.ms).toBeLessThan(firstServed);
      }
      const text = await small.metrics.registry.metrics();
      expect(text).toMatch(/gateway_shed_total\{[^}]*gate="identity"[^}]*\} ([89]|1\d)/);
      expect(text).toMatch(/gateway_admission_queue_depth/);
      expect(text).toMatch(/gateway_session_verification_seconds_count\{[^}]*outcome="valid"/);
    } finally {
      await small.app.close();
      small.peers.close();
    }
  });
});

describe('session revocation across gateway replicas', () => {
  const prefix = natsPrefix();
  let buses: Bus[];
  let fake: Awaited<ReturnType<typeof fakeServices>>;
  let a: Gateway;
  let b: Gateway;
  beforeAll(async () => {
    buses = await Promise.all(
      ['identity', 'gw-a', 'gw-b'].map((name) => Bus.connect({ url: TEST_NATS_URL, name, log: quietLogger(), prefix })),
    );
    fake = await fakeServices(buses[0]);
    a = await gateway(fake.addresses, { deadlineMs: 2000, bus: buses[1], accounts: new ShortCache<UserBody>(60_000) });
    b = await gateway(fake.addresses, { deadlineMs: 2000, bus: buses[2] });
    await Promise.all(buses.map((x) => x.flush()));
  });
  afterAll(async () => {
    for (const g of [a, b]) {
      await g.app.close();
      g.peers.close();
    }
    await fake.close();
    await Promise.all(buses.map((x) => x.close()));
  });

  it('logout on one replica: the token, cached on the other, is refused there within 1 s', async () => {
    const token = fake.signIn();
    expect((await me(a, token)).status).toBe(200);
    expect((await me(b, token)).status).toBe(200); // now cached on b
    const calls = fake.state.authenticateCalls;
    expect((await me(b, token)).status).toBe(200);
    expect(fake.state.authenticateCalls).toBe(calls); // served from b's cache

    const out = await fetch(`${a.base}/api/v1/auth/logout`, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
    expect(out.status).toBe(200);
    const loggedOutAt = Date.now();
    await waitFor(async () => (await me(b, token)).status === 401, 1000, 20);
    expect(Date.now() - loggedOutAt).toBeLessThan(1000);
    expect((await me(a, token)).status).toBe(401);
  });

  it("GET /auth/me reuses billing's answer briefly; a billing fact about the user ends it at once", async () => {
    const token = fake.signIn();
    fake.state.credits = 100n;
    const credits = async () => ((await (await me(a, token)).json()) as { user: { credits: number } }).user.credits;
    expect(await credits()).toBe(100);
    const calls = fake.state.accountCalls;
    fake.state.credits = 400n;
    expect(await credits()).toBe(100); // reused
    expect(fake.state.accountCalls).toBe(calls);
    const userId = ((await (await me(a, token)).json()) as { user: { id: string } }).user.id;
    // As billing's outbox publishes a grant (a purchase).
    const schema = subjects['events.billing.granted'];
    buses[0]!.nc.publish(
      buses[0]!.subject('events.billing.granted'),
      toBinary(schema, create(schema, { userId, credits: 300n, reason: 'credits_300', idempotencyKey: 'k' })),
    );
    await waitFor(async () => (await credits()) === 400, 1000, 20);
  });
});
