// The global teardown of the e2e and browser projects (jest.config.js), after the run's last spec:
// stops this run's shared products if specs started them (SIGINT to its supervisor, as Ctrl-C;
// SIGKILL after 30 s), drops their databases, then removes its folder. The second project's call
// finds nothing left to do.
import fs from 'node:fs';
import path from 'node:path';
import { dropDatabases } from './product-db';
import { SHARED_PRODUCT_ENV } from './shared-setup';

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Stops the product whose supervisor's pid is in `dir/pid`, if it is running. */
async function stop(dir: string): Promise<void> {
  const pidFile = path.join(dir, 'pid');
  const pid = fs.existsSync(pidFile) ? Number(fs.readFileSync(pidFile, 'utf8')) : 0;
  if (!(pid > 0 && alive(pid))) return;
  process.kill(pid, 'SIGINT');
  const end = Date.now() + 30_000;
  while (alive(pid) && Date.now() < end) await new Promise((r) => setTimeout(r, 100));
  if (alive(pid)) process.kill(pid, 'SIGKILL');
}

/** Drops the databases the product in `dir` kept on the machine's PostgreSQL (after it stopped). */
async function drop(dir: string): Promise<void> {
  const file = path.join(dir, 'databases.json');
  if (fs.existsSync(file)) await dropDatabases(JSON.parse(fs.readFileSync(file, 'utf8')) as string[]);
}

export default async function teardown(): Promise<void> {
  const dir = process.env[SHARED_PRODUCT_ENV];
  if (!dir || !fs.existsSync(dir)) return;
  // The default product's folder is the run's folder; other kinds' are folders in it (shared-system.ts).
  const kinds = fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => path.join(dir, e.name));
  await Promise.all(
    [dir, ...kinds].map(async (d) => {
      await stop(d);
      await drop(d);
    }),
  );
  fs.rmSync(dir, { recursive: true, force: true });
  delete process.env[SHARED_PRODUCT_ENV];
}
