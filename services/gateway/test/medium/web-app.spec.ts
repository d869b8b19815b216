import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import zlib from 'node:zlib';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { createMetrics } from '@reelsmith/kit';
import { quietLogger, tempDir } from '@reelsmith/kit/testing';
import { buildHttpApp } from '../../src/transport/http/server';

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The bytes as sent (still compressed when content-encoding says so). */
  body: Buffer;
}

/** A raw request: fetch would add its own Accept-Encoding and decompress. */
function request(base: string, route: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${base}${route}`, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Writes a file of a build folder, making its folders. */
const writeIn = (dir: string) => (name: string, text: string | Buffer) => {
  fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
  fs.writeFileSync(path.join(dir, name), text);
};

/** The gateway serving the build in `webDist` on a free port. */
async function serveBuild(webDist: string): Promise<{ app: FastifyInstance; base: string }> {
  const app = await buildHttpApp({
    log: quietLogger(),
    metrics: createMetrics('gateway'),
    webDist,
    health: { report: async () => ({ status: 'healthy', services: { gateway: 'SERVING' }, unavailable: [], instance: 'web-test' }) },
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  return { app, base: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}` };
}

// The gateway serving a web build laid out as `npm run build` writes it.
describe('gateway serving the web app', () => {
  const web = tempDir('web-dist');
  const page = '<!doctype html><html><body><div id="root"></div></body></html>';
  const script = `console.log(${JSON.stringify('reelsmith '.repeat(200))});`;
  let app: FastifyInstance;
  let base: string;

  beforeAll(async () => {
    const write = writeIn(web.dir);
    write('index.html', page);
    write('routes.json', JSON.stringify({ pages: ['/', '/guide', '/hall-of-fame', '/verify-email', '/reels/:id'] }));
    write('robots.txt', 'User-agent: *\nAllow: /\n');
    write('favicon.svg', '<svg xmlns="http://www.w3.org/2000/svg"/>');
    write('assets/app-1a2b.js', script);
    write('assets/app-1a2b.js.br', zlib.brotliCompressSync(script));
    write('assets/app-1a2b.js.gz', zlib.gzipSync(script));
    write('assets/app-1a2b.js.map', '{"version":3}');
    write('assets/small-3c4d.css', 'body{}');
    ({ app, base } = await serveBuild(web.dir));
  });
  afterAll(async () => {
    await app?.close();
    web.remove();
  });

  it('sends a hashed asset brotli- or gzip-compressed as accepted, cached for a year', async () => {
    const br = await request(base, '/assets/app-1a2b.js', { 'accept-encoding': 'gzip, deflate, br' });
    expect(br.status).toBe(200);
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers['content-type']).toMatch(/^(text|application)\/javascript/);
    expect(br.headers.vary).toMatch(/accept-encoding/i);
    expect(br.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(zlib.brotliDecompressSync(br.body).toString()).toBe(script);

    const gz = await request(base, '/assets/app-1a2b.js', { 'accept-encoding': 'gzip' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(zlib.gunzipSync(gz.body).toString()).toBe(script);

    const plain = await request(base, '/assets/app-1a2b.js');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.toString()).toBe(script);
    expect(plain.headers['cache-control']).toBe('public, max-age=31536000, immutable');

    // A file too small to have compressed copies goes out as it is, whatever is accepted.
    const small = await request(base, '/assets/small-3c4d.css', { 'accept-encoding': 'br, gzip' });
    expect(small.status).toBe(200);
    expect(small.headers['content-encoding']).toBeUndefined();
    expect(small.body.toString()).toBe('body{}');
  });

  it('answers 404 for unknown assets, source maps and the compressed copies themselves, never the page', async () => {
    for (const route of ['/assets/missing-9z9z.js', '/assets/app-1a2b.js.map', '/assets/app-1a2b.js.br', '/assets', '/assets/']) {
      const res = await request(base, route, { 'accept-encoding': 'br, gzip' });
      expect({ route, status: res.status, page: res.body.toString().includes('<div id="root">') }).toEqual({
        route,
        status: 404,
        page: false,
      });
      expect(res.headers['cache-control'] ?? '').not.toContain('immutable');
    }
  });

  it('serves every page of the app with index.html, revalidated, and unknown pages with it and status 404', async () => {
    for (const route of ['/', '/guide', '/guide//', '/hall-of-fame/', '/verify-email?token=x', '/reels/abc']) {
      const res = await request(base, route);
      expect({ route, status: res.status }).toEqual({ route, status: 200 });
      expect(res.body.toString()).toBe(page);
      expect(res.headers['cache-control']).toBe('no-cache');
      expect(res.headers['content-type']).toMatch(/^text\/html/);
    }
    for (const route of ['/no/such/page', '/Guide', '/guide/extra', '/reels', '/index.html', '/routes.json', '/apiary', '/assetsy']) {
      const res = await request(base, route);
      expect({ route, status: res.status }).toEqual({ route, status: 404 });
      expect(res.body.toString()).toBe(page);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.headers['cache-control']).toBe('no-cache');
    }
  });

  it('never answers API or socket paths with the page', async () => {
    for (const route of ['/api/v1/no-such-thing', '/api/v2/health', '/api', '/api/', '/ws/x']) {
      const res = await request(base, route);
      expect({ route, status: res.status }).toEqual({ route, status: 404 });
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.body.toString()).not.toContain('<div id="root">');
    }
  });

  it('serves robots.txt and the favicon', async () => {
    const robots = await request(base, '/robots.txt');
    expect(robots.status).toBe(200);
    expect(robots.headers['content-type']).toMatch(/^text\/plain/);
    expect(robots.body.toString()).toBe('User-agent: *\nAllow: /\n');
    const icon = await request(base, '/favicon.svg');
    expect(icon.status).toBe(200);
    expect(icon.headers['content-type']).toBe('image/svg+xml');
  });

  it('answers HEAD wherever GET answers, with the same status and headers and no body', async () => {
    for (const [route, status] of [
      ['/', 200],
      ['/guide', 200],
      ['/no/such/page', 404],
      ['/assets/app-1a2b.js', 200],
      ['/assets/missing-9z9z.js', 404],
      ['/robots.txt', 200],
      ['/api/v1/health', 200],
    ] as const) {
      const get = await request(base, route, { 'accept-encoding': 'br' });
      const head = await request(base, route, { 'accept-encoding': 'br' }, 'HEAD');
      expect({ route, status: head.status }).toEqual({ route, status });
      expect(head.body.length).toBe(0);
      for (const name of ['content-type', 'content-encoding', 'cache-control', 'vary'])
        expect({ route, name, value: head.headers[name] }).toEqual({ route, name, value: get.headers[name] });
    }
  });
});

// The build's per-page copies of index.html (web/build/page-routes.ts): each page path gets the
// copy that preloads its own code, so the page's chunks download beside the entry.
describe("gateway serving each page's own copy of index.html", () => {
  const web = tempDir('web-pages');
  const page = (name: string) =>
    `<!doctype html><html><head><link rel="modulepreload" href="/assets/${name}.js"></head><body>${'x'.repeat(600)}</body></html>`;
  let app: FastifyInstance;
  let base: string;

  beforeAll(async () => {
    const write = writeIn(web.dir);
    write('index.html', page('index'));
    write('pages/guide.html', page('GuidePage'));
    write('pages/guide.html.br', zlib.brotliCompressSync(page('GuidePage')));
    write('pages/reels.html', page('ReelsPage'));
    write('secret.html', 'not a page');
    write(
      'routes.json',
      JSON.stringify({
        pages: ['/', '/guide', '/reels/:id', '/about', '/contact'],
        // /about names a file outside pages/ and /contact one that is missing: both get index.html.
        html: {
          '/guide': 'pages/guide.html',
          '/reels/:id': 'pages/reels.html',
          '/about': '../secret.html',
          '/contact': 'pages/contact.html',
        },
      }),
    );
    ({ app, base } = await serveBuild(web.dir));
  });
  afterAll(async () => {
    await app?.close();
    web.remove();
  });

  it("sends a page's own copy at its path (a trailing slash, a parameter), compressed when accepted", async () => {
    for (const [route, name] of [
      ['/guide', 'GuidePage'],
      ['/guide/', 'GuidePage'],
      ['/reels/abc', 'ReelsPage'],
      ['/', 'index'],
      ['/about', 'index'],
      ['/contact', 'index'],
    ] as const) {
      const res = await request(base, route);
      expect({ route, status: res.status, body: res.body.toString() }).toEqual({ route, status: 200, body: page(name) });
      expect(res.headers['cache-control']).toBe('no-cache');
    }
    const br = await request(base, '/guide', { 'accept-encoding': 'br' });
    expect(br.headers['content-encoding']).toBe('br');
    expect(zlib.brotliDecompressSync(br.body).toString()).toBe(page('GuidePage'));
  });

  it('never serves the copies at their own paths, and a path that is no page gets index.html with 404', async () => {
    for (const route of ['/pages/guide.html', '/pages/reels.html', '/secret.html/x', '/nope']) {
      const res = await request(base, route);
      expect({ route, status: res.status, body: res.body.toString() }).toEqual({ route, status: 404, body: page('index') });
    }
  });
});
