/**
 * `npm start`: runs the whole product on one machine. Starts a nats-server child with JetStream
 * under DATA_DIR (unless NATS_URL is set), then every service as its own Node process on free
 * local ports, restarts a crashed service with backoff, and on SIGINT/SIGTERM stops everything it
 * started. The gateway answers on PORT.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { SERVICE_NAMES, freePort, grpcAddrVar, pgliteTemplate, type ServiceName } from '@reelsmith/kit';
import { natsServerConfig } from './nats-conf.js';

const ROOT = path.resolve(__dirname, '..', '..');
// The kit's list of services, the gateway started last (its peers are on their way when it
// starts answering).
const SERVICES: readonly ServiceName[] = [...SERVICE_NAMES.filter((n) => n !== 'gateway'), 'gateway'];
const dbVar = (n: ServiceName) => `${n.toUpperCase().replace(/-/g, '_')}_DATABASE_URL`;

interface Settings {
  port: number;
  dataDir: string;
  natsUrl?: string;
  logLevel: string;
  /** Render-worker processes (RENDER_WORKERS). */
  renderWorkers: number;
}

/** A whole number in `[min, max]` from the environment, its default when unset or empty. */
function intSetting(env: NodeJS.ProcessEnv, name: string, dflt: number | undefined, min: number, max: number): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return dflt;
  const n = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || n < min || n > max)
    fail(`${name} must be a whole number from ${min} to ${max}, got ${JSON.stringify(raw)}`);
  return n;
}

function settings(env: NodeJS.ProcessEnv): Settings {
  const port = Number(env.PORT ?? 8080);
  if (!Number.isInteger(port) || port < 0 || port > 65535) fail(`PORT must be a port number, got ${JSON.stringify(env.PORT)}`);
  // Checked here too, so a bad value stops `npm start` with one message instead of crash-looping workers.
  intSetting(env, 'RENDER_THREADS', undefined, 1, 64);
  return {
    port,
    dataDir: path.resolve(env.DATA_DIR || './data'),
    natsUrl: env.NATS_URL || undefined,
    logLevel: env.LOG_LEVEL || 'info',
    renderWorkers: intSetting(env, 'RENDER_WORKERS', 1, 1, 32)!,
  };
}

function fail(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(1);
}

const say = (m: string) => process.stdout.write(`[supervisor] ${m}\n`);

async function waitForPort(port: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, '127.0.0.1');
      s.once('connect', () => (s.destroy(), resolve(true)));
      s.once('error', () => resolve(false));
    });
    if (ok) return true;
    await sleep(100);
  }
  return false;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Secrets made once and kept with the data, so a restart keeps links and sessions valid. */
function secrets(dataDir: string): Record<string, string> {
  const file = path.join(dataDir, 'secrets.json');
  let s: Record<string, string> = {};
  if (fs.existsSync(file)) s = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, string>;
  let changed = false;
  // INTERNAL_TOKEN authenticates service-to-service gRPC; NATS_TOKEN the embedded NATS server.
  for (const k of ['SIGNING_SECRET', 'TOKEN_SECRET', 'INTERNAL_TOKEN', 'NATS_TOKEN']) {
    if (!s[k]) {
      s[k] = crypto.randomBytes(32).toString('base64url');
      changed = true;
    }
  }
  if (changed) fs.writeFileSync(file, JSON.stringify(s, null, 2), { mode: 0o600 });
  return s;
}

function findNatsServer(): string | undefined {
  for (const dir of [...(process.env.PATH ?? '').split(path.delimiter), '/usr/sbin', '/usr/local/sbin', '/usr/bin']) {
    const p = path.join(dir, 'nats-server');
    if (dir && fs.existsSync(p)) return p;
  }
  return undefined;
}

interface Managed {
  name: string;
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  child?: ChildProcess;
  restarts: number;
  startedAt: number;
  timer?: NodeJS.Timeout;
}

class Supervisor {
  private readonly procs: Managed[] = [];
  private stopping = false;
  constructor(private readonly stateFile: string) {}

  add(m: Omit<Managed, 'restarts' | 'startedAt'>): Managed {
    const managed: Managed = { ...m, restarts: 0, startedAt: 0 };
    this.procs.push(managed);
    this.launch(managed);
    return managed;
  }

  private launch(m: Managed): void {
    m.startedAt = Date.now();
    const child = spawn(m.command, m.args, { cwd: ROOT, env: m.env, stdio: ['ignore', 'inherit', 'inherit'] });
    m.child = child;
    this.writeState();
    child.on('exit', (code, signal) => {
      if (m.child !== child) return;
      m.child = undefined;
      this.writeState();
      if (this.stopping) return;
      // Backoff: 0.5 s, 1 s, 2 s ... 30 s; a process that ran for a minute starts from 0.5 s again.
      if (Date.now() - m.startedAt > 60_000) m.restarts = 0;
      const delay = Math.min(30_000, 500 * 2 ** m.restarts);
      m.restarts += 1;
      say(`${m.name} exited (${signal ?? `code ${code}`}); restarting in ${delay} ms`);
      m.timer = setTimeout(() => {
        m.timer = undefined;
        if (!this.stopping) this.launch(m);
      }, delay);
    });
  }

  /** pids and ports of everything running, for operators and tests. */
  writeState(extra?: Record<string, unknown>): void {
    if (extra) this.extra = { ...this.extra, ...extra };
    const state = {
      pid: process.pid,
      ...this.extra,
      processes: Object.fromEntries(this.procs.map((p) => [p.name, { pid: p.child?.pid ?? null, restarts: p.restarts }])),
    };
    fs.writeFileSync(this.stateFile, JSON.stringify(state, null, 2));
  }
  private extra: Record<string, unknown> = {};

  /** SIGTERM to every child, newest first; SIGKILL to what is still there after the grace period. */
  async stopAll(graceMs: number, keepLast = 0): Promise<void> {
    this.stopping = true;
    for (const p of this.procs) if (p.timer) clearTimeout(p.timer);
    const order = [...this.procs].reverse();
    const stopGroup = async (group: Managed[]) => {
      const waits = group.map(
        (p) =>
          new Promise<void>((resolve) => {
            const c = p.child;
            if (!c || c.exitCode !== null || c.signalCode !== null) return resolve();
            const kill = setTimeout(() => c.kill('SIGKILL'), graceMs);
            c.once('exit', () => (clearTimeout(kill), resolve()));
            c.kill('SIGTERM');
          }),
      );
      await Promise.all(waits);
    };
    // Services first (they drain into NATS), the infrastructure processes last.
    await stopGroup(order.slice(0, order.length - keepLast));
    await stopGroup(order.slice(order.length - keepLast));
    this.writeState();
  }
}

async function main(): Promise<void> {
  const s = settings(process.env);
  fs.mkdirSync(s.dataDir, { recursive: true });
  const runDir = path.join(s.dataDir, 'run');
  fs.mkdirSync(runDir, { recursive: true });
  const sup = new Supervisor(path.join(runDir, 'supervisor.json'));
  const shutdown = (sig: string) => {
    say(`${sig} received; stopping`);
    void sup.stopAll(20_000, s.natsUrl ? 0 : 1).then(() => {
      say('stopped');
      process.exit(0);
    });
  };
  process.once('SIGINT', () => shutdown('SIGINT'));
  process.once('SIGTERM', () => shutdown('SIGTERM'));

  const secret = secrets(s.dataDir);
  let natsUrl = s.natsUrl;
  // An existing NATS server (NATS_URL) takes the credentials given in the environment, if any.
  if (natsUrl) delete secret.NATS_TOKEN;
  if (!natsUrl) {
    const bin = findNatsServer();
    if (!bin)
      fail(
        'nats-server was not found on PATH. Install it with: sudo apt-get install -y nats-server  (or set NATS_URL to an existing NATS server with JetStream)',
      );
    const v = spawnSync(bin, ['--version'], { encoding: 'utf8' });
    const natsPort = await freePort();
    natsUrl = `nats://127.0.0.1:${natsPort}`;
    const storeDir = path.join(s.dataDir, 'nats');
    fs.mkdirSync(storeDir, { recursive: true });
    // Loopback only, and a token: no other local process can publish work or facts (nats-conf.ts).
    const confFile = path.join(storeDir, 'nats-server.conf');
    fs.writeFileSync(confFile, natsServerConfig({ port: natsPort, storeDir, token: secret.NATS_TOKEN! }), { mode: 0o600 });
    sup.add({ name: 'nats-server', command: bin, args: ['-c', confFile], env: process.env });
    if (!(await waitForPort(natsPort, 15_000))) fail(`nats-server (${v.stdout.trim()}) did not start on port ${natsPort}`);
    say(`nats-server with JetStream at ${natsUrl}, data in ${storeDir}`);
  }

  const ports = new Map<string, { grpc: number; ops: number }>();
  for (const n of SERVICES) ports.set(n, { grpc: await freePort(), ops: await freePort() });
  // RENDER_WORKERS render-worker processes: render-worker, render-worker-2, ... (peers dial the first).
  const extraWorkers = Array.from({ length: s.renderWorkers - 1 }, (_, i) => `render-worker-${i + 2}`);
  for (const n of extraWorkers) ports.set(n, { grpc: await freePort(), ops: await freePort() });
  const addrs = Object.fromEntries(SERVICES.map((n) => [grpcAddrVar(n), `127.0.0.1:${ports.get(n)!.grpc}`]));
  const common: NodeJS.ProcessEnv = {
    ...process.env,
    ...secret,
    // An operator's own values win over the generated ones.
    ...(process.env.INTERNAL_TOKEN ? { INTERNAL_TOKEN: process.env.INTERNAL_TOKEN } : {}),
    ...addrs,
    NODE_ENV: process.env.NODE_ENV || 'production',
    DATA_DIR: s.dataDir,
    NATS_URL: natsUrl,
    LOG_LEVEL: s.logLevel,
    PUBLIC_URL: process.env.PUBLIC_URL || `http://localhost:${s.port}`,
    PORT: String(s.port),
  };
  delete common.DATABASE_URL;

  // Embedded databases are copies of one initialised template, made here once per machine
  // before the services start (nine services racing to make it would each run initdb).
  if (SERVICES.some((n) => !process.env[dbVar(n)])) {
    const started = Date.now();
    const template = await pgliteTemplate();
    if (Date.now() - started > 1000) say(`embedded database template initialised in ${template}`);
  }

  for (const n of SERVICES) {
    const entry = path.join(ROOT, 'services', n, 'dist', 'main.js');
    if (!fs.existsSync(entry)) fail(`${entry} is missing; run npm run build`);
    const env: NodeJS.ProcessEnv = { ...common, GRPC_PORT: String(ports.get(n)!.grpc), OPS_PORT: String(ports.get(n)!.ops) };
    // Each service owns its database: SERVICE_DATABASE_URL, or its own PGlite under DATA_DIR.
    if (process.env[dbVar(n)]) env.DATABASE_URL = process.env[dbVar(n)];
    sup.add({ name: n, command: process.execPath, args: [entry], env });
    if (n !== 'render-worker') continue;
    for (const w of extraWorkers)
      sup.add({
        name: w,
        command: process.execPath,
        args: [entry],
        env: { ...env, GRPC_PORT: String(ports.get(w)!.grpc), OPS_PORT: String(ports.get(w)!.ops) },
      });
    if (extraWorkers.length) say(`${s.renderWorkers} render workers`);
  }
  sup.writeState({ port: s.port, natsUrl, dataDir: s.dataDir, ports: Object.fromEntries(ports) });

  const url = `http://localhost:${s.port}`;
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    const ok = await fetch(`http://127.0.0.1:${s.port}/api/v1/health`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) {
      say(`all services are serving`);
      process.stdout.write(`Reelsmith is running at ${url}\n`);
      return;
    }
    await sleep(500);
  }
  say(`not every service is serving after 90 s; see ${url}/api/v1/health`);
}

main().catch((e: unknown) => fail(`supervisor failed: ${e instanceof Error ? e.stack : String(e)}`));
