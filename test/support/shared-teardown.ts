// The browser project's global teardown (jest.config.js): stops this run's shared product if a
// spec started one (SIGINT to its supervisor, as Ctrl-C; SIGKILL after 30 s), then removes its folder.
import fs from 'node:fs';
import path from 'node:path';
import { SHARED_PRODUCT_ENV } from './shared-setup';

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

export default async function teardown(): Promise<void> {
  const dir = process.env[SHARED_PRODUCT_ENV];
  if (!dir || !fs.existsSync(dir)) return;
  const pidFile = path.join(dir, 'pid');
  const pid = fs.existsSync(pidFile) ? Number(fs.readFileSync(pidFile, 'utf8')) : 0;
  if (pid > 0 && alive(pid)) {
    process.kill(pid, 'SIGINT');
    const end = Date.now() + 30_000;
    while (alive(pid) && Date.now() < end) await new Promise((r) => setTimeout(r, 100));
    if (alive(pid)) process.kill(pid, 'SIGKILL');
  }
  fs.rmSync(dir, { recursive: true, force: true });
  delete process.env[SHARED_PRODUCT_ENV];
}
