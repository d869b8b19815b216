/**
 * Starts the whole product the way a user does (`node scripts/start.js`, i.e. `npm start`) on a
 * free port and a temporary data dir, and gives tests what they need to poke at it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { freePort, SERVICE_NAMES } from '@reelsmith/kit';
import { createProductDatabases, dropDatabases } from './product-db';

export { freePort };
/** Whether process `pid` is running. */
export { processAlive as isAlive } from '@reelsmith/kit';

export const ROOT = path.resolve(__dirname, '..', '..');

/** The env that gives a started product the starter library `npm start` imports at first start. */
export const STARTER_LIBRARY = { LIBRARY_STARTER_DIR: path.join(ROOT, 'media', 'starter') };

export interface SupervisorState {
  pid: number;
  processes: Record<string, { pid: number | null; restarts: number }>;
  /** Each service's gRPC and ops ports (loopback). */
  ports: Record<string, { grpc: number; ops: number }>;
}

export interface RunningSystem {
  port: number;
  baseUrl: string;
  dataDir: string;
  child: ChildProcess;
  output: () => string;
  /**
   * The services' database URLs (`<SERVICE>_DATABASE_URL`) on the machine's PostgreSQL, empty for
   * a product on embedded databases: what an operator's command (`scripts/admin.js`) needs besides
   * `DATA_DIR`.
   */
  dbEnv: Record<string, string>;
  state(): SupervisorState;
  /** SIGINT, as Ctrl-C does; resolves with the exit code. Drops the product's databases. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export interface StartOptions {
  timeoutMs?: number;
  /**
   * `postgres` (the default): each service's database on the machine's PostgreSQL
   * (`product-db.ts`), made for this product and dropped when it stops. `embedded`: `npm start`'s
   * own PGlite databases in `DATA_DIR`, kept there.
   */
  database?: 'postgres' | 'embedded';
}

/**
 * The environment of a product started by a test: `npm start`'s, on `port` with `dataDir`, quiet
 * logs, an embedded NATS, and `extraEnv` over it.
 */
export function productEnv(port: number, dataDir: string, extraEnv: Record<string, string> = {}): NodeJS.ProcessEnv {
  // No first-start demo reels unless a test asks (DEMO_REELS=true): four background renders would
  // compete with the jobs a test times. `npm start` itself renders them by default. Likewise no
  // starter library (16 analyses in the background, about 30 s of both cores) unless a test asks
  // with `STARTER_LIBRARY`.
  return {
    ...process.env,
    PORT: String(port),
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    NATS_URL: '',
    DEMO_REELS: 'false',
    LIBRARY_STARTER_DIR: 'none',
    // x264's fastest preset: a test render checks what is in the file (length, frames, framing,
    // sound), not its size; about a third of the encoder's CPU of the default veryfast.
    RENDER_PRESET: 'ultrafast',
    ...extraEnv,
  };
}

/** The line `npm start` prints once everything is up (within its first 90 s). */
export const readyLine = (port: number) => `Reelsmith is running at http://localhost:${port}`;

/**
 * Whether the product on `port` is up: its ready line, or (a start that took longer than the 90 s
 * in which `npm start` prints it, on a loaded machine) its health answering 200.
 */
export async function isUp(port: number, output: string): Promise<boolean> {
  if (output.includes(readyLine(port))) return true;
  return fetch(`http://127.0.0.1:${port}/api/v1/health`, { signal: AbortSignal.timeout(2000) }).then(
    (r) => r.status === 200,
    () => false,
  );
}

export async function startSystem(dataDir: string, extraEnv: Record<string, string> = {}, opts: StartOptions = {}): Promise<RunningSystem> {
  const { timeoutMs = 120_000, database = 'postgres' } = opts;
  const port = await freePort();
  const dbs = database === 'postgres' ? await createProductDatabases(SERVICE_NAMES) : { env: {}, names: [] };
  let out = '';
  const child = spawn(process.execPath, [path.join(ROOT, 'scripts', 'start.js')], {
    cwd: ROOT,
    env: productEnv(port, dataDir, { ...dbs.env, ...extraEnv }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let dropped: Promise<void> | undefined;
  const system: RunningSystem = {
    port,
    baseUrl: `http://127.0.0.1:${port}`,
    dataDir,
    child,
    output: () => out,
    dbEnv: dbs.env,
    state: () => JSON.parse(fs.readFileSync(path.join(dataDir, 'run', 'supervisor.json'), 'utf8')) as SupervisorState,
    stop: async (signal = 'SIGINT') => {
      if (child.exitCode === null) child.kill(signal);
      const code = await exited;
      await (dropped ??= dropDatabases(dbs.names));
      return code;
    },
  };
  const deadline = Date.now() + timeoutMs;
  while (!(await isUp(port, out))) {
    if (child.exitCode !== null) {
      await system.stop();
      throw new Error(`npm start exited early:\n${out.slice(-4000)}`);
    }
    if (Date.now() > deadline) {
      await system.stop();
      throw new Error(`npm start did not become healthy in ${timeoutMs} ms:\n${out.slice(-4000)}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return system;
}

/** Stops the product (if it started) and removes its data dir and any other folders of the test. */
export async function stopSystem(sys: RunningSystem | undefined, ...dirs: string[]): Promise<void> {
  await sys?.stop();
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
}
