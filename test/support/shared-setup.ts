// The global setup of the e2e and browser projects (jest.config.js): names a fresh folder for this
// run's shared product; the first spec that calls `sharedSystem()` starts it there
// (shared-system.ts). Both projects name this file: the second call in one run keeps the folder
// the first named, so both projects' specs share one product. Node's own modules only: Jest loads
// this outside its module mapping.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** The environment variable naming the shared product's folder (test workers inherit it). */
export const SHARED_PRODUCT_ENV = 'REELSMITH_SHARED_PRODUCT';
/** Set beside it by the setup that made the folder: this Jest process's pid. */
const OWNER_ENV = 'REELSMITH_SHARED_PRODUCT_OWNER';

export default function setup(): void {
  const dir = process.env[SHARED_PRODUCT_ENV];
  if (dir && process.env[OWNER_ENV] === String(process.pid) && fs.existsSync(dir)) return;
  process.env[SHARED_PRODUCT_ENV] = fs.mkdtempSync(path.join(os.tmpdir(), 'reelsmith-shared-'));
  process.env[OWNER_ENV] = String(process.pid);
}
