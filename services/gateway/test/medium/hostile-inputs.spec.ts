import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { DomainError, ErrorCode, LocalObjectStore, createMetrics } from '@reelsmith/kit';
import { quietLogger, tempDir } from '@reelsmith/kit/testing';
import type { Peers } from '../../src/repositories/clients';
import { buildHttpApp } from '../../src/transport/http/server';

const ORIGIN = 'http://localhost:8080';
const UPLOAD_CAP = 64 * 1024;

interface User {
  id: string;
  email: string;
  isGuest: boolean;
  password: string;
}

/**
 * Identity, billing, media-library and the marketplace as the gateway sees them over gRPC, keeping
 * what they would store. Each refuses what the real one refuses (identity the guest's deletion,
 * PostgreSQL a NUL in a text column), so a test sees what a user would see when the gateway lets
 * something through that it should have stopped.
 */
function standIns(store: LocalObjectStore) {
  const users = new Map<string, User>();
  const sessions = new Map<string, string>();
  const uploads = new Map<string, { ownerId: string; displayName: string }>();
  const calls: string[] = [];
  const offers: Array<{ credits: bigint; cashCents: bigint }> = [];
  const pgText = (s: string) => {
    // PostgreSQL refuses NUL in text: the real services answer INTERNAL.
    if (s.includes('\u0000')) throw new Error('invalid byte sequence for encoding "UTF8": 0x00');
  };
  const account = (unlimited: boolean) => ({
    account: {
      credits: 10n,
      entitlements: {
        uploadCapBytes: BigInt(UPLOAD_CAP),
        uploadLimitMessage: 'Files are limited to 64 KB on your plan.',
        librarySelectionCap: 3,
        selectionLimitMessage: 'At most 3 library clips.',
        unlimited,
      },
    },
  });
  const peers = {
    identity: {
      authenticate: async ({ sessionToken }: { sessionToken: string }) => {
        const u = users.get(sessions.get(sessionToken) ?? '');
        if (!u) throw new DomainError(ErrorCode.UNAUTHENTICATED, 'Your session has expired. Please sign in again.', 'session_expired');
        return { user: { id: u.id, email: u.email, isAdmin: false, isGuest: u.isGuest, unlimited: u.isGuest } };
      },
      checkPassword: async ({ userId, password }: { userId: string; password: string }) => {
        calls.push(`identity.checkPassword ${userId}`);
        if (users.get(userId)?.password !== password)
          throw new DomainError(ErrorCode.PERMISSION_DENIED, 'The password is not correct.', 'wrong_password');
        return {};
      },
      deleteAccount: async ({ userId }: { userId: string }) => {
        calls.push(`identity.deleteAccount ${userId}`);
        if (users.get(userId)?.isGuest)
          throw new DomainError(ErrorCode.PERMISSION_DENIED, 'The guest pass account cannot be deleted.', 'guest');
        users.delete(userId);
        return { email: '' };
      },
      login: async ({ email, password }: { email: string; password: string }) => {
        pgText(email);
        const u = [...users.values()].find((x) => x.email === email && x.password === password);
        if (!u) throw new DomainError(ErrorCode.UNAUTHENTICATED, 'Invalid email or password.', 'invalid_credentials');
        const token = crypto.randomBytes(24).toString('base64url');
        sessions.set(token, u.id);
        return { sessionToken: token, user: { id: u.id, email: u.email, isAdmin: false, isGuest: u.isGuest, emailVerified: true } };
      },
      register: async ({ email }: { email: string }) => {
        pgText(email);
        calls.push(`identity.register ${email}`);
        return { email };
      },
    },
    billing: {
      getAccount: async ({ unlimited }: { unlimited: boolean }) => account(unlimited),
      anonymiseUser: async ({ userId }: { userId: string }) => void calls.push(`billing.anonymiseUser ${userId}`),
      getCatalogue: async () => {
        calls.push('billing.getCatalogue');
        return { packs: [{ id: 'pack-10', priceCents: 1000n }], plans: [] };
      },
      createPayment: async () => {
        calls.push('billing.createPayment');
        return { clientSecret: 's', paymentIntentId: 'pi', provider: 'sandbox', publishableKey: '', approvalUrl: '' };
      },
    },
    media: {
      deleteUserData: async ({ ownerId }: { ownerId: string }) => {
        calls.push(`media.deleteUserData ${ownerId}`);
        for (const [key, u] of uploads)
          if (u.ownerId === ownerId) {
            await store.delete(key);
            uploads.delete(key);
          }
        return { uploads: 0, reels: 0 };
      },
      registerUpload: async ({ ownerId, objectKey, displayName }: { ownerId: string; objectKey: string; displayName: string }) => {
        pgText(displayName);
        uploads.set(objectKey, { ownerId, displayName });
        const size = (await store.stat(objectKey))?.size ?? 0;
        return { objectKey, kind: 'video', displayName, sizeBytes: BigInt(size), durationSec: 1, width: 2, height: 2, thumbnailKey: '' };
      },
      findMusic: async ({ filename }: { filename: string }) => {
        pgText(filename);
        throw new DomainError(ErrorCode.NOT_FOUND, 'No such track.', 'not_found');
      },
    },
    marketplace: {
      makeOffer: async (o: { credits: bigint; cashCents: bigint }) => {
        offers.push(o);
        return { id: crypto.randomUUID(), status: 'credits_offered', filename: 'f', userEmail: 'e', sizeBytes: 0n, thumbnailKey: '' };
      },
    },
    jobs: {},
    telemetry: {},
    close: () => undefined,
  };
  return {
    peers: peers as unknown as Peers,
    calls,
    offers,
    uploads,
    user(opts: { isGuest?: boolean; email?: string } = {}) {
      const u: User = {
        id: crypto.randomUUID(),
        email: opts.email ?? `${crypto.randomUUID()}@example.com`,
        isGuest: opts.isGuest ?? false,
        password: 'right password',
      };
      users.set(u.id, u);
      const token = crypto.randomBytes(24).toString('base64url');
      sessions.set(token, u.id);
      return { ...u, token };
    },
  };
}

/** Every file under `dir`, relative. */
function filesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return (fs.readdirSync(dir, { recursive: true }) as string[]).filter((f) => fs.statSync(path.join(dir, f)).isFile());
}

describe('gateway: hostile inputs and flows that check before they act', () => {
  const objects = tempDir('gw-hostile');
  const store = new LocalObjectStore({ root: objects.dir, signingSecret: 's'.repeat(32), publicUrl: ORIGIN });
  const fake = standIns(store);
  let app: FastifyInstance;
  let base: string;

  beforeAll(async () => {
    app = await buildHttpApp({
      log: quietLogger(),
      metrics: createMetrics('gateway_hostile'),
      webDist: objects.dir,
      health: { report: async () => ({ status: 'healthy', services: {}, unavailable: [], instance: 'h' }) },
      peers: fake.peers,
      store,
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/api/v1`;
  });
  afterAll(async () => {
    await app.close();
    objects.remove();
  });

  const json = (method: string, route: string, body: unknown, token?: string) =>
    fetch(`${base}${route}`, {
      method,
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
  const upload = (token: string, filename: string, bytes: Buffer | ReadableStream<Uint8Array>) => {
    const boundary = 'x' + crypto.randomBytes(8).toString('hex');
    const head = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: video/mp4\r\n\r\n`,
    );
    const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
    const body = Buffer.isBuffer(bytes) ? Buffer.concat([head, bytes, tail]) : bytes;
    return fetch(`${base}/uploads/file`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': `multipart/form-data; boundary=${boundary}` },
      body,
      ...(Buffer.isBuffer(bytes) ? {} : { duplex: 'half' }),
    } as RequestInit);
  };
  const uploadsOf = (userId: string) => filesUnder(path.join(objects.dir, 'uploads', userId));

  describe('account deletion', () => {
    it("refuses the guest before touching anything: the shared account's uploads survive", async () => {
      const guest = fake.user({ isGuest: true });
      expect((await upload(guest.token, 'beach.mp4', Buffer.alloc(100, 1))).status).toBe(201);
      expect(uploadsOf(guest.id)).toHaveLength(1);
      fake.calls.length = 0;

      const res = await json('POST', '/auth/delete-account', { password: 'right password' }, guest.token);
      expect(res.status).toBe(403);
      expect(await res.json()).toEqual({ detail: 'The guest pass account cannot be deleted.', code: 'guest' });
      expect(uploadsOf(guest.id)).toHaveLength(1);
      expect(fake.calls).toEqual([]);
    });

    it('a wrong password deletes nothing; the right one deletes the uploads, then billing, then the account', async () => {
      const u = fake.user();
      expect((await upload(u.token, 'clip.mp4', Buffer.alloc(100, 2))).status).toBe(201);
      fake.calls.length = 0;
      expect((await json('POST', '/auth/delete-account', { password: 'wrong' }, u.token)).status).toBe(403);
      expect(uploadsOf(u.id)).toHaveLength(1);
      expect(fake.calls).toEqual([`identity.checkPassword ${u.id}`]);

      fake.calls.length = 0;
      expect((await json('POST', '/auth/delete-account', { password: 'right password' }, u.token)).status).toBe(200);
      expect(uploadsOf(u.id)).toHaveLength(0);
      expect(fake.calls).toEqual([
        `identity.checkPassword ${u.id}`,
        `media.deleteUserData ${u.id}`,
        `billing.anonymiseUser ${u.id}`,
        `identity.deleteAccount ${u.id}`,
      ]);
    });
  });

  it('checkout refuses the guest before asking billing for anything', async () => {
    const guest = fake.user({ isGuest: true });
    fake.calls.length = 0;
    const res = await json('POST', '/auth/purchase-credits', { amount: 10 }, guest.token);
    expect(res.status).toBe(403);
    expect(((await res.json()) as { code: string }).code).toBe('guest');
    expect(fake.calls).toEqual([]);
  });

  describe('the one rule for text', () => {
    it('a NUL in an upload file name is a 400 and leaves no file behind', async () => {
      const u = fake.user();
      const res = await upload(u.token, 'evil\u0000.mp4', Buffer.alloc(500, 3));
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({ detail: 'The file name must not contain control characters', code: 'invalid_text' });
      expect(uploadsOf(u.id)).toEqual([]);
    });

    it('a write that fails after storing the file removes the file', async () => {
      const u = fake.user();
      // The stand-in media-library fails (as PostgreSQL would) on a name the gateway lets through.
      const register = (fake.peers.media as unknown as Record<string, unknown>).registerUpload;
      (fake.peers.media as unknown as Record<string, unknown>).registerUpload = async () => {
        throw new Error('connection reset');
      };
      try {
        expect((await upload(u.token, 'fine.mp4', Buffer.alloc(500, 3))).status).toBe(500);
      } finally {
        (fake.peers.media as unknown as Record<string, unknown>).registerUpload = register;
      }
      expect(uploadsOf(u.id)).toEqual([]);
    });

    it('a streamed upload over the limit is answered 413 once it passes the limit, before the rest is sent, and nothing is kept', async () => {
      const u = fake.user();
      const boundary = 'b' + crypto.randomBytes(8).toString('hex');
      const total = 200 * 1024 * 1024; // far over the 64 KB cap
      const chunk = Buffer.alloc(16 * 1024, 7);
      const { port } = app.server.address() as AddressInfo;
      const result = await new Promise<{ status: number; body: string; sentAtAnswer: number }>((resolve, reject) => {
        let sent = 0;
        let answered = false;
        const req = http.request({
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: '/api/v1/uploads/file',
          headers: { authorization: `Bearer ${u.token}`, 'content-type': `multipart/form-data; boundary=${boundary}` },
        });
        req.on('response', (res) => {
          answered = true;
          const sentAtAnswer = sent;
          let body = '';
          res.on('data', (d: Buffer) => (body += d.toString()));
          res.on('end', () => resolve({ status: res.statusCode!, body, sentAtAnswer }));
        });
        req.on('error', (e) => (answered ? undefined : reject(e)));
        req.write(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.mp4"\r\nContent-Type: video/mp4\r\n\r\n`);
        const pump = () => {
          while (!answered && sent < total) {
            sent += chunk.length;
            if (!req.write(chunk)) return void req.once('drain', pump);
          }
          if (!answered) req.end(`\r\n--${boundary}--\r\n`);
        };
        pump();
      });
      expect(result.status).toBe(413);
      expect(JSON.parse(result.body)).toEqual({ detail: 'Files are limited to 64 KB on your plan.', code: 'upload_limit' });
      expect(result.sentAtAnswer).toBeLessThan(total / 10);
      expect(uploadsOf(u.id)).toEqual([]);
    });

    it('a NUL in the music library selection is a 400, not a 500', async () => {
      const u = fake.user();
      const res = await json('POST', '/music-library/select', { filename: 'track\u0000.mp3' }, u.token);
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({ detail: 'body.filename must not contain control characters', code: 'invalid_text' });
    });

    it.each([
      ['a zero-width space', 'ad\u200bmin@example.com'],
      ['a right-to-left override', 'admin\u202e@example.com'],
      ['a byte-order mark', '\ufeffadmin@example.com'],
      ['a line break', 'admin@example.com\n'],
    ])('sign-up refuses an e-mail address with %s', async (_what, email) => {
      fake.calls.length = 0;
      const res = await json('POST', '/auth/register', { email, password: 'a long enough password' });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { code: string }).code).toMatch(/invalid_text|invalid_request/);
      expect(fake.calls).toEqual([]);
    });

    it('normalises text to NFC before it reaches a service', async () => {
      fake.calls.length = 0;
      const decomposed = 'rene\u0301@example.com';
      expect((await json('POST', '/auth/register', { email: decomposed, password: 'a long enough password' })).status).toBe(201);
      expect(fake.calls).toEqual(['identity.register ren\u00e9@example.com']);
      // A password keeps the form typed: its stored hash was made from it.
      const login = (fake.peers.identity as unknown as Record<string, unknown>).login;
      let seen = '';
      (fake.peers.identity as unknown as Record<string, unknown>).login = async (r: { password: string }) => {
        seen = r.password;
        throw new DomainError(ErrorCode.UNAUTHENTICATED, 'Invalid email or password.', 'invalid_credentials');
      };
      try {
        await json('POST', '/auth/login', { email: 'a@example.com', password: 'cafe\u0301' });
      } finally {
        (fake.peers.identity as unknown as Record<string, unknown>).login = login;
      }
      expect(seen).toBe('cafe\u0301');
    });

    it('free text keeps its line breaks but not other control characters', async () => {
      const ok = { name: 'A', email: 'a@example.com', topic: 'Feedback', message: 'line one\nline two' };
      // The stand-in identity has no contact route: a 500 here would mean the rule let it through.
      expect((await json('POST', '/contact', { ...ok, message: 'bell\u0007' })).status).toBe(400);
      expect((await json('POST', '/contact', { ...ok, name: 'esc\u001b[31m' })).status).toBe(400);
    });

    it('a lone surrogate is refused', async () => {
      const res = await json('POST', '/auth/login', '{"email":"a\\ud800@example.com","password":"x"}');
      expect(res.status).toBe(400);
      expect(((await res.json()) as { code: string }).code).toBe('invalid_text');
    });
  });

  it('a credits offer must be whole credits: 0.5 is a 400, not rounded to 1', async () => {
    const admin = fake.user();
    // Offers are admin routes: make this caller an admin for the session cache.
    const auth = (fake.peers.identity as unknown as Record<string, (r: { sessionToken: string }) => Promise<{ user: object }>>)
      .authenticate;
    (fake.peers.identity as unknown as Record<string, unknown>).authenticate = async (r: { sessionToken: string }) => {
      const { user } = await auth!(r);
      return { user: { ...user, isAdmin: true } };
    };
    try {
      const clip = crypto.randomUUID();
      const half = await json('POST', `/admin/footage-marketplace/${clip}/offer`, { type: 'credits', amount: 0.5 }, admin.token);
      expect(half.status).toBe(400);
      expect(((await half.json()) as { detail: string }).detail).toContain('whole number of credits');
      const cents = await json('POST', `/admin/footage-marketplace/${clip}/offer`, { type: 'cash', amount: 0.105 }, admin.token);
      expect(cents.status).toBe(400);
      expect(fake.offers).toEqual([]);
    } finally {
      (fake.peers.identity as unknown as Record<string, unknown>).authenticate = auth;
    }
  });

  describe("the framework's own errors use our shape", () => {
    it('an over-long path id is a 414 that does not echo the URL', async () => {
      const u = fake.user();
      const long = 'x'.repeat(5000) + 'SECRETMARK';
      const res = await fetch(`${base}/library/${long}`, { method: 'DELETE', headers: { authorization: `Bearer ${u.token}` } });
      expect(res.status).toBe(414);
      const text = await res.text();
      expect(JSON.parse(text)).toEqual({ detail: 'The address is too long.', code: 'uri_too_long' });
      expect(text).not.toContain('SECRETMARK');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    });

    it('413, unknown routes and unknown methods answer {detail, code}', async () => {
      const big = await json('POST', '/auth/login', JSON.stringify({ email: 'a@b.c', password: 'x'.repeat(2 * 1024 * 1024) }));
      expect(big.status).toBe(413);
      expect(await big.json()).toEqual({ detail: 'Request body too large', code: 'payload_too_large' });
      const unknown = await fetch(`${base}/no-such-route`);
      expect(unknown.status).toBe(404);
      expect(await unknown.json()).toEqual({ detail: 'Not found', code: 'not_found' });
      const method = await fetch(`${base}/health`, { method: 'PATCH' });
      expect([404, 405]).toContain(method.status);
      expect(Object.keys((await method.json()) as object).sort()).toEqual(['code', 'detail']);
    });
  });

  it('the sign-in answer, which carries a session token, is never cached', async () => {
    const u = fake.user();
    const res = await json('POST', '/auth/login', { email: u.email, password: 'right password' });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { session_token: string }).session_token).toBeTruthy();
    expect(res.headers.get('cache-control')).toBe('no-store');
  });
});
