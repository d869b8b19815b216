import fs from 'node:fs';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { io as connect } from 'socket.io-client';
import { DomainError, ErrorCode, createMetrics } from '@reelsmith/kit';
import { quietLogger, tempDir } from '@reelsmith/kit/testing';
import { SessionVerifier } from '../../src/domain/sessions';
import type { Peers } from '../../src/repositories/clients';
import { MiniRedis } from '../../src/repositories/redis';
import { buildHttpApp } from '../../src/transport/http/server';
import { mountSocket } from '../../src/transport/socket';

/** A signed-in user per token "user-N"; a job service that creates jobs. */
const catalogueCalls = { n: 0 };

function fakePeers() {
  let created = 0;
  const peers = {
    identity: {
      authenticate: async ({ sessionToken }: { sessionToken: string }) => {
        if (!sessionToken.startsWith('user-')) throw new DomainError(ErrorCode.UNAUTHENTICATED, 'expired', 'session_expired');
        return { user: { id: sessionToken, email: `${sessionToken}@example.com`, isAdmin: false, isGuest: false, unlimited: false } };
      },
    },
    jobs: { createJob: async () => ({ jobId: `00000000-0000-4000-8000-${String(++created).padStart(12, '0')}` }) },
    billing: {
      getCatalogue: async () => {
        catalogueCalls.n += 1;
        return { plans: [], packs: [] };
      },
      getAccount: async () => ({ account: { entitlements: { uploadCapBytes: 1_000_000n, uploadLimitMessage: 'Too big' } } }),
    },
    media: {
      registerUpload: async (r: { objectKey: string; displayName: string }) => ({
        objectKey: r.objectKey,
        kind: 'video',
        displayName: r.displayName,
        sizeBytes: 5n,
        durationSec: 1,
        width: 2,
        height: 2,
      }),
    },
    close: () => undefined,
  };
  return peers as unknown as Peers;
}

const JOB = {
  video_files: ['uploads/u/a.mp4'],
  pacing_preset: 'standard',
};

describe('gateway hardening: headers, HEAD, socket origins, rate limits', () => {
  const web = tempDir('gw-web');
  const objects = tempDir('gw-obj');
  let app: FastifyInstance;
  let base: string;
  let port: number;
  let limited: string[] = [];

  beforeAll(async () => {
    fs.writeFileSync(
      path.join(web.dir, 'index.html'),
      '<!doctype html><div id="root"></div><script type="module" src="/assets/app.js"></script>',
    );
    fs.mkdirSync(path.join(web.dir, 'assets'));
    fs.writeFileSync(path.join(web.dir, 'assets', 'app.js'), 'console.log(1)');
    const peers = fakePeers();
    const { LocalObjectStore } = await import('@reelsmith/kit');
    const store = new LocalObjectStore({ root: objects.dir, signingSecret: 's'.repeat(32), publicUrl: 'http://localhost:8080' });
    app = await buildHttpApp({
      log: quietLogger(),
      metrics: createMetrics('gw_hardening'),
      webDist: web.dir,
      health: { report: async () => ({ status: 'healthy', services: {}, unavailable: [], instance: 'x' }) },
      peers,
      store,
      files: { store, signingSecret: 's'.repeat(32) },
      publicUrl: 'http://localhost:8080',
      onRateLimited: (route) => limited.push(route),
    });
    mountSocket(app.server, {
      log: quietLogger(),
      allowedOrigins: ['http://localhost:8080', 'https://app.example.com'],
      peers,
      sessions: new SessionVerifier(async (t) => ({ id: t, email: '', isAdmin: false, isGuest: false, unlimited: false }), {
        maxEntries: 10,
        ttlMs: 1000,
      }),
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    port = (app.server.address() as AddressInfo).port;
    base = `http://127.0.0.1:${port}`;
  });
  afterAll(async () => {
    await app.close();
    web.remove();
    objects.remove();
  });

  const expectSecurityHeaders = (res: Response) => {
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("object-src 'none'");
    expect(csp).toMatch(/script-src 'self' https:\/\/js\.stripe\.com/);
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).not.toContain('upgrade-insecure-requests'); // served over http here
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('referrer-policy')).toBe('strict-origin-when-cross-origin');
    expect(res.headers.get('strict-transport-security')).toBeNull(); // PUBLIC_URL is http
  };

  it("puts the page's security headers on HTML pages and assets", async () => {
    for (const url of ['/', '/my-reels', '/assets/app.js']) {
      const res = await fetch(base + url);
      expectSecurityHeaders(res);
    }
  });

  // What a document needs (its script, style and frame origins, COOP...) means nothing on JSON,
  // which is never rendered as one: API answers carry the REST set (OWASP REST Security Cheat Sheet).
  const expectApiSecurityHeaders = (res: Response) => {
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.headers.get('content-security-policy')).toBe("default-src 'none'; frame-ancestors 'none'");
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('cross-origin-resource-policy')).toBe('same-site');
    expect(res.headers.get('referrer-policy')).toBe('strict-origin-when-cross-origin');
    expect(res.headers.get('strict-transport-security')).toBeNull(); // PUBLIC_URL is http
    expect(res.headers.get('cross-origin-opener-policy')).toBeNull();
  };

  it('puts the API set on JSON answers, errors and 404s included: a policy that allows nothing, nosniff, no framing', async () => {
    for (const url of ['/api/v1/health', '/api/v1/nope', '/api/v1/jobs/00000000-0000-4000-8000-000000000000/status']) {
      const res = await fetch(base + url);
      expect([url, res.status]).toEqual([url, url.endsWith('health') ? 200 : url.endsWith('nope') ? 404 : 401]);
      expectApiSecurityHeaders(res);
    }
  });

  it("gives an API route's answer that is not JSON (a stored file) the page's headers", async () => {
    const { LocalObjectStore } = await import('@reelsmith/kit');
    const store = new LocalObjectStore({ root: objects.dir, signingSecret: 's'.repeat(32), publicUrl: 'http://localhost:8080' });
    await store.put('outputs/hardening.mp4', Buffer.from('mp4'));
    const link = new URL(await store.signedUrl('outputs/hardening.mp4', { expiresInSeconds: 60 }));
    const res = await fetch(base + link.pathname + link.search);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('video/mp4');
    expectSecurityHeaders(res);
  });

  it('sends HSTS only when PUBLIC_URL is https', async () => {
    const tls = await buildHttpApp({
      log: quietLogger(),
      metrics: createMetrics('gw_tls'),
      webDist: web.dir,
      health: { report: async () => ({ status: 'healthy', services: {}, unavailable: [], instance: 'x' }) },
      publicUrl: 'https://reelsmith.example.com',
    });
    await tls.listen({ port: 0, host: '127.0.0.1' });
    try {
      const res = await fetch(`http://127.0.0.1:${(tls.server.address() as AddressInfo).port}/`);
      expect(res.headers.get('strict-transport-security')).toMatch(/max-age=31536000/);
      expect(res.headers.get('content-security-policy')).toContain('upgrade-insecure-requests');
      const api = await fetch(`http://127.0.0.1:${(tls.server.address() as AddressInfo).port}/api/v1/health`);
      expect(api.headers.get('strict-transport-security')).toMatch(/max-age=31536000/);
    } finally {
      await tls.close();
    }
  });

  it('answers HEAD like GET, without a body, on web routes and static files', async () => {
    for (const url of ['/', '/pricing', '/verify-email?token=x', '/assets/app.js']) {
      const get = await fetch(base + url);
      const head = await fetch(base + url, { method: 'HEAD' });
      expect([url, head.status]).toEqual([url, get.status]);
      expect(head.status).toBe(200);
      expect(head.headers.get('content-type')).toBe(get.headers.get('content-type'));
      expect(await head.text()).toBe('');
    }
    expect((await fetch(`${base}/api/v1/health`, { method: 'HEAD' })).status).toBe(200);
  });

  it('takes a multipart upload (with the security headers) and refuses any other body with a clear 400', async () => {
    const form = new FormData();
    form.append('file', new Blob([Buffer.from('hello')], { type: 'video/mp4' }), 'clip.mp4');
    const res = await fetch(`${base}/api/v1/uploads/file`, { method: 'POST', headers: { authorization: 'Bearer user-up' }, body: form });
    expect(res.status).toBe(201);
    expectApiSecurityHeaders(res);
    const body = (await res.json()) as { object_key: string; display_name: string };
    expect(body.display_name).toBe('clip.mp4');
    expect(fs.readFileSync(path.join(objects.dir, body.object_key), 'utf8')).toBe('hello');
    const json = await fetch(`${base}/api/v1/uploads/file`, {
      method: 'POST',
      headers: { authorization: 'Bearer user-up', 'content-type': 'application/json' },
      body: '{}',
    });
    expect(json.status).toBe(400);
    expect(((await json.json()) as { code: string }).code).toBe('not_multipart');
  });

  it('serves public reads with an ETag and answers a matching If-None-Match with 304', async () => {
    const first = await fetch(`${base}/api/v1/billing/catalogue`);
    expect(first.status).toBe(200);
    expect(first.headers.get('cache-control')).toContain('max-age=');
    const etag = first.headers.get('etag')!;
    expect(etag).toBeTruthy();
    const again = await fetch(`${base}/api/v1/billing/catalogue`, { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
  });

  it('asks billing for the catalogue once a minute, not on every page view', async () => {
    const before = catalogueCalls.n;
    const answers = await Promise.all(Array.from({ length: 20 }, () => fetch(`${base}/api/v1/billing/catalogue`)));
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect(catalogueCalls.n - before).toBeLessThanOrEqual(1);
  });

  /** How a handshake from `origin` ends. */
  const handshake = (origin: string | undefined, host = `127.0.0.1:${port}`) =>
    new Promise<string>((resolve) => {
      const s = connect(`http://${host}`, {
        path: '/ws',
        transports: ['polling'],
        reconnection: false,
        forceNew: true,
        extraHeaders: origin ? { origin } : {},
      });
      s.on('connect', () => {
        s.close();
        resolve('connected');
      });
      s.on('connect_error', (e) => {
        s.close();
        resolve(`refused: ${e.message}`);
      });
    });

  it('accepts the socket from its own host as reached (127.0.0.1 and localhost), PUBLIC_URL and ALLOWED_ORIGINS, and nothing else', async () => {
    expect(await handshake(`http://127.0.0.1:${port}`)).toBe('connected');
    expect(await handshake(`http://localhost:${port}`, `localhost:${port}`)).toBe('connected');
    expect(await handshake('http://localhost:8080')).toBe('connected');
    expect(await handshake('https://app.example.com')).toBe('connected');
    expect(await handshake('https://evil.example.com')).toMatch(/^refused/);
    expect(await handshake(`http://localhost:${port}`)).toMatch(/^refused/); // another host than the one reached
    expect(await handshake(undefined)).toBe('connected'); // non-browser clients
  });

  it('rate limits job submits per user: 429 with Retry-After and a plain message; other users unaffected', async () => {
    limited = [];
    const submit = (token: string) =>
      fetch(`${base}/api/v1/jobs/assemble`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(JOB),
      });
    const statuses: number[] = [];
    let last: Response | undefined;
    for (let i = 0; i < 11; i++) {
      last = await submit('user-a');
      statuses.push(last.status);
    }
    expect(statuses.slice(0, 10).every((s) => s === 200)).toBe(true);
    expect(statuses[10]).toBe(429);
    expect(Number(last!.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await last!.json()).toEqual({
      detail: expect.stringMatching(/^Too many requests\. Please wait \d+ seconds? and try again\.$/),
      code: 'rate_limited',
    });
    expect(limited).toEqual(['/api/v1/jobs/assemble']);
    expect((await submit('user-b')).status).toBe(200);
  });

  it('shares the counts across gateway replicas through Redis when configured', async () => {
    const replicas: Array<{ app: FastifyInstance; redis: MiniRedis; base: string }> = [];
    for (let i = 0; i < 2; i++) {
      const redis = new MiniRedis(process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379');
      const { LocalObjectStore } = await import('@reelsmith/kit');
      const a = await buildHttpApp({
        log: quietLogger(),
        metrics: createMetrics(`gw_redis_${i}`),
        webDist: web.dir,
        health: { report: async () => ({ status: 'healthy', services: {}, unavailable: [], instance: 'x' }) },
        peers: fakePeers(),
        store: new LocalObjectStore({ root: objects.dir, signingSecret: 's'.repeat(32), publicUrl: 'http://localhost:8080' }),
        rateLimitRedis: redis,
      });
      await a.listen({ port: 0, host: '127.0.0.1' });
      replicas.push({ app: a, redis, base: `http://127.0.0.1:${(a.server.address() as AddressInfo).port}` });
    }
    try {
      const token = `user-${Math.random().toString(36).slice(2)}`;
      // The same submit as the per-user case above on purpose: this one alternates between two replicas sharing Redis.
      const submit = (b: string) =>
        fetch(`${b}/api/v1/jobs/assemble`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify(JOB),
        });
      const statuses: number[] = [];
      for (let i = 0; i < 11; i++) statuses.push((await submit(replicas[i % 2]!.base)).status);
      expect(statuses.slice(0, 10).every((x) => x === 200)).toBe(true);
      const last = statuses[10];
      expect(last).toBe(429);
    } finally {
      for (const r of replicas) {
        await r.app.close();
        r.redis.close();
      }
    }
  });
});
