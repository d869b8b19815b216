import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Browser, Page } from 'playwright-core';
import { Api } from '../support/api';
import { axeViolations } from '../support/axe';
import { closeAll, launchBrowser, shot } from '../support/browser';
import { ROOT, startSystem, type RunningSystem } from '../support/system';

const run = promisify(execFile);

/**
 * The admin dashboard against the whole product: someone signs up, an operator makes them admin
 * with `npm run admin:grant` while they are signed in, and /admin shows the figures and the feed of
 * what really happened; new activity appears without a reload. Everyone else is refused.
 */
describe('admin dashboard in Chromium against the whole product', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'reelsmith-admin-'));
  const stamp = Date.now();
  const chief = `chief.${stamp}@example.com`;
  const ann = `ann.${stamp}@example.com`;
  const bob = `bob.${stamp}@example.com`;
  let sys: RunningSystem;
  let browser: Browser;

  beforeAll(async () => {
    sys = await startSystem(dataDir);
    browser = await launchBrowser();
  }, 180_000);
  afterAll(() => closeAll(browser, sys, dataDir));

  const pageAs = async (token: string, width = 1280) => {
    const page = await browser.newPage({ viewport: { width, height: 900 } });
    page.on('pageerror', (e) => console.error('page error:', e.message));
    await page.addInitScript((t) => localStorage.setItem('reelsmith.session_token', t), token);
    return page;
  };
  const figure = (page: Page, label: string) =>
    page
      .locator('.figure')
      .filter({ has: page.getByText(label, { exact: true }) })
      .locator('.stat-value');
  const activity = (page: Page) => page.getByRole('list', { name: 'Recent activity' });
  /** The API's answer, polled until `ok` (telemetry hears events through JetStream, a moment later). */
  const until = async <T>(fn: () => Promise<T>, ok: (v: T) => boolean, ms = 30_000): Promise<T> => {
    const end = Date.now() + ms;
    for (;;) {
      const v = await fn();
      if (ok(v)) return v;
      if (Date.now() > end) throw new Error(`timed out; last: ${JSON.stringify(v).slice(0, 500)}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  };

  it('a new admin (admin:grant while signed in) sees the figures and the feed, and the page refreshes on its own', async () => {
    // Scripted traffic: two people sign up, one logs in again, one password is wrong.
    const boss = new Api(sys.baseUrl, dataDir);
    await boss.signUp(chief);
    const user = new Api(sys.baseUrl, dataDir);
    await user.signUp(ann);
    expect((await user.call('POST', '/auth/login', { email: ann, password: 'not-her-password' })).status).toBe(401);
    const login = await user.call<{ session_token: string }>('POST', '/auth/login', { email: ann, password: 'a-good-password' });
    expect(login.status).toBe(200);

    // Signed in and not (yet) an admin: the server refuses, and this session's answer is cached.
    expect((await boss.call<{ user: { is_admin: boolean } }>('GET', '/auth/me')).body.user.is_admin).toBe(false);
    expect((await boss.call('GET', '/admin/activity-feed')).status).toBe(403);

    // The operator's command, against the running product. The same session becomes an admin.
    const grant = await run(process.execPath, [path.join(ROOT, 'scripts', 'admin.js'), 'grant', chief], {
      cwd: ROOT,
      env: { ...process.env, ...sys.dbEnv, DATA_DIR: dataDir },
    });
    expect(grant.stdout).toContain(chief);
    // Within moments (identity tells every gateway; the cached answer would otherwise last 30 s).
    await until(
      async () => (await boss.call<{ user: { is_admin: boolean } }>('GET', '/auth/me')).body.user.is_admin,
      (isAdmin) => isAdmin,
      5000,
    );

    // What telemetry has heard by now; the page must show exactly this.
    type Feed = { type: string; user_email: string }[];
    const feed = await until(
      async () => (await boss.call<Feed>('GET', '/admin/activity-feed?limit=50')).body,
      (f) => Array.isArray(f) && ['login_failed', 'admin_granted'].every((t) => f.some((e) => e.type === t)),
    );
    expect(feed.some((e) => e.type === 'login' && e.user_email === ann)).toBe(true);
    type Metrics = { user_analytics: { total_users: number; new_users: number } };
    const metrics = await until(
      async () => (await boss.call<Metrics>('GET', '/metrics')).body,
      (m) => m.user_analytics?.total_users === 2,
    );
    expect(metrics.user_analytics.new_users).toBe(2);

    const page = await pageAs(boss.token);
    await page.goto(`${sys.baseUrl}/admin?refresh=3`);
    await page.getByRole('heading', { level: 1, name: 'System Dashboard' }).waitFor();
    await activity(page).waitFor({ timeout: 15_000 });
    expect(await page.getByRole('alert').count()).toBe(0);
    // The admin's longer menu: no label breaks across two lines ("My Reels"), and at a tablet's
    // width the bar still fits the window (the e-mail shortens, the menu scrolls if it must).
    const nav = page.getByRole('navigation', { name: 'Main' });
    const brokenLabels = () =>
      nav.getByRole('link').evaluateAll((links) =>
        links
          .map((a) => {
            const range = document.createRange();
            range.selectNodeContents(a);
            return [a.textContent, new Set(Array.from(range.getClientRects(), (r) => Math.round(r.top))).size] as const;
          })
          .filter(([, rows]) => rows !== 1),
      );
    expect(await nav.getByRole('link').count()).toBeGreaterThan(6);
    expect(await brokenLabels()).toEqual([]);
    await page.setViewportSize({ width: 800, height: 900 });
    expect(await brokenLabels()).toEqual([]);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(800);
    await nav.getByRole('link', { name: 'Marketplace' }).focus();
    const box = (await nav.getByRole('link', { name: 'Marketplace' }).boundingBox())!;
    expect(box.x + box.width).toBeLessThanOrEqual(800);
    await page.screenshot({ path: shot('admin-0-tablet-bar') });
    await page.setViewportSize({ width: 1280, height: 900 });
    expect(await figure(page, 'Total users').textContent()).toBe('2');
    expect(await figure(page, 'New users').textContent()).toBe('2');
    // Requests arrive per finished minute (0 in a product's first minute): a whole number with thousands separators.
    expect(await figure(page, 'Total requests').textContent()).toMatch(/^\d{1,3}(,\d{3})*$/);
    expect(await figure(page, 'Error rate').textContent()).toMatch(/^\d+\.\d{2}%$/);
    for (const card of ['card-system-status', 'card-database', 'card-storage'])
      expect(await page.getByTestId(card).locator('.stat-value').textContent()).toMatch(/^(healthy|warning|unhealthy)$/);
    const items = activity(page).getByRole('listitem');
    const rows = await items.allTextContents();
    // Every event telemetry answered, one row each (nothing happened in between).
    expect(rows).toHaveLength(feed.length);
    expect(rows.some((r) => r.includes('Failed login') && r.includes(ann))).toBe(true);
    expect(rows.some((r) => r.startsWith('Login') && r.includes(ann))).toBe(true);
    expect(rows.some((r) => r.includes('Admin granted') && r.includes(chief))).toBe(true);
    expect(rows.every((r) => !r.includes('Invalid date'))).toBe(true);
    expect(await axeViolations(page)).toEqual([]);
    await page.screenshot({ path: shot('admin-1-dashboard'), fullPage: true });

    // New activity, and the page (not reloaded) shows it by itself.
    const firstUpdate = await page.getByTestId('last-updated').textContent();
    const third = new Api(sys.baseUrl, dataDir);
    await third.signUp(bob);
    await activity(page).getByText(bob).first().waitFor({ timeout: 20_000 });
    await page.waitForFunction(
      () =>
        Array.from(document.querySelectorAll('.figure'))
          .find((f) => f.textContent?.startsWith('Total users'))
          ?.querySelector('.stat-value')?.textContent === '3',
      undefined,
      { timeout: 20_000 },
    );
    expect(await page.getByTestId('last-updated').textContent()).not.toBe(firstUpdate);
    await page.screenshot({ path: shot('admin-2-refreshed'), fullPage: true });

    // The guest pass, switched with the keyboard: Space turns it on and the one-time login shows;
    // Space again turns it off and the login is gone.
    const guest = page.getByRole('region', { name: 'Guest pass' });
    const toggle = guest.getByRole('checkbox');
    await toggle.focus();
    expect(await toggle.isChecked()).toBe(false);
    await page.keyboard.press('Space');
    await guest
      .getByRole('status')
      .getByText(/^Guest login: .+ \/ password .+ \(shown once: note it now\)$/)
      .waitFor();
    await guest.getByText('Enabled', { exact: true }).waitFor();
    expect(await toggle.isChecked()).toBe(true);
    expect(await axeViolations(page)).toEqual([]);
    await page.screenshot({ path: shot('admin-2b-guest-pass'), fullPage: true });
    // Focus stayed on the switch while it saved (a disabled control would have dropped it).
    expect(await toggle.evaluate((t) => t === document.activeElement)).toBe(true);
    await page.keyboard.press('Space');
    await guest.getByText('Disabled', { exact: true }).waitFor();
    expect(await guest.getByRole('status').count()).toBe(0);
    await page.close();
  }, 150_000);

  it('a signed-in user who is not an admin sees Access Denied, and the server refuses every admin call', async () => {
    const user = new Api(sys.baseUrl, dataDir);
    const r = await user.call<{ session_token: string }>('POST', '/auth/login', { email: ann, password: 'a-good-password' });
    user.token = r.body.session_token;
    const page = await pageAs(user.token, 390);
    await page.goto(`${sys.baseUrl}/admin`);
    await page.getByText('Access Denied - This page is only accessible to administrators.').waitFor();
    expect(await page.getByText('Recent Activity').count()).toBe(0);
    expect(await axeViolations(page)).toEqual([]);
    await page.screenshot({ path: shot('admin-3-denied') });
    await page.close();
    for (const route of ['/health/detailed', '/metrics', '/admin/activity-feed', '/admin/guest-pass'])
      expect((await user.call('GET', route)).status).toBe(403);
    expect((await new Api(sys.baseUrl, dataDir).call('GET', '/metrics')).status).toBe(401);
  }, 60_000);
});
