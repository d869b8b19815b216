/**
 * Products shared by the end-to-end and browser specs that can share one: each kind (`SharedKind`)
 * is started by the first spec that asks for it, reused by every later one in the same Jest run,
 * and stopped after the run's last spec by the projects' global teardown (`jest.config.js`). A
 * product start costs about 10 CPU-seconds (its databases on the machine's PostgreSQL).
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
 * A spec that shares one:
 *  - signs up its own users with addresses of its own (a time stamp in them) and keeps its files in
 *    a folder of its own, not in `sys.dataDir` (which holds the product's data and mail);
 *  - asserts nothing about the product as a whole: not the number of users or jobs, not the
 *    whole activity feed, not the first start;
 *  - changes no product-wide setting it does not put back; it may kill a service process, which
 *    the supervisor restarts, and must wait until it is back.
 * A spec that needs other settings (a watchdog, several workers) or counts the whole product
 * starts its own with `startSystem`.
 *
 * How: the projects' global setup names a fresh folder (REELSMITH_SHARED_PRODUCT); the first call
 * for a kind claims its folder, starts `scripts/start.js` writing its output to a file there, and
 * records the product in `product.json` once it is up; later calls (or other workers) read that
 * record. Its services' databases are on the machine's PostgreSQL (`product-db.ts`). The teardown
 * stops each supervisor (SIGINT, as Ctrl-C), drops its databases and removes the folder.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { SERVICE_NAMES } from '@reelsmith/kit';
import { BEAT_120, makeSong } from './media';
import { createProductDatabases } from './product-db';
import { SHARED_PRODUCT_ENV } from './shared-setup';
import { freePort, isAlive, isUp, productEnv, ROOT, STARTER_LIBRARY, type SupervisorState } from './system';

export { SHARED_PRODUCT_ENV };

/** Addresses that are admins in the shared product (PRIVILEGED_EMAILS): one per spec that needs one. */
export const SHARED_ADMINS = {
  marketplace: 'marketplace.boss@example.com',
  /** api-keys.spec.ts (an admin has API access). */
  spare: 'spare.admin@example.com',
} as const;

/** The music library of the default shared product: its tracks, imported in the background at its first start. */
export const SHARED_TRACKS = ['library-beat', 'first-user-beat'] as const;

/** The admin of the showcase product (PRIVILEGED_EMAILS). */
export const SHOWCASE_CHIEF = 'showcase.chief@example.com';

/**
 * The kinds of shared product, each started at most once per run:
 *  - `default`: no starter clips; a music library of two beats at 120 BPM (`library-beat` 16 s,
 *    `first-user-beat` 18 s), imported in the background at first start; the admins in `SHARED_ADMINS`;
 *    client addresses from X-Forwarded-For (TRUST_PROXY: each test `Api` is a client of its own);
 *    webhooks may call loopback addresses and retry after 1 s (the API-key spec's receiver); a
 *    render's delivery is handed to another worker 10 s after its worker goes silent (the
 *    end-to-end specs that kill a worker).
 *  - `showcase`: the starter library `npm start` imports (10 clips, 6 tracks) and the first-start
 *    demo reels, with `SHOWCASE_CHIEF` as its admin.
 */
export type SharedKind = 'default' | 'showcase';

const KINDS: Record<SharedKind, (dir: string) => Record<string, string>> = {
  default: (dir) => {
    const starter = path.join(dir, 'starter');
    fs.mkdirSync(path.join(starter, 'beats'), { recursive: true });
    // Of different lengths: the import keeps one copy of the same content.
    SHARED_TRACKS.forEach((name, i) => makeSong(path.join(starter, 'beats', `${name}.mp3`), BEAT_120, 16 + 2 * i));
    return {
      PRIVILEGED_EMAILS: Object.values(SHARED_ADMINS).join(','),
      LIBRARY_STARTER_DIR: starter,
      // Each test client (support/api.ts) is its own address, as people are: the per-address
      // sign-up limit (20 an hour) is not shared by every spec of the run.
      TRUST_PROXY: 'true',
      WEBHOOK_ALLOW_PRIVATE: 'true',
      WEBHOOK_RETRY_FIRST_MS: '1000',
      RENDER_ACK_WAIT_MS: '10000',
    };
  },
  showcase: () => ({ ...STARTER_LIBRARY, DEMO_REELS: 'true', PRIVILEGED_EMAILS: SHOWCASE_CHIEF }),
};

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

/** The folder of a kind's product: the run's folder for the default kind, a folder in it for another. */
function folder(kind: SharedKind): string {
  const dir = process.env[SHARED_PRODUCT_ENV];
  if (!dir)
    throw new Error(`${SHARED_PRODUCT_ENV} is not set: run the spec in the e2e or browser project (jest.config.js sets its global setup)`);
  if (kind === 'default') return dir;
  const own = path.join(dir, kind);
  fs.mkdirSync(own, { recursive: true });
  return own;
}

const files = (dir: string) => ({
  claim: path.join(dir, 'claimed'),
  record: path.join(dir, 'product.json'),
  failed: path.join(dir, 'failed.txt'),
  /** The names of the product's databases on the machine's PostgreSQL, which the teardown drops. */
  dbs: path.join(dir, 'databases.json'),
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

/** The product of `kind` shared by this Jest run's specs, started on the first call. */
export async function sharedSystem(kind: SharedKind = 'default', timeoutMs = SHARED_START_MS - 10_000): Promise<SharedSystem> {
  const dir = folder(kind);
  const f = files(dir);
  let claimed = false;
  try {
    fs.mkdirSync(f.claim);
    claimed = true;
  } catch {
    // Started (or being started) by an earlier spec or another worker.
  }
  if (claimed) await start(f, KINDS[kind](dir), timeoutMs);
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

async function start(f: ReturnType<typeof files>, env: Record<string, string>, timeoutMs: number): Promise<void> {
  const port = await freePort();
  fs.mkdirSync(f.data, { recursive: true });
  const dbs = await createProductDatabases(SERVICE_NAMES);
  fs.writeFileSync(f.dbs, JSON.stringify(dbs.names));
  const out = fs.openSync(f.log, 'a');
  // Output to a file and unreferenced: the product outlives the spec that started it, and holds
  // nothing of that spec's open.
  const child = spawn(process.execPath, [path.join(ROOT, 'scripts', 'start.js')], {
    cwd: ROOT,
    env: productEnv(port, f.data, { ...dbs.env, ...env }),
    stdio: ['ignore', out, out],
  });
  fs.closeSync(out);
  child.unref();
  const pid = child.pid!;
  // The pid first, so the teardown stops a product that never became healthy.
  fs.writeFileSync(path.join(path.dirname(f.record), 'pid'), String(pid));
  const deadline = Date.now() + timeoutMs;
  const log = () => (fs.existsSync(f.log) ? fs.readFileSync(f.log, 'utf8') : '');
  // Up: its ready line, or (a start over the 90 s in which `npm start` prints it, on a loaded machine) its health answering 200.
  while (!(await isUp(port, log()))) {
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
