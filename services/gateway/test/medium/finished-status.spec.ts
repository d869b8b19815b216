import crypto from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { Bus, DomainError, ErrorCode, LocalObjectStore, createMetrics, type Metrics } from '@reelsmith/kit';
import { TEST_NATS_URL, natsPrefix, quietLogger, tempDir } from '@reelsmith/kit/testing';
import { FinishedJobs, finishedJobsLimits } from '../../src/domain/finished-jobs';
import { RequestCounter } from '../../src/domain/request-counter';
import type { Peers } from '../../src/repositories/clients';
import { followMediaFacts } from '../../src/repositories/media-facts';
import { buildHttpApp } from '../../src/transport/http/server';

const ORIGIN = 'http://localhost:8080';

/**
 * Two gateway replicas, each with its own cache of finished jobs and its own NATS connection,
 * over one real NATS server; media-library deletes reels as it does (objects first) and publishes
 * events.media.reel_deleted / user_data_deleted as it does (repositories/deletion-facts.ts).
 */
describe('the cached status of a finished job, on two gateway replicas', () => {
  const prefix = natsPrefix();
  const objects = tempDir('gw-finished');
  const secret = 's'.repeat(32);
  const store = new LocalObjectStore({ root: objects.dir, signingSecret: secret, publicUrl: ORIGIN });
  const sessions = new Map<string, string>();
  const jobs = new Map<string, { ownerId: string; outputKey: string }>();
  const calls = { getJob: 0 };
  let mediaBus: Bus;
  const buses: Bus[] = [];
  const apps: FastifyInstance[] = [];
  const caches: FinishedJobs[] = [];
  const bases: string[] = [];
  const metrics: Metrics[] = [];
  const counts: RequestCounter[] = [];
  const routed: string[] = [];

  const peers = {
    identity: {
      authenticate: async ({ sessionToken }: { sessionToken: string }) => {
        const id = sessions.get(sessionToken);
        if (!id) throw new DomainError(ErrorCode.UNAUTHENTICATED, 'Your session has expired.', 'session_expired');
        return { user: { id, email: `${id}@example.com`, isAdmin: false, isGuest: false, unlimited: false } };
      },
    },
    jobs: {
      getJob: async ({ jobId, ownerId }: { jobId: string; ownerId: string }) => {
        calls.getJob++;
        const j = jobs.get(jobId);
        if (!j || j.ownerId !== ownerId) throw new DomainError(ErrorCode.NOT_FOUND, 'Job not found.', 'job_not_found');
        return {
          $typeName: 'reelsmith.assembly.v1.Job',
          id: jobId,
          status: 'completed',
          progress: 100,
          message: 'Complete',
          outputKey: j.outputKey,
          createdAtUnixMs: 0n,
          request: { outputFilename: 'reel.mp4' },
        };
      },
    },
    media: {
      deleteReel: async ({ ownerId, reelId }: { ownerId: string; reelId: string }) => {
        const j = jobs.get(reelId);
        if (!j || j.ownerId !== ownerId) throw new DomainError(ErrorCode.NOT_FOUND, 'Reel not found.', 'reel_not_found');
        await store.delete(j.outputKey);
        await mediaBus.publish('events.media.reel_deleted', { reelId, ownerId, atUnixMs: 0n }, { msgId: `reel_deleted.${reelId}` });
        return {};
      },
    },
    close: () => undefined,
  } as unknown as Peers;

  beforeAll(async () => {
    mediaBus = await Bus.connect({ url: TEST_NATS_URL, name: 'media-library', log: quietLogger(), prefix });
    await mediaBus.ensureDeclaredStreams();
    for (const name of ['a', 'b']) {
      const bus = await Bus.connect({ url: TEST_NATS_URL, name: `gw-${name}`, log: quietLogger(), prefix });
      const finished = new FinishedJobs(finishedJobsLimits(100));
      followMediaFacts(bus, finished);
      await bus.flush();
      metrics.push(createMetrics(`gateway_finished_${name}`));
      counts.push(new RequestCounter());
      const app = await buildHttpApp({
        log: quietLogger(),
        metrics: metrics.at(-1)!,
        requestCounts: counts.at(-1)!,
        webDist: objects.dir,
        health: { report: async () => ({ status: 'healthy', services: {}, unavailable: [], instance: name }) },
        peers,
        store,
        finished,
        files: { store, signingSecret: secret },
      });
      // Which requests reached the app's routing (the fast path answers before it).
      app.addHook('onRequest', (req, _reply, done) => {
        routed.push(req.url);
        done();
      });
      await app.listen({ port: 0, host: '127.0.0.1' });
      buses.push(bus);
      apps.push(app);
      caches.push(finished);
      bases.push(`http://127.0.0.1:${(app.server.address() as AddressInfo).port}`);
    }
  });
  afterAll(async () => {
    for (const app of apps) await app.close();
    for (const bus of [...buses, mediaBus]) await bus?.close();
    objects.remove();
  });

  const signIn = () => {
    const token = crypto.randomBytes(24).toString('base64url');
    const userId = crypto.randomUUID();
    sessions.set(token, userId);
    return { token, userId };
  };
  const completedJob = async (ownerId: string) => {
    const id = crypto.randomUUID();
    const outputKey = `outputs/${id}.mp4`;
    await store.put(outputKey, Buffer.from('mp4 bytes'));
    jobs.set(id, { ownerId, outputKey });
    return id;
  };
  const status = (base: string, id: string, token: string, etag?: string) =>
    fetch(`${base}/api/v1/jobs/${id}/status`, {
      headers: { authorization: `Bearer ${token}`, ...(etag ? { 'if-none-match': etag } : {}) },
    });
  const link = async (base: string, id: string, token: string) =>
    ((await (await status(base, id, token)).json()) as { download_url: string | null }).download_url;

  it('polls of a finished job are answered from memory, with an ETag; the same ETag gets 304', async () => {
    const { token, userId } = signIn();
    const id = await completedJob(userId);
    const first = await status(bases[0]!, id, token);
    expect(first.status).toBe(200);
    expect(first.headers.get('cache-control')).toBe('private, max-age=0');
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^".+"$/);
    const before = calls.getJob;
    const again = await status(bases[0]!, id, token, etag);
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
    expect((await status(bases[0]!, id, token)).headers.get('etag')).toBe(etag);
    expect(calls.getJob).toBe(before); // no call to the orchestrator
  });

  it('answers a poll from memory exactly as the route does (status, headers, body; 200 and 304)', async () => {
    const { token, userId } = signIn();
    const id = await completedJob(userId);
    const etag = (await status(bases[0]!, id, token)).headers.get('etag')!; // the session and the view are now cached
    const ask = (query: string, extra: Record<string, string>) =>
      fetch(`${bases[0]}/api/v1/jobs/${id}/status${query}`, {
        headers: { authorization: `Bearer ${token}`, 'x-request-id': 'poll-1', ...extra },
      });
    const shape = async (r: Response) => ({
      status: r.status,
      body: await r.text(),
      // Everything but the date and the connection's own headers (the request id is the caller's).
      headers: Array.from(r.headers as unknown as Iterable<[string, string]>)
        .filter(([n]) => !['date', 'connection', 'keep-alive', 'x-trace-id'].includes(n))
        .sort(),
    });
    for (const extra of [{}, { 'if-none-match': etag }] as Array<Record<string, string>>) {
      routed.length = 0;
      const fast = await shape(await ask('', extra)); // answered before the routing (fast-status.ts)
      const viaApp = await shape(await ask('?from=route', extra)); // a query string goes through the app
      expect(routed).toEqual([`/api/v1/jobs/${id}/status?from=route`]);
      expect(fast).toEqual(viaApp);
      expect(fast.headers).toContainEqual(['x-request-id', 'poll-1']);
    }
  });

  it('a poll the fast path fails on is answered by the app (the process stays up)', async () => {
    const finished = new FinishedJobs(finishedJobsLimits(100));
    finished.holds = () => {
      throw new Error('broken cache');
    };
    const app = await buildHttpApp({
      log: quietLogger(),
      metrics: createMetrics('gateway_finished_broken'),
      webDist: objects.dir,
      health: { report: async () => ({ status: 'healthy', services: {}, unavailable: [], instance: 'broken' }) },
      peers,
      store,
      finished,
      files: { store, signingSecret: secret },
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
      const { token, userId } = signIn();
      const id = await completedJob(userId);
      for (let i = 0; i < 2; i++) {
        const r = await status(base, id, token); // the second with the session and the view cached
        expect(r.status).toBe(200);
        expect(await r.json()).toMatchObject({ status: 'completed', download_url: expect.stringContaining('http') });
      }
    } finally {
      await app.close();
    }
  });

  it('counts every poll answered from memory, 200 and 304 alike, in the request histogram and the dashboard counts', async () => {
    const { token, userId } = signIn();
    const id = await completedJob(userId);
    const route = '/api/v1/jobs/:id/status';
    const histogram = async (code: string) =>
      (await metrics[1]!.httpRequestSeconds.get()).values.find(
        (v) => v.metricName === 'http_request_duration_seconds_count' && v.labels.route === route && v.labels.status_code === code,
      )?.value ?? 0;
    counts[1]!.take(true); // what earlier tests counted
    const [ok, notModified] = [await histogram('200'), await histogram('304')];
    const etag = (await status(bases[1]!, id, token)).headers.get('etag')!;
    for (let i = 0; i < 3; i++) expect((await status(bases[1]!, id, token)).status).toBe(200);
    for (let i = 0; i < 2; i++) expect((await status(bases[1]!, id, token, etag)).status).toBe(304);
    expect(await histogram('200')).toBe(ok + 4);
    expect(await histogram('304')).toBe(notModified + 2);
    const taken = counts[1]!
      .take(true)
      .flatMap((m) => m.routes)
      .filter((r) => r.route === route && r.method === 'GET');
    expect(taken.filter((r) => r.statusClass === '2xx').reduce((n, r) => n + r.count, 0)).toBe(4);
    expect(taken.filter((r) => r.statusClass === '3xx').reduce((n, r) => n + r.count, 0)).toBe(2);
  });

  it('a reel deleted through one replica has no link on the next poll of either, the old ETag included', async () => {
    const { token, userId } = signIn();
    const id = await completedJob(userId);
    // Cached with its link on both replicas.
    expect(await link(bases[0]!, id, token)).toContain('http');
    const onB = await status(bases[1]!, id, token);
    const etagB = onB.headers.get('etag')!;
    expect(((await onB.json()) as { download_url: string }).download_url).toContain('http');
    expect(caches.every((c) => c.get(id, userId))).toBe(true);

    const del = await fetch(`${bases[0]}/api/v1/library/${id}`, { method: 'DELETE', headers: { authorization: `Bearer ${token}` } });
    expect(del.status).toBe(200);
    expect(await link(bases[0]!, id, token)).toBeNull();
    const afterB = await status(bases[1]!, id, token, etagB);
    expect(afterB.status).toBe(200); // not 304: the view changed
    expect(await afterB.json()).toMatchObject({ status: 'completed', download_url: null });
  });

  it('a deleted account (its data deleted by media-library) drops its views on every replica', async () => {
    const { token, userId } = signIn();
    const ids = [await completedJob(userId), await completedJob(userId)];
    for (const base of bases) for (const id of ids) expect(await link(base, id, token)).toContain('http');
    await mediaBus.publish('events.media.user_data_deleted', { ownerId: userId, atUnixMs: 0n }, { msgId: `udd.${userId}` });
    await mediaBus.flush();
    for (const bus of buses) await bus.flush();
    for (const c of caches) for (const id of ids) expect(c.get(id, userId)).toBeUndefined();
    // Were the session still alive, the status would have no link.
    for (const base of bases) for (const id of ids) expect(await link(base, id, token)).toBeNull();
  });
});
