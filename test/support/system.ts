/**
 * Starts the whole product the way a user does (`node scripts/start.js`, i.e. `npm start`) on a
 * free port and a temporary data dir, and gives tests what they need to poke at it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';

export const ROOT = path.resolve(__dirname, '..', '..');

/**
 * A port nobody listens on, chosen below the kernel's ephemeral range: a port the OS hands out
 * with listen(0) lies inside that range, where any outgoing connection (to NATS, PostgreSQL...)
 * may take it as its local port before the service binds it (EADDRINUSE at start-up).
 */
export async function freePort(): Promise<number> {
  let low = 32768;
  try {
    low = Number(fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || low;
  } catch {
    // not Linux: keep the IANA default
  }
  const from = 10_000;
  const to = Math.max(from + 1000, Math.min(low, 49_152)) - 1;
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = from + Math.floor(Math.random() * (to - from));
    const free = await new Promise<boolean>((resolve) => {
      const srv = net.createServer();
      srv.once('error', () => resolve(false));
      srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
    });
    if (free) return port;
  }
  throw new Error('no free port found below the ephemeral range');
}

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
  state(): SupervisorState;
  /** SIGINT, as Ctrl-C does; resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export async function startSystem(dataDir: string, extraEnv: Record<string, string> = {}, timeoutMs = 120_000): Promise<RunningSystem> {
  const port = await freePort();
  let out = '';
  const child = spawn(process.execPath, [path.join(ROOT, 'scripts', 'start.js')], {
    cwd: ROOT,
    // No first-start demo reels unless a test asks (DEMO_REELS=true): four background renders would
    // compete with the jobs a test times. `npm start` itself renders them by default.
    env: { ...process.env, PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: 'warn', NATS_URL: '', DEMO_REELS: 'false', ...extraEnv },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const system: RunningSystem = {
    port,
    baseUrl: `http://127.0.0.1:${port}`,
    dataDir,
    child,
    output: () => out,
    state: () => JSON.parse(fs.readFileSync(path.join(dataDir, 'run', 'supervisor.json'), 'utf8')) as SupervisorState,
    stop: async (signal = 'SIGINT') => {
      if (child.exitCode === null) child.kill(signal);
      return exited;
    },
  };
  const deadline = Date.now() + timeoutMs;
  while (!out.includes(`Reelsmith is running at http://localhost:${port}`)) {
    if (child.exitCode !== null) throw new Error(`npm start exited early:\n${out.slice(-4000)}`);
    if (Date.now() > deadline) {
      await system.stop();
      throw new Error(`npm start did not become healthy in ${timeoutMs} ms:\n${out.slice(-4000)}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return system;
}

export const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
