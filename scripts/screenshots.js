#!/usr/bin/env node
// Retakes the README's screenshots (docs/images/home.jpg and docs/images/reel.jpg) from the real
// product: `npm start` in a temporary DATA_DIR on a free port, a new account verified with the
// code from the mailed .eml file, starter clips and a starter track picked on Home, a reel
// generated, and Chromium (playwright-core) taking the pictures. Needs `npm run build` first and
// Chromium at /usr/bin/chromium (or CHROMIUM_PATH). About two minutes; on a shared machine run it
// under the heavy-run lock: flock /tmp/rs-heavy.lock node scripts/screenshots.js
'use strict';
/* global fetch, document, localStorage, window -- Node's fetch; the page functions run in Chromium */
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const { setTimeout: sleep } = require('node:timers/promises');
const { chromium } = require('playwright-core');

const ROOT = path.resolve(__dirname, '..');
const OUT = path.join(ROOT, 'docs', 'images');
const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const EMAIL = 'maya@example.com';
const CLIPS = ['bunny-meadow-1.mp4', 'road-traffic-1.mp4', 'office-walk-in-1.mp4', 'bottles-on-table-1.mp4'];
const TRACK = 'drive-128bpm.mp3';

const freePort = () =>
  new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

async function startProduct(dataDir) {
  const port = await freePort();
  let out = '';
  const child = spawn(process.execPath, [path.join(ROOT, 'scripts', 'start.js')], {
    cwd: ROOT,
    env: { ...process.env, PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: 'warn', NATS_URL: '', DEMO_REELS: 'false' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const stop = async () => {
    if (child.exitCode === null) child.kill('SIGINT');
    await exited;
  };
  const deadline = Date.now() + 360_000; // a busy machine starts slowly
  while (!out.includes(`Reelsmith is running at http://localhost:${port}`)) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`npm start did not come up:\n${out.slice(-4000)}`);
    }
    await sleep(250);
  }
  return { base: `http://localhost:${port}`, stop };
}

/** Signs up through the API and verifies with the code from the mail written to DATA_DIR/mail. */
async function signUp(base, dataDir) {
  const post = (route, body) =>
    fetch(`${base}/api/v1${route}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const reg = await post('/auth/register', { email: EMAIL, password: 'a-good-password' });
  if (reg.status !== 201) throw new Error(`register: ${reg.status} ${await reg.text()}`);
  const mailDir = path.join(dataDir, 'mail');
  let code;
  for (const end = Date.now() + 15_000; !code && Date.now() < end; await sleep(100)) {
    for (const f of fs.existsSync(mailDir) ? fs.readdirSync(mailDir) : []) {
      const text = fs.readFileSync(path.join(mailDir, f), 'utf8').replace(/=\r?\n/g, '');
      code = code || /verification code is (\d{6})/.exec(text)?.[1];
    }
  }
  if (!code) throw new Error('no verification mail');
  const v = await post('/auth/verify-email', { email: EMAIL, code });
  if (v.status !== 200) throw new Error(`verify: ${v.status} ${await v.text()}`);
  return (await v.json()).session_token;
}

/** The starter library is imported (and analysed) in the background at the first start: wait for it. */
async function starterLibraryReady(base, token) {
  const has = async (route, names) => {
    const r = await fetch(`${base}/api/v1${route}`, { headers: { authorization: `Bearer ${token}` } });
    const text = r.ok ? await r.text() : '';
    return names.every((n) => text.includes(n));
  };
  for (const end = Date.now() + 600_000; Date.now() < end; await sleep(2000)) {
    if ((await has('/music-library', [TRACK])) && (await has('/video-library?limit=50', CLIPS))) return;
  }
  throw new Error('the starter library was not imported within 10 minutes');
}

async function pickFromLibraries(page) {
  await page.getByRole('button', { name: 'Browse Music Library' }).click();
  const music = page.getByRole('dialog', { name: 'Music Library' });
  await music.getByRole('button', { name: TRACK, exact: true }).click();
  await music.getByRole('button', { name: 'Use this track' }).click();
  const tray = page.getByRole('region', { name: 'Media tray' });
  await tray
    .getByTestId('tray-music')
    .getByRole('img', { name: /Waveform with \d+ beat markers/ })
    .waitFor({ timeout: 60_000 });

  await page.getByRole('button', { name: 'Browse Video Library' }).click();
  const videos = page.getByRole('dialog', { name: 'Video Library' });
  for (const clip of CLIPS) await videos.getByRole('button', { name: `Select ${clip}`, exact: true }).click();
  await videos.getByRole('button', { name: `Use ${CLIPS.length} clips` }).click();
  await page.waitForFunction(
    (n) =>
      Array.from(document.querySelectorAll('[data-testid=tray-clip] img')).filter((i) => i.complete && i.naturalWidth > 0).length === n,
    CLIPS.length,
    { timeout: 60_000 },
  );
  await page
    .getByTestId('estimate')
    .getByText(/Estimated cost: \d+ credits/)
    .waitFor();
}

async function main() {
  if (!fs.existsSync(CHROMIUM)) throw new Error(`Chromium is not installed at ${CHROMIUM}`);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'reelsmith-screenshots-'));
  const product = await startProduct(dataDir);
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu'] });
  try {
    const token = await signUp(product.base, dataDir);
    await starterLibraryReady(product.base, token);
    const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
    await page.goto(`${product.base}/`);
    await page.evaluate((t) => localStorage.setItem('reelsmith.session_token', t), token);
    await page.goto(`${product.base}/`);
    await page.getByRole('button', { name: EMAIL }).waitFor();

    await pickFromLibraries(page);
    await page.getByLabel('Title text').fill('Weekend Highlights');
    fs.mkdirSync(OUT, { recursive: true });
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: path.join(OUT, 'home.jpg'), type: 'jpeg', quality: 70 });

    await page.getByRole('button', { name: 'Generate Reel' }).click();
    const card = page.getByTestId('job-card');
    await card.getByRole('link', { name: 'Download' }).waitFor({ timeout: 300_000 });
    // A frame with the title, after the fade-in.
    await page.waitForFunction(() => (document.querySelector('[data-testid=reel-player]')?.readyState ?? 0) >= 2, undefined, {
      timeout: 30_000,
    });
    await card.getByTestId('reel-player').evaluate(
      (v) =>
        new Promise((resolve) => {
          v.addEventListener('seeked', () => resolve(), { once: true });
          v.currentTime = Math.min(2, v.duration / 2);
        }),
    );
    await card.scrollIntoViewIfNeeded();
    await card.screenshot({ path: path.join(OUT, 'reel.jpg'), type: 'jpeg', quality: 70 });
    for (const f of ['home.jpg', 'reel.jpg'])
      console.log(`${path.join('docs', 'images', f)}: ${fs.statSync(path.join(OUT, f)).size} bytes`);
  } finally {
    await browser.close();
    await product.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
