import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import net from 'node:net';
import path from 'node:path';
import { Readable } from 'node:stream';
import { LocalObjectStore, S3ObjectStore, type ObjectStore } from '../../src/storage';
import { tempDir, waitFor } from '../../src/testing';

const MB = 1024 * 1024;

/** A deterministic 200 MB stream made on the fly, so the test never holds it in memory. */
function bigStream(bytes: number): { stream: Readable; digest: () => string } {
  const hash = crypto.createHash('sha256');
  const block = crypto.randomBytes(MB);
  let sent = 0;
  const stream = new Readable({
    read() {
      if (sent >= bytes) return this.push(null);
      const chunk = Buffer.from(block);
      chunk.writeUInt32LE(sent / MB, 0);
      sent += chunk.length;
      hash.update(chunk);
      this.push(chunk);
    },
  });
  return { stream, digest: () => hash.digest('hex') };
}

async function sha(stream: Readable): Promise<{ hex: string; size: number }> {
  const h = crypto.createHash('sha256');
  let size = 0;
  for await (const c of stream) {
    h.update(c as Buffer);
    size += (c as Buffer).length;
  }
  return { hex: h.digest('hex'), size };
}

/** Peak growth of this process' resident memory while `fn` runs. */
async function peakRssGrowth(fn: () => Promise<void>): Promise<number> {
  global.gc?.();
  const base = process.memoryUsage().rss;
  let peak = base;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
  try {
    await fn();
  } finally {
    clearInterval(timer);
  }
  return peak - base;
}

async function behaves(store: ObjectStore) {
  await store.ping();
  const info = await store.put('uploads/2026-11-21/a.txt', Buffer.from('hello'));
  expect(info.size).toBe(5);
  expect((await store.stat('uploads/2026-11-21/a.txt'))?.size).toBe(5);
  expect((await sha(await store.get('uploads/2026-11-21/a.txt'))).size).toBe(5);
  await store.delete('uploads/2026-11-21/a.txt');
  expect(await store.stat('uploads/2026-11-21/a.txt')).toBeNull();
  await expect(store.get('uploads/2026-11-21/a.txt')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  await expect(store.put('../escape', Buffer.from('x'))).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });

  // A folder goes at once (an upload's cached frames), and only that folder.
  const frames = ['frames/uploads/u/a.mp4/0.jpg', 'frames/uploads/u/a.mp4/500.jpg', 'frames/uploads/u/a.mp4/x/1.jpg'];
  for (const k of [...frames, 'frames/uploads/u/a.mp4.jpg', 'frames/uploads/u/ab.mp4/0.jpg']) await store.put(k, Buffer.from(k));
  expect(await store.deletePrefix('frames/uploads/u/a.mp4/')).toBe(3);
  for (const k of frames) expect(await store.stat(k)).toBeNull();
  expect(await store.stat('frames/uploads/u/a.mp4.jpg')).not.toBeNull();
  expect(await store.stat('frames/uploads/u/ab.mp4/0.jpg')).not.toBeNull();
  expect(await store.deletePrefix('frames/uploads/u/a.mp4/')).toBe(0);
  await expect(store.deletePrefix('frames/uploads/u')).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  await expect(store.deletePrefix('../')).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  for (const k of ['frames/uploads/u/a.mp4.jpg', 'frames/uploads/u/ab.mp4/0.jpg']) await store.delete(k);
}

// Well under the object's 200 MB, so a store that buffered it whole fails; the margin is for the
// multipart parts in flight and for a machine running other tests beside (126 MB was seen there).
const BOUNDED_GROWTH = 160 * MB;

async function movesBigObject(store: ObjectStore) {
  const src = bigStream(200 * MB);
  let growth = await peakRssGrowth(async () => {
    const info = await store.put('big/object.bin', src.stream);
    expect(info.size).toBe(200 * MB);
  });
  expect(growth).toBeLessThan(BOUNDED_GROWTH);
  let got = { hex: '', size: 0 };
  growth = await peakRssGrowth(async () => {
    got = await sha(await store.get('big/object.bin'));
  });
  expect(got.size).toBe(200 * MB);
  expect(got.hex).toBe(src.digest());
  expect(growth).toBeLessThan(BOUNDED_GROWTH);
  await store.delete('big/object.bin');
}

describe('local disk store', () => {
  const t = tempDir('store');
  const store = new LocalObjectStore({ root: t.dir, signingSecret: 's'.repeat(32), publicUrl: 'http://localhost:8080' });
  afterAll(() => t.remove());

  it('puts, gets, stats and deletes', () => behaves(store));
  it('streams a 200 MB object with bounded memory', () => movesBigObject(store), 120_000);
  it('signs links that point at the gateway file route and expire', async () => {
    const url = new URL(await store.signedUrl('reels/x.mp4', { expiresInSeconds: 60, downloadName: 'reel.mp4' }));
    expect(url.pathname).toBe('/api/v1/files/reels/x.mp4');
    expect(Number(url.searchParams.get('expires'))).toBeGreaterThan(Date.now() / 1000);
    expect(url.searchParams.get('sig')).toBeTruthy();
  });
  it('leaves no partial file when the upload stream fails', async () => {
    const failing = new Readable({
      read() {
        this.destroy(new Error('client went away'));
      },
    });
    await expect(store.put('uploads/broken.bin', failing)).rejects.toThrow('client went away');
    expect(await store.stat('uploads/broken.bin')).toBeNull();
  });
});

describe('S3 store against an S3 endpoint (s3rver)', () => {
  const t = tempDir('s3rver');
  let child: ChildProcess;
  let store: S3ObjectStore;

  beforeAll(async () => {
    const port = await new Promise<number>((resolve) => {
      const srv = net.createServer().listen(0, '127.0.0.1', () => {
        const p = (srv.address() as net.AddressInfo).port;
        srv.close(() => resolve(p));
      });
    });
    const bin = path.join(path.dirname(require.resolve('s3rver/package.json')), 'bin', 's3rver.js');
    child = spawn(
      process.execPath,
      [bin, '--directory', t.dir, '--port', String(port), '--address', '127.0.0.1', '--silent', '--configure-bucket', 'reelsmith'],
      { stdio: 'ignore' },
    );
    store = new S3ObjectStore({
      endpoint: `http://127.0.0.1:${port}`,
      region: 'us-east-1',
      bucket: 'reelsmith',
      accessKeyId: 'S3RVER',
      secretAccessKey: 'S3RVER',
      forcePathStyle: true,
    });
    await waitFor(
      async () =>
        store.ping().then(
          () => true,
          () => false,
        ),
      15_000,
      200,
    );
  });
  afterAll(() => {
    child.kill();
    t.remove();
  });

  it('puts, gets, stats and deletes', () => behaves(store));
  it('streams a 200 MB object with bounded memory (multipart upload)', () => movesBigObject(store), 180_000);
  it('signs a time-limited link that downloads the object, and an expired one fails', async () => {
    await store.put('reels/signed.mp4', Buffer.from('reel-bytes'));
    const url = await store.signedUrl('reels/signed.mp4', { expiresInSeconds: 60, downloadName: 'my reel.mp4' });
    const ok = await fetch(url);
    expect(ok.status).toBe(200);
    expect(await ok.text()).toBe('reel-bytes');
    expect(ok.headers.get('content-disposition')).toContain('my reel.mp4');
    const short = await store.signedUrl('reels/signed.mp4', { expiresInSeconds: 1 });
    await new Promise((r) => setTimeout(r, 2100));
    expect((await fetch(short)).status).toBe(403);
  });
});
