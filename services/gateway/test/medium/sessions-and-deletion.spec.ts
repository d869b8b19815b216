import crypto from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { io as connect, type Socket as ClientSocket } from 'socket.io-client';
import { DomainError, ErrorCode, LocalObjectStore, createMetrics } from '@reelsmith/kit';
import { quietLogger, tempDir, waitFor } from '@reelsmith/kit/testing';
import type { Peers } from '../../src/repositories/clients';
import { buildHttpApp } from '../../src/transport/http/server';
import { mountSocket } from '../../src/transport/socket';

const ORIGIN = 'http://localhost:8080';

/**
 * Identity, orchestrator and media-library as the gateway sees them over gRPC: sessions that can
 * end, completed jobs with their reel, and a media-library that deletes a reel with its objects.
 */
function fakePeers(store: LocalObjectStore) {
  const sessions = new Map<string, string>(); // token -> user id
  const jobs = new Map<string, { ownerId: string; outputKey: string; thumbnailKey: string }>();
  let identityDown = false;
  const deletedAccounts: string[] = [];
  const anonymised: string[] = [];
  const authenticate = async ({ sessionToken }: { sessionToken: string }) => {
    if (identityDown) throw new DomainError(ErrorCode.UNAVAILABLE, 'identity unavailable');
    const id = sessions.get(sessionToken);
    if (!id) throw new DomainError(ErrorCode.UNAUTHENTICATED, 'Your session has expired. Please sign in again.', 'session_expired');
    return { user: { id, email: `${id}@example.com`, isAdmin: false, isGuest: false, unlimited: false } };
  };
  const peers = {
    identity: {
      authenticate,
      logout: async ({ sessionToken }: { sessionToken: string }) => void sessions.delete(sessionToken),
      checkPassword: async ({ password }: { password: string }) => {
        if (password !== 'right password')
          throw new DomainError(ErrorCode.PERMISSION_DENIED, 'The password is not correct.', 'wrong_password');
        return {};
      },
      deleteAccount: async ({ userId }: { userId: string }) => {
        for (const [t, id] of sessions) if (id === userId) sessions.delete(t);
        deletedAccounts.push(userId);
        return { email: `${userId}@example.com` };
      },
    },
    jobs: {
      getJob: async ({ jobId, ownerId }: { jobId: string; ownerId: string }) => {
        const j = jobs.get(jobId);
        if (!j || j.ownerId !== ownerId) throw new DomainError(ErrorCode.NOT_FOUND, 'Job not found.', 'job_not_found');
        return {
          $typeName: 'reelsmith.assembly.v1.Job',
          id: jobId,
          status: 'completed',
          progress: 100,
          message: 'Complete',
          outputKey: j.outputKey,
          thumbnailKey: j.thumbnailKey,
          request: { outputFilename: 'reel.mp4' },
        };
      },
    },
    media: {
      // As media-library deletes a reel (its own tests cover that): objects first, then the row.
      // As media-library deletes a user's data: every object of theirs, then the records.
      deleteUserData: async ({ ownerId }: { ownerId: string }) => {
        let reels = 0;
        for (const [id, j] of jobs)
          if (j.ownerId === ownerId) {
            await store.delete(j.outputKey);
            await store.delete(j.thumbnailKey);
            jobs.delete(id);
            reels++;
          }
        return { uploads: 0, reels };
      },
      deleteReel: async ({ ownerId, reelId }: { ownerId: string; reelId: string }) => {
        const j = jobs.get(reelId);
        if (!j || j.ownerId !== ownerId) throw new DomainError(ErrorCode.NOT_FOUND, 'Reel not found.', 'reel_not_found');
        await store.delete(j.outputKey);
        await store.delete(j.thumbnailKey);
        return {};
      },
    },
    billing: { anonymiseUser: async ({ userId }: { userId: string }) => void anonymised.push(userId) },
    close: () => undefined,
  };
  return {
    peers: peers as unknown as Peers,
    signIn: (userId: string = crypto.randomUUID()) => {
      const token = crypto.randomBytes(24).toString('base64url');
      sessions.set(token, userId);
      return { token, userId };
    },
    /** The session ends somewhere else (another replica's logout, expiry). */
    endElsewhere: (token: string) => void sessions.delete(token),
    setIdentityDown: (down: boolean) => void (identityDown = down),
    deletedAccounts,
    anonymised,
    completedJob: async (ownerId: string) => {
      const id = crypto.randomUUID();
      const job = { ownerId, outputKey: `outputs/${id}.mp4`, thumbnailKey: `outputs/${id}.jpg` };
      await store.put(job.outputKey, Buffer.from('mp4 bytes'));
      await store.put(job.thumbnailKey, Buffer.from([0xff, 0xd8, 0xff]));
      jobs.set(id, job);
      return { id, ...job };
    },
  };
}

describe('gateway: deleted reels and ended sessions', () => {
  const objects = tempDir('gw-objects');
  const secret = 's'.repeat(32);
  const store = new LocalObjectStore({ root: objects.dir, signingSecret: secret, publicUrl: ORIGIN });
  const fake = fakePeers(store);
  const apps: FastifyInstance[] = [];
  const clients: ClientSocket[] = [];
  /** `slow`: sessions re-checked hourly (only logout here ends sockets); `fast`: every 100 ms. */
  const bases = { slow: '', fast: '' };

  beforeAll(async () => {
    for (const [name, revalidateMs] of [
      ['slow', 3600_000],
      ['fast', 100],
    ] as const) {
      const app = await buildHttpApp({
        log: quietLogger(),
        metrics: createMetrics(`gateway_${name}`),
        webDist: objects.dir,
        health: { report: async () => ({ status: 'healthy', services: {}, unavailable: [], instance: name }) },
        peers: fake.peers,
        store,
        files: { store, signingSecret: secret },
      });
      mountSocket(app.server, { log: quietLogger(), allowedOrigins: [ORIGIN], peers: fake.peers, revalidateMs });
      await app.listen({ port: 0, host: '127.0.0.1' });
      apps.push(app);
      bases[name] = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    }
  });
  afterAll(async () => {
    for (const c of clients) c.close();
    for (const app of apps) await app.close();
    objects.remove();
  });
  beforeEach(() => fake.setIdentityDown(false));

  const call = (base: string, method: string, route: string, token: string) =>
    fetch(`${base}/api/v1${route}`, { method, headers: { authorization: `Bearer ${token}` }, redirect: 'manual' });

  /** A connected socket of `token`, recording why it was disconnected. */
  async function socketOf(base: string, token: string) {
    const socket = connect(base, { path: '/ws', transports: ['websocket'], auth: { token }, reconnection: false });
    clients.push(socket);
    const state = { connected: false, reason: '' };
    socket.on('disconnect', (reason) => Object.assign(state, { connected: false, reason }));
    await new Promise<void>((resolve, reject) => {
      socket.on('connect_error', reject);
      socket.on('connect', () => resolve());
    });
    state.connected = true;
    return state;
  }

  describe('a deleted reel', () => {
    it('downloads until deleted; afterwards the download route and the old link answer 404, and its files are gone', async () => {
      const { token, userId } = fake.signIn();
      const job = await fake.completedJob(userId);

      const statusLink = async () =>
        ((await (await call(bases.slow, 'GET', `/jobs/${job.id}/status`, token)).json()) as { download_url: string | null }).download_url;
      expect(await statusLink()).toContain('http');
      const before = await call(bases.slow, 'GET', `/downloads/${job.id}`, token);
      expect(before.status).toBe(302);
      const link = before.headers.get('location')!;
      expect((await fetch(link.replace(ORIGIN, bases.slow))).status).toBe(200);

      const del = await call(bases.slow, 'DELETE', `/library/${job.id}`, token);
      expect(del.status).toBe(200);
      expect(await store.stat(job.outputKey)).toBeNull();
      expect(await store.stat(job.thumbnailKey)).toBeNull();

      const after = await call(bases.slow, 'GET', `/downloads/${job.id}`, token);
      expect(after.status).toBe(404);
      expect(await after.json()).toEqual({ detail: 'This reel was deleted and can no longer be downloaded.', code: 'reel_not_found' });
      expect((await fetch(link.replace(ORIGIN, bases.slow))).status).toBe(404);
      // The job's status no longer offers a link either.
      expect(await statusLink()).toBeNull();
    });

    it("is not someone else's to delete or download: 404 and the files stay", async () => {
      const owner = fake.signIn();
      const other = fake.signIn();
      const job = await fake.completedJob(owner.userId);
      expect((await call(bases.slow, 'DELETE', `/library/${job.id}`, other.token)).status).toBe(404);
      expect((await call(bases.slow, 'GET', `/downloads/${job.id}`, other.token)).status).toBe(404);
      expect(await store.stat(job.outputKey)).not.toBeNull();
      expect((await call(bases.slow, 'GET', `/downloads/${job.id}`, owner.token)).status).toBe(302);
    });
  });

  describe('deleting an account', () => {
    const deleteAccount = (token: string, password: string) =>
      fetch(`${bases.slow}/api/v1/auth/delete-account`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ password }),
      });

    it('needs the password; then the reels and their files are gone, the ledger anonymised, every session and socket ended', async () => {
      const { token, userId } = fake.signIn();
      const other = fake.signIn();
      const mine = await fake.completedJob(userId);
      const theirs = await fake.completedJob(other.userId);
      const socket = await socketOf(bases.slow, token);

      const wrong = await deleteAccount(token, 'wrong');
      expect(wrong.status).toBe(403);
      expect(await store.stat(mine.outputKey)).not.toBeNull();
      expect(fake.deletedAccounts).not.toContain(userId);

      const res = await deleteAccount(token, 'right password');
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ message: 'Your account has been deleted.' });
      expect(await store.stat(mine.outputKey)).toBeNull();
      expect(await store.stat(mine.thumbnailKey)).toBeNull();
      expect(await store.stat(theirs.outputKey)).not.toBeNull();
      expect(fake.anonymised).toEqual([userId]);
      expect(fake.deletedAccounts).toEqual([userId]);
      await waitFor(() => (!socket.connected ? true : null), 2000);
      expect((await call(bases.slow, 'GET', `/jobs/${mine.id}/status`, token)).status).toBe(401);
    });
  });

  describe('sockets of an ended session', () => {
    it('logout disconnects the sockets of that session at once, and only those', async () => {
      const { token, userId } = fake.signIn();
      const second = fake.signIn(userId); // the same user on another device
      const [a, b] = [await socketOf(bases.slow, token), await socketOf(bases.slow, token)];
      const kept = await socketOf(bases.slow, second.token);

      expect((await call(bases.slow, 'POST', '/auth/logout', token)).status).toBe(200);

      await waitFor(() => (!a.connected && !b.connected ? true : null), 2000);
      expect([a.reason, b.reason]).toEqual(['io server disconnect', 'io server disconnect']);
      await new Promise((r) => setTimeout(r, 100));
      expect(kept.connected).toBe(true);
    });

    it('a session ended elsewhere (another replica, expiry) drops its sockets at the next check', async () => {
      const { token } = fake.signIn();
      const other = fake.signIn();
      const s = await socketOf(bases.fast, token);
      const kept = await socketOf(bases.fast, other.token);

      fake.endElsewhere(token);

      await waitFor(() => (!s.connected ? true : null), 3000);
      expect(s.reason).toBe('io server disconnect');
      expect(kept.connected).toBe(true);
    });

    it('an identity outage does not drop sockets', async () => {
      const { token } = fake.signIn();
      const s = await socketOf(bases.fast, token);
      fake.setIdentityDown(true);
      await new Promise((r) => setTimeout(r, 400)); // several checks
      expect(s.connected).toBe(true);
    });
  });
});
