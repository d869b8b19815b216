import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { Api } from '../support/api';
import { launchBrowser, shot } from '../support/browser';
import { startSystem, type RunningSystem } from '../support/system';

const MEDIA = path.resolve(__dirname, '..', '..', '..', 'shared', 'media');

describe('Home: the assembly flow in Chromium with real clips', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'reelsmith-home-'));
  const music = path.join(dataDir, 'beat.mp3');
  let sys: RunningSystem;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    execFileSync('ffmpeg', [
      '-v',
      'error',
      '-f',
      'lavfi',
      '-i',
      "aevalsrc='0.7*sin(2*PI*55*t)*exp(-25*mod(t\\,0.5))+0.25*sin(2*PI*7000*t)*exp(-60*mod(t+0.25\\,0.5))':s=44100:d=8",
      '-c:a',
      'libmp3lame',
      '-b:a',
      '128k',
      music,
    ]);
    [sys, browser] = await Promise.all([startSystem(dataDir), launchBrowser()]);
    page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
    page.on('pageerror', (e) => console.error('page error:', e.message));
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await sys?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('asks a signed-out visitor to sign in before generating', async () => {
    await page.goto(`${sys.baseUrl}/`);
    await page.getByRole('button', { name: 'Generate Reel' }).click();
    await page.getByRole('dialog', { name: 'Sign In' }).waitFor();
    await page.keyboard.press('Escape');
  });

  it('uploads real clips and music, shows progress, and offers the download', async () => {
    const api = new Api(sys.baseUrl, dataDir);
    await api.signUp(`home.${Date.now()}@example.com`);
    await page.evaluate((t) => localStorage.setItem('reelsmith.session_token', t), api.token);
    await page.goto(`${sys.baseUrl}/`);
    await page.getByRole('button', { name: /@example\.com/ }).waitFor();

    // Nothing selected: the spec's message.
    await page.getByRole('button', { name: 'Generate Reel' }).click();
    await page.getByText('Please add at least one video file or select from library.').waitFor();

    // Step 1: files through the picker (drag and drop has the same filter).
    await page.setInputFiles('input[type=file]', [
      path.join(MEDIA, 'walk.mkv'),
      path.join(MEDIA, 'counter.mp4'),
      path.join(MEDIA, 'again.mkv'),
      music,
    ]);
    const files = page.getByRole('list', { name: 'Selected files' });
    await files.getByText('beat.mp3').waitFor();
    expect(await files.getByRole('listitem').count()).toBe(4);
    await page
      .getByTestId('estimate')
      .getByText(/Estimated cost: \d+ credits/)
      .waitFor();
    expect(await page.getByTestId('estimate').textContent()).toContain('free video of the day');
    await page.screenshot({ path: shot('home-1-media'), fullPage: true });

    // Step 2: settings.
    await page.getByLabel('Title text').fill('Signing Session');
    await page.getByLabel('Position').selectOption('top');
    await page.getByLabel('Pacing').selectOption('high-energy');
    await page.screenshot({ path: shot('home-2-settings'), fullPage: true });

    // Step 3: generate, watch the card, download.
    await page.getByRole('button', { name: 'Generate Reel' }).click();
    const card = page.getByTestId('job-card');
    await card.waitFor({ timeout: 60_000 });
    await page.screenshot({ path: shot('home-3-progress'), fullPage: true });
    const download = card.getByRole('link', { name: 'Download' });
    await download.waitFor({ timeout: 180_000 });
    expect(await card.getByText('Complete').first().isVisible()).toBe(true);
    expect(await card.getByRole('progressbar').getAttribute('aria-valuenow')).toBe('100');
    await page.screenshot({ path: shot('home-4-complete'), fullPage: true });
    const href = (await download.getAttribute('href'))!;
    const res = await fetch(href.replace('localhost', '127.0.0.1'));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('video/mp4');
    expect(Number(res.headers.get('content-length'))).toBeGreaterThan(50_000);

    // The free video is used: the user menu says so, and the estimate line too.
    await page.getByRole('button', { name: 'Create Another Video' }).click();
    await page.getByRole('button', { name: 'Generate Reel' }).waitFor();
    await page
      .getByTestId('estimate')
      .getByText(/free video for today is used/)
      .waitFor();
    await page.screenshot({ path: shot('home-5-again'), fullPage: true });
  }, 300_000);
});
