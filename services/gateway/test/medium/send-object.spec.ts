import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import Fastify, { type FastifyInstance } from 'fastify';
import { LocalObjectStore, type ObjectStore } from '@reelsmith/kit';
import { tempDir } from '@reelsmith/kit/testing';
import { sendStoredObject } from '../../src/transport/http/send-object';

// The gateway's one way of answering with stored bytes, on a real HTTP server.
describe('sendStoredObject', () => {
  const objects = tempDir('send-object');
  const local = new LocalObjectStore({ root: objects.dir, signingSecret: 'k'.repeat(32), publicUrl: 'http://localhost:8080' });
  const bytes = Buffer.from(Array.from({ length: 1000 }, (_, i) => i % 251));
  // An S3 store as the route sees it: what it would sign, and the bytes it would stream.
  const signed: string[] = [];
  let s3Reads = 0;
  const s3 = {
    kind: 's3',
    signedUrl: async (key: string, o: { expiresInSeconds: number }) => {
      signed.push(`${key}:${o.expiresInSeconds}`);
      return `https://bucket.example/${key}?sig=1`;
    },
    stat: async () => ({ size: bytes.length }),
    get: async () => {
      s3Reads++;
      return Readable.from([bytes]);
    },
  } as unknown as ObjectStore;
  let app: FastifyInstance;
  let base: string;

  beforeAll(async () => {
    await local.put('clips/a.mp4', bytes);
    app = Fastify();
    app.get<{ Querystring: { key: string; s3?: string; redirect?: string } }>('/obj', (req, reply) =>
      sendStoredObject(req.query.s3 ? s3 : local, reply, {
        key: req.query.key,
        type: 'video/mp4',
        range: req.headers.range,
        cacheControl: 'private, no-store',
        notFound: { detail: 'Clip not found.', code: 'clip_not_found' },
        s3RedirectSeconds: req.query.redirect ? 600 : undefined,
      }),
    );
    await app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await app?.close();
    objects.remove();
  });

  const get = (query: string, range?: string) => fetch(`${base}/obj?${query}`, { headers: range ? { range } : {}, redirect: 'manual' });

  it('sends the whole object, or the range asked for, with its type and cache header', async () => {
    const whole = await get('key=clips/a.mp4');
    expect([
      whole.status,
      whole.headers.get('content-type'),
      whole.headers.get('cache-control'),
      whole.headers.get('accept-ranges'),
    ]).toEqual([200, 'video/mp4', 'private, no-store', 'bytes']);
    expect(Buffer.from(await whole.arrayBuffer()).equals(bytes)).toBe(true);
    const tail = await get('key=clips/a.mp4', 'bytes=-10');
    expect([tail.status, tail.headers.get('content-range')]).toEqual([206, 'bytes 990-999/1000']);
    expect(Buffer.from(await tail.arrayBuffer()).equals(bytes.subarray(990))).toBe(true);
  });

  it('ignores a Range it does not serve (several ranges, another unit) and answers 416 past the end', async () => {
    for (const range of ['bytes=0-1,5-6', 'items=0-1', 'bytes=-']) {
      const r = await get('key=clips/a.mp4', range);
      expect({ range, status: r.status, length: (await r.arrayBuffer()).byteLength }).toEqual({ range, status: 200, length: 1000 });
    }
    const past = await get('key=clips/a.mp4', 'bytes=1000-');
    expect([past.status, past.headers.get('content-range'), await past.json()]).toEqual([
      416,
      'bytes */1000',
      { detail: 'Range not satisfiable', code: 'range_not_satisfiable' },
    ]);
  });

  it('answers a HEAD with the headers only, without reading the object', async () => {
    for (const query of ['key=clips/a.mp4', 'key=clips/a.mp4&s3=1']) {
      const r = await fetch(`${base}/obj?${query}`, { method: 'HEAD' });
      expect([r.status, r.headers.get('content-length'), r.headers.get('accept-ranges')]).toEqual([200, '1000', 'bytes']);
      const part = await fetch(`${base}/obj?${query}`, { method: 'HEAD', headers: { range: 'bytes=0-9' } });
      expect([part.status, part.headers.get('content-length'), part.headers.get('content-range')]).toEqual([206, '10', 'bytes 0-9/1000']);
    }
    expect(s3Reads).toBe(0);
  });

  it("answers the caller's 404 for a missing object", async () => {
    const r = await get('key=clips/gone.mp4');
    expect([r.status, await r.json()]).toEqual([404, { detail: 'Clip not found.', code: 'clip_not_found' }]);
  });

  it('redirects to a signed S3 link when asked to, and streams from S3 otherwise', async () => {
    const r = await get('key=clips/a.mp4&s3=1&redirect=1', 'bytes=0-9');
    expect([r.status, r.headers.get('location')]).toEqual([302, 'https://bucket.example/clips/a.mp4?sig=1']);
    expect(signed).toEqual(['clips/a.mp4:600']);
    const streamed = await get('key=clips/a.mp4&s3=1');
    expect(streamed.status).toBe(200);
    expect(Buffer.from(await streamed.arrayBuffer()).equals(bytes)).toBe(true);
    expect(signed).toHaveLength(1);
  });
});
