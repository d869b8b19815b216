import fs from 'node:fs';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { io as connect } from 'socket.io-client';
import { HealthMonitor, LocalObjectStore, createMetrics, serveGrpc, type RunningGrpcServer } from '@reelsmith/kit';
import { quietLogger, tempDir } from '@reelsmith/kit/testing';
import { rollUp } from '../../src/domain/health';
import { peerStatuses } from '../../src/repositories/peers.repository';
import { buildHttpApp } from '../../src/transport/http/server';
import { mountSocket } from '../../src/transport/socket';

describe('gateway HTTP surface', () => {
  const web = tempDir('web');
  const objects = tempDir('objects');
  const secret = 'k'.repeat(32);
  const store = new LocalObjectStore({ root: objects.dir, signingSecret: secret, publicUrl: 'http://localhost:8080' });
  let app: FastifyInstance;
  let base: string;
  let up = true;
  const metrics = createMetrics('gateway');
  const servers: RunningGrpcServer[] = [];
  const addresses: Record<string, string> = {};

  beforeAll(async () => {
    fs.writeFileSync(path.join(web.dir, 'index.html'), '<!doctype html><div id="root"></div>');
    fs.mkdirSync(path.join(web.dir, 'assets'));
    fs.writeFileSync(path.join(web.dir, 'assets', 'app.js'), 'console.log(1)');
    // Two real peers answering the standard health service; one can be made to fail.
    for (const name of ['identity', 'billing']) {
      const check = async () => {
        if (name === 'billing' && !up) throw new Error('database down');
      };
      const monitor = new HealthMonitor({ checks: [{ name: 'db', check }], cacheMs: 0 });
      const s = await serveGrpc({ host: '127.0.0.1', port: 0, services: [monitor.binding()], log: quietLogger(), serviceName: name });
      servers.push(s);
      addresses[name] = `127.0.0.1:${s.port}`;
    }
    addresses['telemetry'] = '127.0.0.1:1'; // a peer that is not running at all, used below
    app = await buildHttpApp({
      log: quietLogger(),
      metrics,
      webDist: web.dir,
      health: { report: async () => ({ ...rollUp({ gateway: 'SERVING', ...(await peerStatuses(selected, 1000)) }), instance: 'i-1' }) },
      files: { store, signingSecret: secret },
    });
    mountSocket(app.server, { log: quietLogger(), allowedOrigins: ['http://localhost:8080'] });
    await app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await app.close();
    await Promise.all(servers.map((s) => s.close()));
    web.remove();
    objects.remove();
  });

  let selected: Record<string, string> = {};
  beforeEach(() => {
    up = true;
    selected = { identity: addresses.identity!, billing: addresses.billing! };
  });

  it('answers 200 healthy when every service is SERVING', async () => {
    const res = await fetch(`${base}/api/v1/health`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      status: 'healthy',
      services: { gateway: 'SERVING', identity: 'SERVING', billing: 'SERVING' },
      instance: 'i-1',
    });
  });

  it('answers 503 naming the services that are not serving', async () => {
    up = false;
    selected.telemetry = addresses.telemetry!;
    const res = await fetch(`${base}/api/v1/health`);
    expect(res.status).toBe(503);
    const body = (await res.json()) as { unavailable: string[]; detail: string; services: Record<string, string> };
    expect(body.unavailable.sort()).toEqual(['billing', 'telemetry']);
    expect(body.detail).toContain('billing');
    expect(body.services.identity).toBe('SERVING');
  });

  it('echoes a request id, or makes one', async () => {
    const given = await fetch(`${base}/api/v1/health`, { headers: { 'x-request-id': 'abc-123' } });
    expect(given.headers.get('x-request-id')).toBe('abc-123');
    const made = await fetch(`${base}/api/v1/health`);
    expect(made.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('answers unknown API routes with the error shape, never the web app', async () => {
    const res = await fetch(`${base}/api/v1/no-such-thing`);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ detail: 'Not found', code: 'not_found' });
  });

  it('serves the web app with an index.html fallback for client routes', async () => {
    for (const route of ['/', '/guide', '/hall-of-fame', '/verify-email?token=x']) {
      const res = await fetch(`${base}${route}`);
      expect(res.status).toBe(200);
      expect(await res.text()).toContain('<div id="root">');
    }
    const asset = await fetch(`${base}/assets/app.js`);
    expect(await asset.text()).toBe('console.log(1)');
    expect(asset.headers.get('cache-control')).toContain('immutable');
  });

  it('serves a stored file through a signed link and refuses an altered or expired one', async () => {
    await store.put('reels/2026-11-21/r.mp4', Buffer.from('fake-mp4-bytes'));
    const url = new URL(await store.signedUrl('reels/2026-11-21/r.mp4', { expiresInSeconds: 60, downloadName: 'reel.mp4' }));
    const ok = await fetch(`${base}${url.pathname}${url.search}`);
    expect(ok.status).toBe(200);
    expect(await ok.text()).toBe('fake-mp4-bytes');
    expect(ok.headers.get('content-disposition')).toBe('attachment; filename="reel.mp4"');
    const forged = await fetch(`${base}${url.pathname.replace('r.mp4', 'x.mp4')}${url.search}`);
    expect(forged.status).toBe(403);
    url.searchParams.set('expires', String(Math.floor(Date.now() / 1000) - 1));
    expect((await fetch(`${base}${url.pathname}${url.search}`)).status).toBe(403);
  });

  it('records request durations labelled by route template, not raw URL', async () => {
    await fetch(`${base}/api/v1/health?x=1`);
    await fetch(`${base}/api/v1/files/reels/nope.mp4?sig=a&expires=1`);
    const text = await metrics.registry.metrics();
    expect(text).toMatch(/http_request_duration_seconds_count\{[^}]*route="\/api\/v1\/health"[^}]*status_code="200"/);
    expect(text).toMatch(/route="\/api\/v1\/files\/\*"/);
    expect(text).not.toContain('nope.mp4');
  });

  it('answers the socket ping and refuses a foreign Origin', async () => {
    const ok = connect(base, { path: '/ws', transports: ['websocket'], extraHeaders: { origin: 'http://localhost:8080' } });
    const pong = await new Promise<string>((resolve, reject) => {
      ok.on('connect_error', reject);
      ok.on('connect', () => ok.emit('ping', (m: string) => resolve(m)));
    });
    expect(pong).toBe('pong');
    ok.close();
    const bad = connect(base, {
      path: '/ws',
      transports: ['polling'],
      extraHeaders: { origin: 'http://evil.example' },
      reconnection: false,
    });
    const refused = await new Promise<boolean>((resolve) => {
      bad.on('connect', () => resolve(false));
      bad.on('connect_error', () => resolve(true));
    });
    bad.close();
    expect(refused).toBe(true);
  });
});
