/**
 * One product shared by the browser specs that can share it: started by the first spec that asks,
 * reused by every later one in the same Jest run, stopped after the last spec by the browser
 * project's global teardown (`jest.config.js`). A product start costs about 37 CPU-seconds.
 *
 * In a spec:
 *
 *     import { sharedSystem, SHARED_START_MS, type SharedSystem } from '../support/shared-system';
 *     let sys: SharedSystem;
 *     beforeAll(async () => {
 *       [sys, browser] = await Promise.all([sharedSystem(), launchBrowser()]);
 *     }, SHARED_START_MS);
 *     afterAll(() => closeAll(browser, undefined, work));   // never stop the shared product
 *
 * It is the default product of `startSystem` (no starter library, no demo reels), plus the admins
 * in `SHARED_ADMINS`. A spec that shares it:
 *  - signs up its own users with addresses of its own (a time stamp in them) and keeps its files in
 *    a folder of its own, not in `sys.dataDir` (which holds the product's data and mail);
 *  - asserts nothing about the product as a whole: not the number of users or jobs, not the
 *    whole activity feed, not the first start;
 *  - changes no product-wide setting it does not put back.
 * A spec that needs other settings (the starter library, demo reels, a watchdog) or counts the
 * whole product starts its own with `startSystem`.
 *
 * How: the project's global setup names a fresh folder (REELSMITH_SHARED_PRODUCT); the first call
 * claims it, starts `scripts/start.js` writing its output to a file there, and records the product
 * in `product.json` once it is up; later calls (or other workers) read that record. The teardown
 * stops the supervisor (SIGINT, as Ctrl-C) and removes the folder.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { SHARED_PRODUCT_ENV } from './shared-setup';
import { freePort, isAlive, productEnv, readyLine, ROOT, type SupervisorState } from './system';

export { SHARED_PRODUCT_ENV };

/** Addresses that are admins in the shared product (PRIVILEGED_EMAILS): one per spec that needs one. */
export const SHARED_ADMINS = {
  marketplace: 'marketplace.boss@example.com',
  /** api-keys.spec.ts (an admin has API access). */
  spare: 'spare.admin@example.com',
} as const;

/** A beforeAll's timeout for `sharedSystem()`: the first call starts the product (a minute on a busy 2-core machine). */
export const SHARED_START_MS = 240_000;

export interface SharedSystem {
  port: number;
  baseUrl: string;
  /** The product's data (its databases, files and mail under `mail/`): read it, write nothing there. */
  dataDir: string;
  /** Everything the product printed so far. */
  output(): string;
  state(): SupervisorState;
}

interface Record_ {
  pid: number;
  port: number;
  dataDir: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function folder(): string {
  const dir = process.env[SHARED_PRODUCT_ENV];
  if (!dir) throw new Error(`${SHARED_PRODUCT_ENV} is not set: run the spec in the browser project (jest.config.js sets its global setup)`);
  return dir;
}

const files = (dir: string) => ({
  claim: path.join(dir, 'claimed'),
  record: path.join(dir, 'product.json'),
  failed: path.join(dir, 'failed.txt'),
  log: path.join(dir, 'product.log'),
  data: path.join(dir, 'data'),
});

const handle = (dir: string, r: Record_): SharedSystem => ({
  port: r.port,
  baseUrl: `http://127.0.0.1:${r.port}`,
  dataDir: r.dataDir,
  output: () => fs.readFileSync(files(dir).log, 'utf8'),
  state: () => JSON.parse(fs.readFileSync(path.join(r.dataDir, 'run', 'supervisor.json'), 'utf8')) as SupervisorState,
});

/** The product shared by this Jest run's browser specs, started on the first call. */
export async function sharedSystem(timeoutMs = SHARED_START_MS - 10_000): Promise<SharedSystem> {
  const dir = folder();
  const f = files(dir);
  let claimed = false;
  try {
    fs.mkdirSync(f.claim);
    claimed = true;
  } catch {
    // Started (or being started) by an earlier spec or another worker.
  }
  if (claimed) await start(f, timeoutMs);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (fs.existsSync(f.failed)) throw new Error(`the shared product did not start:\n${fs.readFileSync(f.failed, 'utf8')}`);
    if (fs.existsSync(f.record)) {
      const r = JSON.parse(fs.readFileSync(f.record, 'utf8')) as Record_;
      if (!isAlive(r.pid)) throw new Error(`the shared product has stopped:\n${fs.readFileSync(f.log, 'utf8').slice(-4000)}`);
      return handle(dir, r);
    }
    if (Date.now() > deadline) throw new Error('timed out waiting for the shared product');
    await sleep(250);
  }
}

async function start(f: ReturnType<typeof files>, timeoutMs: number): Promise<void> {
  const port = await freePort();
  fs.mkdirSync(f.data, { recursive: true });
  const out = fs.openSync(f.log, 'a');
  // Output to a file and unreferenced: the product outlives the spec that started it, and holds
  // nothing of that spec's open.
  const child = spawn(process.execPath, [path.join(ROOT, 'scripts', 'start.js')], {
    cwd: ROOT,
    env: productEnv(port, f.data, { PRIVILEGED_EMAILS: Object.values(SHARED_ADMINS).join(',') }),
    stdio: ['ignore', out, out],
  });
  fs.closeSync(out);
  child.unref();
  const pid = child.pid!;
  // The pid first, so the teardown stops a product that never became healthy.
  fs.writeFileSync(path.join(path.dirname(f.record), 'pid'), String(pid));
  const deadline = Date.now() + timeoutMs;
  const log = () => (fs.existsSync(f.log) ? fs.readFileSync(f.log, 'utf8') : '');
  while (!log().includes(readyLine(port))) {
    const problem = !isAlive(pid) ? 'npm start exited early' : Date.now() > deadline ? `not healthy in ${timeoutMs} ms` : undefined;
    if (problem) {
      fs.writeFileSync(f.failed, `${problem}:\n${log().slice(-4000)}`);
      if (isAlive(pid)) process.kill(pid, 'SIGINT');
      throw new Error(`the shared product did not start: ${problem}\n${log().slice(-4000)}`);
    }
    await sleep(250);
  }
  fs.writeFileSync(f.record, JSON.stringify({ pid, port, dataDir: f.data } satisfies Record_));
}
