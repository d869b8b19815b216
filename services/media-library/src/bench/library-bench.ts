/**
 * npm run bench:library
 *
 * The stock video library at 10,000 entries, through the gateway of a real `npm start`:
 *  1. imports one starter clip with the library's own import (probe, store, thumbnail, frames,
 *     analysis), then copies its row 10,000 times with distinct keys, file names and 20 categories
 *     (every copy shares the one stored clip: the bench measures listing, not storage);
 *  2. starts the product on that data (`node scripts/start.js`, a temporary DATA_DIR, embedded
 *     PostgreSQL) and measures with 4 concurrent keep-alive clients, 8 s each after a 2 s warm-up
 *     (every request timed, exact percentiles):
 *     GET /api/v1/health (the baseline: same gateway, process and network; it asks every service
 *     over gRPC, so it is not the cheapest route),
 *     GET /api/v1/video-library-detailed pages without filters (offset 0 and 5,000), with `q`,
 *     with `category`, and with both;
 *  3. prints p50/p95/p99 and each p95 against the 50 ms goal and against the baseline.
 * Nothing is asserted.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import http from 'node:http';
import { createLogger, freePort, migrate, openDatabase, readMigrations, LocalObjectStore } from '@reelsmith/kit';
import { LibraryService } from '../domain/library.service.js';
import { DrizzleLibraryRepository } from '../repositories/library.repository.js';
import { libraryObjects, libraryTools } from '../repositories/media-tools.js';

const ROOT = path.resolve(__dirname, '..', '..', '..', '..');
const ENTRIES = 10_000;
const say = (s: string) => process.stdout.write(`${s}\n`);
const WORDS = ['sunset', 'beach', 'city', 'forest', 'traffic', 'crowd', 'mountain', 'river', 'office', 'night', 'rain', 'drone'];
const CATEGORIES = Array.from({ length: 20 }, (_, i) => `category ${String(i + 1).padStart(2, '0')}`);

async function seed(dataDir: string): Promise<void> {
  const db = await openDatabase({ pgliteDir: path.join(dataDir, 'db', 'media-library') });
  await migrate(db, readMigrations(path.join(ROOT, 'services', 'media-library', 'migrations')));
  const store = new LocalObjectStore({
    root: path.join(dataDir, 'objects'),
    signingSecret: 'bench-secret-0123456789abcdef',
    publicUrl: 'http://localhost',
  });
  const lib = new LibraryService(
    new DrizzleLibraryRepository(db.orm),
    libraryObjects(store),
    libraryTools,
    createLogger({ service: 'bench', level: 'warn' }),
  );
  const clip = path.join(ROOT, 'media', 'starter', 'people', 'signing-again.mp4');
  const t0 = performance.now();
  const { item } = await lib.importFile(clip, 'signing-again.mp4', 'people');
  say(`imported one real clip in ${((performance.now() - t0) / 1000).toFixed(1)} s; copying its row ${ENTRIES} times`);
  const t1 = performance.now();
  for (let start = 0; start < ENTRIES; start += 1000) {
    const values: string[] = [];
    const params: unknown[] = [];
    for (let i = start; i < Math.min(ENTRIES, start + 1000); i++) {
      const key = `${item.key.slice(0, 12)}${i.toString(16).padStart(12, '0')}`;
      const name = `${WORDS[i % WORDS.length]}-${WORDS[(i * 7) % WORDS.length]}-${i}.mp4`;
      params.push(crypto.randomUUID(), key, name, CATEGORIES[i % CATEGORIES.length], `bench-${i}`, `library/video/bench-${i}.mp4`);
      const n = params.length;
      values.push(
        `($${n - 5}, $${n - 4}, 'video', $${n - 3}, $${n - 2}, $${n - 1}, $${n}, ${item.sizeBytes}, ${item.durationSec}, ${item.width}, ${item.height}, '${item.thumbnailKey}', array[${item.previewFrameKeys.map((k) => `'${k}'`).join(',')}]::text[], 'done')`,
      );
    }
    await db.query(
      `insert into library_items (id, key, kind, filename, category, content_hash, object_key, size_bytes, duration_sec, width, height, thumbnail_key, preview_frame_keys, analysis_status) values ${values.join(',')}`,
      params,
    );
  }
  await db.query('analyze library_items');
  say(`${ENTRIES} entries in ${((performance.now() - t1) / 1000).toFixed(1)} s`);
  await db.close();
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });

/** One GET, timed from sending to the last byte. */
function timedGet(url: string): Promise<{ ms: number; status: number; bytes: number }> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent }, (res) => {
        let bytes = 0;
        res.on('data', (c: Buffer) => (bytes += c.length));
        res.on('end', () => resolve({ ms: performance.now() - t0, status: res.statusCode ?? 0, bytes }));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

async function load(url: string, seconds: number, clients = 4) {
  const samples: number[] = [];
  let errors = 0;
  let bytes = 0;
  const end = performance.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (performance.now() < end) {
        const r = await timedGet(url);
        samples.push(r.ms);
        bytes += r.bytes;
        if (r.status !== 200) errors++;
      }
    }),
  );
  return { samples, errors, bytes };
}

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;

async function measure(url: string) {
  await load(url, 2);
  const r = await load(url, 8);
  const sorted = r.samples.sort((a, b) => a - b);
  return {
    p50: pct(sorted, 50),
    p95: pct(sorted, 95),
    p99: pct(sorted, 99),
    rps: sorted.length / 8,
    errors: r.errors,
    bytes: r.bytes / Math.max(sorted.length, 1),
  };
}

/** `--seed-only`: the seed, then the repository's queries in this process (no product started). */
async function seedOnly(dataDir: string): Promise<void> {
  await seed(dataDir);
  const db = await openDatabase({ pgliteDir: path.join(dataDir, 'db', 'media-library') });
  const lib = new LibraryService(
    new DrizzleLibraryRepository(db.orm),
    undefined as never,
    libraryTools,
    createLogger({ service: 'bench', level: 'warn' }),
  );
  const t0 = performance.now();
  await lib.list('video', '', '', 1, 0);
  say(`catalogue of ${ENTRIES} entries loaded in ${(performance.now() - t0).toFixed(0)} ms`);
  for (const [name, q] of [
    ['first page', { q: '', category: '' }],
    ['q=forest', { q: 'forest', category: '' }],
    ['category', { q: '', category: CATEGORIES[3]! }],
  ] as const) {
    const times: number[] = [];
    let r = { items: [] as unknown[], total: 0 };
    for (let i = 0; i < 20; i++) {
      const t = performance.now();
      r = await lib.list('video', q.q, q.category, 50, 0);
      times.push(performance.now() - t);
    }
    times.sort((a, b) => a - b);
    say(`${name}: ${r.items.length} of ${r.total}, list median ${times[10]!.toFixed(1)} ms, max ${times[19]!.toFixed(1)} ms (in process)`);
  }
  await db.close();
}

async function main(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'reelsmith-bench-library-'));
  let child: ReturnType<typeof spawn> | undefined;
  try {
    if (process.argv.includes('--seed-only')) return await seedOnly(dataDir);
    await seed(dataDir);
    const port = await freePort();
    let out = '';
    child = spawn(process.execPath, [path.join(ROOT, 'scripts', 'start.js')], {
      cwd: ROOT,
      // The bench's own product: its own port, data and NATS; quiet logs; no starter import.
      // eslint-disable-next-line no-restricted-properties -- the bench hands its environment to npm start, as a user's shell does
      env: { ...process.env, PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: 'warn', NATS_URL: '', LIBRARY_STARTER_DIR: 'none' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    const deadline = Date.now() + 180_000;
    while (!out.includes('Reelsmith is running at')) {
      if (child.exitCode !== null || Date.now() > deadline) throw new Error(`npm start failed:\n${out.slice(-3000)}`);
      await new Promise((r) => setTimeout(r, 250));
    }
    const base = `http://127.0.0.1:${port}/api/v1`;
    const check = (await (await fetch(`${base}/video-library-detailed?limit=1`)).json()) as { total: number };
    say(`the product answers with ${check.total} library entries\n`);
    const cases: Array<[string, string]> = [
      ['baseline GET /health', '/health'],
      ['first page (50)', '/video-library-detailed'],
      ['page at offset 5000', '/video-library-detailed?offset=5000'],
      ['q=forest', '/video-library-detailed?q=forest'],
      ['category', `/video-library-detailed?category=${encodeURIComponent(CATEGORIES[3]!)}`],
      ['q + category, offset 50', `/video-library-detailed?q=river&category=${encodeURIComponent(CATEGORIES[7]!)}&offset=50`],
    ];
    let baseline = 0;
    say('case                          p50 ms  p95 ms  p99 ms   req/s  bytes/resp  errors  p95 vs 50 ms goal  p95 / baseline');
    for (const [name, route] of cases) {
      const m = await measure(`${base}${route}`);
      if (!baseline) baseline = m.p95 || 1;
      say(
        `${name.padEnd(28)} ${m.p50.toFixed(1).padStart(7)} ${m.p95.toFixed(1).padStart(7)} ${m.p99.toFixed(1).padStart(7)} ${m.rps.toFixed(0).padStart(7)} ${m.bytes.toFixed(0).padStart(11)} ${String(m.errors).padStart(7)}  ${route === '/health' ? '-'.padStart(17) : `${m.p95 <= 50 ? 'met' : 'NOT met'} (${(m.p95 / 50).toFixed(2)}x)`.padStart(17)}  ${(m.p95 / baseline).toFixed(2).padStart(14)}`,
      );
    }
  } finally {
    if (child && child.exitCode === null) {
      const exited = new Promise((r) => child!.once('exit', r));
      child.kill('SIGINT');
      await exited;
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`bench failed: ${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});
