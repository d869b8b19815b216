// The browser project's global setup (jest.config.js): names a fresh folder for this run's shared
// product; the first spec that calls `sharedSystem()` starts it there (shared-system.ts). Node's
// own modules only: Jest loads this outside its module mapping.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** The environment variable naming the shared product's folder (test workers inherit it). */
export const SHARED_PRODUCT_ENV = 'REELSMITH_SHARED_PRODUCT';

export default function setup(): void {
  process.env[SHARED_PRODUCT_ENV] = fs.mkdtempSync(path.join(os.tmpdir(), 'reelsmith-shared-'));
}
