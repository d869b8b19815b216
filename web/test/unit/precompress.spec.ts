import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { MIN_BYTES, precompressDir } from '../../build/precompress';

describe('precompressing the build', () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'precompress-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('writes brotli and gzip copies beside each text file, in sub-folders too, that decompress to the original', async () => {
    const script = 'export const x = "reel";\n'.repeat(100);
    fs.mkdirSync(path.join(dir, 'assets'));
    fs.writeFileSync(path.join(dir, 'assets', 'index-abc.js'), script);
    fs.writeFileSync(path.join(dir, 'index.html'), `<!doctype html>${'<p>reel</p>'.repeat(100)}`);
    const written = await precompressDir(dir);
    expect(written.map((w) => w.file).sort()).toEqual([path.join('assets', 'index-abc.js'), 'index.html']);
    expect(zlib.brotliDecompressSync(fs.readFileSync(path.join(dir, 'assets', 'index-abc.js.br'))).toString()).toBe(script);
    expect(zlib.gunzipSync(fs.readFileSync(path.join(dir, 'assets', 'index-abc.js.gz'))).toString()).toBe(script);
    const js = written.find((w) => w.file.endsWith('.js'))!;
    expect(js.br).toBeLessThan(js.bytes / 10);
    expect(js.gz).toBeLessThan(js.bytes / 10);
    expect(fs.existsSync(path.join(dir, 'index.html.br'))).toBe(true);
  });

  it('leaves alone images, tiny files and files that do not shrink', async () => {
    fs.writeFileSync(path.join(dir, 'photo.png'), Buffer.alloc(4096, 7));
    fs.writeFileSync(path.join(dir, 'robots.txt'), 'User-agent: *\nAllow: /\n');
    // Random bytes do not compress: a copy larger than the original is not kept.
    fs.writeFileSync(path.join(dir, 'noise.json'), crypto.randomBytes(MIN_BYTES * 8));
    await precompressDir(dir);
    expect(fs.readdirSync(dir).sort()).toEqual(['noise.json', 'photo.png', 'robots.txt']);
    expect(fs.existsSync(path.join(dir, 'photo.png.br'))).toBe(false);
    expect(fs.existsSync(path.join(dir, 'robots.txt.gz'))).toBe(false);
  });
});
