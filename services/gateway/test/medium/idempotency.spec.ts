import crypto from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import {
  DomainError,
  ErrorCode,
  LocalObjectStore,
  bind,
  createMetrics,
  migrate,
  openDatabase,
  readMigrations,
  serveGrpc,
  type Database,
  type RunningGrpcServer,
} from '@reelsmith/kit';
import { createTestDatabase, quietLogger, type TestDatabase } from '@reelsmith/kit/testing';
import { assembly, billing, identity, media } from '@reelsmith/proto';
import { Idempotency } from '../../src/domain/idempotency';
import { dialPeers, type Peers } from '../../src/repositories/clients';
import { DbIdempotencyStore } from '../../src/repositories/idempotency.repository';
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
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Idempotency-Key through the gateway, on a real database: an orchestrator that takes 300 ms to
 * create a job and charges for each job it creates (its own key check is left out, so the
 * gateway's is what is tested).
 */
describe('Idempotency-Key on POST /jobs/assemble and /jobs/plan', () => {
  let pg: TestDatabase;
  let db: Database;
  let servers: RunningGrpcServer[];
  let peers: Peers;
  let app: FastifyInstance;
  let base: string;
  const jobs: string[] = [];
  const charges: string[] = [];
  const tokens = new Map<string, string>();
  const registered: string[] = [];

  beforeAll(async () => {
    pg = await createTestDatabase('idempotency');
    db = await openDatabase({ url: pg.url, pgliteDir: '', poolSize: 8 });
    await migrate(db, readMigrations(path.join(__dirname, '..', '..', 'migrations')));
    servers = [];
    for (const [service, impl] of [
      [
        identity.IdentityService,
        {
          authenticate: async ({ sessionToken }: { sessionToken: string }) => {
            const id = tokens.get(sessionToken);
            if (!id) throw new DomainError(ErrorCode.UNAUTHENTICATED, 'expired', 'session_expired');
            return { user: { id, email: `${id}@example.com`, emailVerified: true } };
          },
        },
      ],
      [
        billing.BillingService,
        {
          getAccount: async () => ({ account: { credits: 1000n, entitlements: { uploadCapBytes: 10_000_000n, uploadLimitMessage: '' } } }),
        },
      ],
      [
        media.MediaLibraryService,
        {
          registerUpload: async ({ objectKey, displayName }: { objectKey: string; displayName: string }) => {
            registered.push(objectKey);
            return { objectKey, kind: 'video', displayName, sizeBytes: 1000n, durationSec: 3, width: 640, height: 360, thumbnailKey: '' };
          },
        },
      ],
      [
        assembly.AssemblyOrchestratorService,
        {
          createJob: async ({ ownerId }: { ownerId: string }) => {
            await sleep(300);
            const jobId = crypto.randomUUID();
            jobs.push(jobId);
            charges.push(ownerId);
            return { jobId };
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
    peers = dialPeers(
      {
        identity: `127.0.0.1:${servers[0]!.port}`,
        billing: `127.0.0.1:${servers[1]!.port}`,
        'assembly-orchestrator': `127.0.0.1:${servers[3]!.port}`,
        'media-library': `127.0.0.1:${servers[2]!.port}`,
      },
      5000,
      createMetrics(`idem_${crypto.randomBytes(3).toString('hex')}`),
    );
    app = await buildHttpApp({
      log: quietLogger(),
      metrics: createMetrics(`idem_http_${crypto.randomBytes(3).toString('hex')}`),
      webDist: '/nonexistent',
      health: { report: async () => ({ status: 'healthy', services: {}, unavailable: [], instance: 'x' }) },
      peers,
      store: new LocalObjectStore({
        root: path.join(os.tmpdir(), 'idem-spec'),
        signingSecret: 'x'.repeat(32),
        publicUrl: 'http://localhost',
      }),
      rateLimitMax: 1000,
      idempotency: new Idempotency(new DbIdempotencyStore(db)),
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await app?.close();
    peers?.close();
    await Promise.all(servers.map((s) => s.close()));
    await db?.close();
    await pg?.drop();
  });

  const signIn = () => {
    const token = crypto.randomBytes(16).toString('hex');
    tokens.set(token, crypto.randomUUID());
    return token;
  };
  const post = async (token: string, route: string, body: unknown, key?: string) => {
    const res = await fetch(`${base}/api/v1${route}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...(key ? { 'idempotency-key': key } : {}) },
      body: JSON.stringify(body),
    });
    return { status: res.status, replayed: res.headers.get('idempotent-replayed'), body: (await res.json()) as Record<string, unknown> };
  };

  it('10 concurrent identical requests make 1 job and 1 charge, and all get its id', async () => {
    const token = signIn();
    const before = jobs.length;
    const answers = await Promise.all(Array.from({ length: 10 }, () => post(token, '/jobs/assemble', { media_files: [] }, 'race-1')));
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200));
    expect(jobs.length - before).toBe(1);
    expect(charges.filter((c) => c === charges.at(-1)).length).toBe(1);
    expect(new Set(answers.map((a) => a.body['job_id']))).toEqual(new Set([jobs.at(-1)]));
    expect(answers.filter((a) => a.replayed === 'true')).toHaveLength(9);

    // Later, the same request again: the first answer; the same key with another body: 409.
    expect(await post(token, '/jobs/assemble', { media_files: [] }, 'race-1')).toMatchObject({
      status: 200,
      body: { job_id: jobs.at(-1) },
    });
    expect(await post(token, '/jobs/assemble', { media_files: [], title_config: { text: 'Other' } }, 'race-1')).toMatchObject({
      status: 409,
      body: { code: 'idempotency_key_reused' },
    });
    expect(jobs.length - before).toBe(1);
  });

  it('keys are per account, and requests without a key each run', async () => {
    const [a, b] = [signIn(), signIn()];
    const before = jobs.length;
    const [x, y] = await Promise.all([
      post(a, '/jobs/assemble', { media_files: [] }, 'shared'),
      post(b, '/jobs/assemble', { media_files: [] }, 'shared'),
    ]);
    expect(x.body['job_id']).not.toBe(y.body['job_id']);
    await post(a, '/jobs/assemble', { media_files: [] });
    await post(a, '/jobs/assemble', { media_files: [] });
    expect(jobs.length - before).toBe(4);
  });

  it('an upload sent twice with one key is stored once and answered twice; a file of another size with that key is refused', async () => {
    const token = signIn();
    const upload = async (bytes: number, key: string) => {
      const form = new FormData();
      form.append('file', new Blob([Buffer.alloc(bytes, 1)], { type: 'video/mp4' }), 'clip.mp4');
      const res = await fetch(`${base}/api/v1/uploads/file`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'idempotency-key': key },
        body: form,
      });
      return { status: res.status, replayed: res.headers.get('idempotent-replayed'), body: (await res.json()) as Record<string, unknown> };
    };
    const before = registered.length;
    const first = await upload(1000, 'up-1');
    const again = await upload(1000, 'up-1');
    expect([first.status, again.status, again.replayed]).toEqual([201, 201, 'true']);
    expect(again.body['object_key']).toBe(first.body['object_key']);
    expect(registered.length - before).toBe(1);
    expect(await upload(2000, 'up-1')).toMatchObject({ status: 409, body: { code: 'idempotency_key_reused' } });
    expect(registered.length - before).toBe(1);
  });

  it('a failed request frees its key; a bad key is refused; the same key on another route is a different request', async () => {
    const token = signIn();
    const failed = await post(token, '/jobs/assemble', { media_files: 'not-a-list' }, 'k-fail');
    expect(failed.status).toBe(400);
    expect((await post(token, '/jobs/assemble', { media_files: [] }, 'k-fail')).status).toBe(200);
    expect(await post(token, '/jobs/assemble', { media_files: [] }, 'has space')).toMatchObject({
      status: 400,
      body: { code: 'invalid_idempotency_key' },
    });
    expect(await post(token, '/jobs/plan', { media_files: [] }, 'k-fail')).toMatchObject({
      status: 409,
      body: { code: 'idempotency_key_reused' },
    });
  });

  it('in the database, a request whose key was taken over neither saves its answer nor frees the key', async () => {
    const store = new DbIdempotencyStore(db);
    const t0 = new Date();
    const old = new Date(t0.getTime() - 1);
    expect(await store.claim('u-stale', 'k', 'p', 'first', t0, old, old)).toBe(true);
    const t1 = new Date(t0.getTime() + 1000);
    expect(await store.claim('u-stale', 'k', 'p', 'second', t1, old, t1)).toBe(true); // the first went stale
    await store.release('u-stale', 'k', 'first');
    await store.complete('u-stale', 'k', 'first', 200, '{"job_id":"stale"}');
    expect(await store.read('u-stale', 'k')).toMatchObject({ status: null, body: null });
    await store.complete('u-stale', 'k', 'second', 200, '{"job_id":"j2"}');
    expect(await store.read('u-stale', 'k')).toMatchObject({ status: 200, body: '{"job_id":"j2"}' });
    await store.release('u-stale', 'k', 'second'); // a kept answer is never freed
    expect(await store.read('u-stale', 'k')).toMatchObject({ status: 200 });
  });
});
