// The embedded product for the benches: `npm start` (scripts/start.js) on a given port and
// DATA_DIR, as users run it (production mode), with its output in DATA_DIR/product.log.
'use strict';
/* global fetch */
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { setTimeout } = require('node:timers');

const ROOT = path.resolve(__dirname, '..');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Polls `fn` until it gives a truthy value (errors count as not yet), or throws after `timeoutMs`. */
async function waitFor(fn, timeoutMs, what) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn().catch(() => null);
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(300);
  }
}

/** Starts the product and resolves with its process once GET /api/v1/health answers 200. */
async function startProduct(dataDir, port, env = {}) {
  const child = spawn(process.execPath, [path.join(ROOT, 'scripts', 'start.js')], {
    cwd: ROOT,
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      PORT: String(port),
      // As `npm start` runs it: production mode, info logs.
      NODE_ENV: 'production',
      LOG_LEVEL: 'info',
      NATS_URL: '',
      DEMO_REELS: 'false',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const out = fs.createWriteStream(path.join(dataDir, 'product.log'));
  child.stdout.pipe(out);
  child.stderr.pipe(out);
  await waitFor(async () => (await fetch(`http://127.0.0.1:${port}/api/v1/health`)).status === 200, 240_000, 'the product to start');
  return child;
}

/** Stops the product (SIGTERM) and waits for it to exit. */
async function stopProduct(child) {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

/**
 * Reads the verification codes the embedded product mails (files in DATA_DIR/mail): a function
 * that resolves with the code sent to an address.
 */
function mailReader(dir) {
  const seen = new Set();
  const codes = new Map();
  return async (email) =>
    waitFor(
      async () => {
        if (fs.existsSync(dir))
          for (const f of fs.readdirSync(dir)) {
            if (seen.has(f)) continue;
            const raw = fs.readFileSync(path.join(dir, f), 'utf8');
            const to = /^To: (.+)$/m.exec(raw)?.[1]?.trim().toLowerCase();
            const code = /verification code is (\d{6})/.exec(raw)?.[1];
            // A file being written is read again next time.
            if (to && code) {
              seen.add(f);
              codes.set(to.replace(/^.*<|>$/g, ''), code);
            }
          }
        return codes.get(email);
      },
      30_000,
      `the verification mail of ${email}`,
    );
}

module.exports = { ROOT, sleep, waitFor, mailReader, startProduct, stopProduct };
