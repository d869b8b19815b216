import crypto from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import os from 'node:os';
import path from 'node:path';
import {
  Bus,
  DomainError,
  ErrorCode,
  LocalObjectStore,
  bind,
  createLogger,
  createMetrics,
  serveGrpc,
  type RunningGrpcServer,
} from '@reelsmith/kit';
import { TEST_NATS_URL, natsPrefix, quietLogger, waitFor } from '@reelsmith/kit/testing';
import { billing, identity } from '@reelsmith/proto';
import { NO_API_ACCESS_DETAIL } from '../../src/domain/api-access';
import { SessionVerifier, tokenHash } from '../../src/domain/sessions';
import { admitted, dialPeers, type Peers } from '../../src/repositories/clients';
import { followRevocations, verifyWithIdentity } from '../../src/repositories/sessions';
import { buildHttpApp } from '../../src/transport/http/server';

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

/** Identity with sessions and API keys in memory (revoking publishes sessions.revoked as the real one does); billing with plans. */
async function fakeServices(bus: Bus) {
  const sessions = new Map<string, string>();
  const keys = new Map<string, { id: string; userId: string; name: string; scopes: string[]; revoked: boolean }>();
  const plans = new Map<string, string>();
  const state = { keyAuthCalls: 0, publishRevocations: true };
  const user = (id: string) => ({ id, email: `${id}@example.com`, emailVerified: true });
  const view = (k: { id: string; name: string; scopes: string[] }) => ({
    id: k.id,
    name: k.name,
    prefix: 'rs_live_xxxxxx',
    scopes: k.scopes,
  });
  const identityImpl = {
    authenticate: async ({ sessionToken }: { sessionToken: string }) => {
      const id = sessions.get(sessionToken);
      if (!id) throw new DomainError(ErrorCode.UNAUTHENTICATED, 'expired', 'session_expired');
      return { user: user(id) };
    },
    createApiKey: async (r: { userId: string; name: string; scopes: string[] }) => {
      const secret = `rs_live_${crypto.randomBytes(32).toString('base64url')}`;
      const k = { id: crypto.randomUUID(), userId: r.userId, name: r.name, scopes: r.scopes, revoked: false };
      keys.set(secret, k);
      return { key: view(k), secret };
    },
    listApiKeys: async ({ userId }: { userId: string }) => ({
      keys: [...keys.values()].filter((k) => k.userId === userId && !k.revoked).map(view),
    }),
    revokeApiKey: async ({ userId, keyId }: { userId: string; keyId: string }) => {
      const found = [...keys.entries()].find(([, k]) => k.id === keyId && k.userId === userId && !k.revoked);
      if (!found) throw new DomainError(ErrorCode.NOT_FOUND, 'No such API key.', 'api_key_not_found');
      found[1].revoked = true;
      if (state.publishRevocations)
        bus.publishCore('sessionsRevoked', { tokenHashes: [tokenHash(found[0])], atUnixMs: BigInt(Date.now()) });
      return { publicHash: tokenHash(found[0]) };
    },
    authenticateApiKey: async ({ secret }: { secret: string }) => {
      state.keyAuthCalls++;
      const k = keys.get(secret);
      if (!k || k.revoked) throw new DomainError(ErrorCode.UNAUTHENTICATED, 'This API key is not valid or was revoked.', 'invalid_api_key');
      return { user: user(k.userId), key: view(k) };
    },
  };
  const billingImpl = {
    getAccount: async ({ userId }: { userId: string }) => ({
      account: { credits: 0n, subscription: { plan: plans.get(userId) ?? 'free', status: plans.has(userId) ? 'active' : 'inactive' } },
    }),
  };
  const servers: RunningGrpcServer[] = [];
  for (const [service, impl] of [
    [identity.IdentityService, identityImpl],
    [billing.BillingService, billingImpl],
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
    plans,
    addresses: { identity: `127.0.0.1:${servers[0]!.port}`, billing: `127.0.0.1:${servers[1]!.port}` },
    signIn: (plan?: string) => {
      const token = crypto.randomBytes(16).toString('hex');
      const id = crypto.randomUUID();
      sessions.set(token, id);
      if (plan) plans.set(id, plan);
      return token;
    },
    close: () => Promise.all(servers.map((s) => s.close())),
  };
}

interface Gateway {
  base: string;
  app: FastifyInstance;
  peers: Peers;
}

async function gateway(addresses: Record<string, string>, bus: Bus, log = quietLogger()): Promise<Gateway> {
  const metrics = createMetrics(`gw_${crypto.randomBytes(3).toString('hex')}`);
  const peers = admitted(
    dialPeers({ 'media-library': '127.0.0.1:1', 'assembly-orchestrator': '127.0.0.1:1', ...addresses }, 2000, metrics),
    { identity: { maxInFlight: 64, maxQueue: 256, maxWaitMs: 5000 }, others: { maxInFlight: 64, maxQueue: 256, maxWaitMs: 5000 } },
  );
  const sessions = new SessionVerifier(verifyWithIdentity(peers), { maxEntries: 1000, ttlMs: 60_000 });
  const app = await buildHttpApp({
    log,
    metrics,
    webDist: '/nonexistent',
    health: { report: async () => ({ status: 'healthy', services: {}, unavailable: [], instance: 'x' }) },
    peers,
    sessions,
    // Never reached: the routes under test refuse before their handlers run.
    store: new LocalObjectStore({
      root: path.join(os.tmpdir(), 'api-keys-spec'),
      signingSecret: 'x'.repeat(32),
      publicUrl: 'http://localhost',
    }),
  });
  followRevocations(bus, sessions, quietLogger());
  await app.listen({ port: 0, host: '127.0.0.1' });
  return { base: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`, app, peers };
}

const call = async (g: Gateway, token: string, method: string, path: string, body?: unknown) => {
  const res = await fetch(`${g.base}/api/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
};

describe('API keys through the gateway', () => {
  const prefix = natsPrefix();
  let buses: Bus[];
  let fake: Awaited<ReturnType<typeof fakeServices>>;
  let a: Gateway;
  const logA: string[] = [];
  let b: Gateway;
  beforeAll(async () => {
    buses = await Promise.all(
      ['identity', 'gw-a', 'gw-b'].map((name) => Bus.connect({ url: TEST_NATS_URL, name, log: quietLogger(), prefix })),
    );
    fake = await fakeServices(buses[0]!);
    a = await gateway(
      fake.addresses,
      buses[1]!,
      createLogger({ service: 'gw-a', destination: { write: (l: string) => void logA.push(l) } }),
    );
    b = await gateway(fake.addresses, buses[2]!);
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

  it('a plan without API access gets a 403 naming Corporate; a Corporate user gets the secret once and a list without it', async () => {
    const free = fake.signIn();
    const refused = await call(a, free, 'POST', '/api-keys', { name: 'ci', scopes: ['jobs:read'] });
    expect(refused).toMatchObject({ status: 403, body: { detail: NO_API_ACCESS_DETAIL, code: 'api_access_not_in_plan' } });
    expect(NO_API_ACCESS_DETAIL).toContain('Corporate');

    const corp = fake.signIn('corporate');
    const made = await call(a, corp, 'POST', '/api-keys', { name: 'ci', scopes: ['jobs:read'] });
    expect(made.status).toBe(201);
    expect(made.headers.get('cache-control')).toBe('no-store');
    expect(made.body['secret']).toMatch(/^rs_live_/);
    const list = await call(a, corp, 'GET', '/api-keys');
    expect(list.body).toEqual({
      keys: [
        {
          id: made.body['id'],
          name: 'ci',
          prefix: 'rs_live_xxxxxx',
          scopes: ['jobs:read'],
          created_at: expect.any(String),
          last_used_at: null,
        },
      ],
    });
    expect(JSON.stringify(list.body)).not.toContain(made.body['secret'] as string);
    expect((await call(a, corp, 'POST', '/api-keys', { name: 'x', scopes: ['account:delete'] })).status).toBe(400);
  });

  it('a key works as a bearer within its scopes; account, key and payment actions answer 403 with a sentence', async () => {
    const corp = fake.signIn('corporate');
    const secret = (await call(a, corp, 'POST', '/api-keys', { name: 'bot', scopes: ['jobs:read'] })).body['secret'] as string;
    expect((await call(a, secret, 'GET', '/auth/me')).status).toBe(200);
    expect(await call(a, secret, 'GET', '/library')).toMatchObject({
      status: 403,
      body: { code: 'missing_scope', detail: 'This API key does not have the reels:read scope this action needs.' },
    });
    for (const [method, path, body] of [
      ['POST', '/api-keys', { name: 'y', scopes: ['jobs:read'] }],
      ['GET', '/api-keys', undefined],
      ['POST', '/auth/change-password', { current_password: 'a', new_password: 'b' }],
      ['POST', '/auth/delete-account', { password: 'a' }],
      ['POST', '/payments/create-intent', {}],
    ] as const) {
      const r = await call(a, secret, method, path, body);
      expect([path, r.status, r.body['code']]).toEqual([path, 403, 'api_key_not_allowed']);
      expect(r.body['detail']).toMatch(/^An API key cannot change the password or e-mail, delete the account, manage API keys/);
    }
    expect(await call(a, 'rs_live_unknown', 'GET', '/auth/me')).toMatchObject({ status: 401, body: { code: 'invalid_api_key' } });
  });

  it('a key of an account whose plan lost API access is refused with the plan named', async () => {
    const corp = fake.signIn('corporate');
    const secret = (await call(a, corp, 'POST', '/api-keys', { name: 'bot', scopes: ['jobs:read'] })).body['secret'] as string;
    const me = (await call(a, corp, 'GET', '/auth/me')).body['user'] as { id: string };
    fake.plans.set(me.id, 'standard');
    expect(await call(b, secret, 'GET', '/auth/me')).toMatchObject({ status: 403, body: { code: 'api_access_not_in_plan' } });
  });

  it('revoking on one gateway makes the key, cached on the other, answer 401 there at once', async () => {
    const corp = fake.signIn('corporate');
    const made = await call(a, corp, 'POST', '/api-keys', { name: 'bot', scopes: ['jobs:read'] });
    const secret = made.body['secret'] as string;
    expect((await call(b, secret, 'GET', '/auth/me')).status).toBe(200);
    const calls = fake.state.keyAuthCalls;
    expect((await call(b, secret, 'GET', '/auth/me')).status).toBe(200);
    expect(fake.state.keyAuthCalls).toBe(calls); // served from b's cache

    expect((await call(a, corp, 'DELETE', `/api-keys/${made.body['id'] as string}`)).status).toBe(200);
    // The log names the revoked key (its id is not a secret: the logger's redaction must not hide it).
    expect(logA.map((l) => JSON.parse(l) as Record<string, unknown>)).toContainEqual(
      expect.objectContaining({ msg: 'API key revoked', key_id: made.body['id'] }),
    );
    const at = Date.now();
    await waitFor(async () => (await call(b, secret, 'GET', '/auth/me')).status === 401, 1000, 20);
    expect(Date.now() - at).toBeLessThan(1000);
    expect(await call(a, secret, 'GET', '/auth/me')).toMatchObject({ status: 401, body: { code: 'invalid_api_key' } });
    expect((await call(a, corp, 'DELETE', `/api-keys/${made.body['id'] as string}`)).status).toBe(404);
  });

  it('the gateway that revokes a key drops it from its own cache before answering, whatever NATS does', async () => {
    const corp = fake.signIn('corporate');
    const made = await call(a, corp, 'POST', '/api-keys', { name: 'bot', scopes: ['jobs:read'] });
    const secret = made.body['secret'] as string;
    expect((await call(a, secret, 'GET', '/auth/me')).status).toBe(200); // cached on a
    fake.state.publishRevocations = false; // the sessions.revoked message is lost
    try {
      expect((await call(a, corp, 'DELETE', `/api-keys/${made.body['id'] as string}`)).status).toBe(200);
      expect(await call(a, secret, 'GET', '/auth/me')).toMatchObject({ status: 401, body: { code: 'invalid_api_key' } });
    } finally {
      fake.state.publishRevocations = true;
    }
  });

  it('each key has its own rate limit: 429 with Retry-After past it', async () => {
    const corp = fake.signIn('corporate');
    const one = (await call(a, corp, 'POST', '/api-keys', { name: 'one', scopes: ['jobs:read'] })).body['secret'] as string;
    const two = (await call(a, corp, 'POST', '/api-keys', { name: 'two', scopes: ['jobs:read'] })).body['secret'] as string;
    let last = await call(a, one, 'GET', '/auth/me');
    for (let i = 1; i < 121 && last.status === 200; i++) last = await call(a, one, 'GET', '/auth/me');
    expect(last.status).toBe(429);
    expect(last.body['code']).toBe('rate_limited');
    expect(Number(last.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await call(a, two, 'GET', '/auth/me')).status).toBe(200);
    expect((await call(a, corp, 'GET', '/auth/me')).status).toBe(200); // the session is not limited by the key
  });
});
