import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, shot } from '../support/browser';
import { startSystem, type RunningSystem } from '../support/system';

/** The newest .eml written for `to` under DATA_DIR/mail (the embedded default has no SMTP). */
function latestMail(dataDir: string, to: string): string | undefined {
  const dir = path.join(dataDir, 'mail');
  if (!fs.existsSync(dir)) return undefined;
  const texts = fs
    .readdirSync(dir)
    .sort()
    .map((f) =>
      fs
        .readFileSync(path.join(dir, f), 'utf8')
        .replace(/=\r?\n/g, '')
        .replace(/=([0-9A-F]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16))),
    )
    .filter((t) => t.includes(`To: ${to}`));
  return texts.at(-1);
}

async function until<T>(fn: () => T | undefined, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = fn();
    if (v) return v;
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('accounts in Chromium against the whole product', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'reelsmith-browser-'));
  let sys: RunningSystem;
  let browser: Browser;
  let page: Page;
  const email = `newcomer.${Date.now()}@example.com`;
  const password = 'a-good-password';

  beforeAll(async () => {
    [sys, browser] = await Promise.all([startSystem(dataDir), launchBrowser()]);
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    page.on('pageerror', (e) => console.error('page error:', e.message));
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await sys?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('signs up, verifies through the mailed link, lands signed in and sees the user menu', async () => {
    await page.goto(`${sys.baseUrl}/`);
    await page.getByRole('button', { name: 'Sign In' }).click();
    const dialog = page.getByRole('dialog', { name: 'Sign In' });
    await dialog.getByRole('button', { name: 'No account yet? Sign up' }).click();
    const signup = page.getByRole('dialog', { name: 'Create Account' });

    // The spec's validation messages, before anything is sent.
    await signup.getByLabel('Email').fill(email);
    await signup.getByLabel('Password', { exact: true }).fill('abc12');
    await signup.getByLabel('Confirm Password').fill('abc123');
    await signup.getByRole('button', { name: 'Create Account' }).click();
    await signup.getByText('Passwords do not match').waitFor();
    await signup.getByLabel('Confirm Password').fill('abc12');
    await signup.getByRole('button', { name: 'Create Account' }).click();
    await signup.getByText('Password must be at least 6 characters').waitFor();

    await signup.getByLabel('Password', { exact: true }).fill(password);
    await signup.getByLabel('Confirm Password').fill(password);
    await page.screenshot({ path: shot('accounts-1-signup') });
    await signup.getByRole('button', { name: 'Create Account' }).click();

    // Sign-up success moves to verify, carrying the e-mail.
    const verify = page.getByRole('dialog', { name: 'Verify Your Email' });
    await verify.waitFor();
    expect(await verify.getByLabel('Email').inputValue()).toBe(email);
    await page.screenshot({ path: shot('accounts-2-verify-mode') });

    const mail = await until(() => latestMail(sys.dataDir, email));
    const link = /(http:\/\/localhost:\d+\/verify-email\?token=[A-Za-z0-9_-]+)/.exec(mail)![1]!;
    await page.goto(link.replace('localhost', '127.0.0.1'));
    await page.getByRole('heading', { name: 'Email Verified!' }).waitFor();
    await page.screenshot({ path: shot('accounts-3-verified') });
    await page.getByRole('link', { name: 'Go to Dashboard' }).click();

    const menuButton = page.getByRole('button', { name: email });
    await menuButton.waitFor();
    await menuButton.click();
    const menu = page.getByRole('menu', { name: 'User menu' });
    await menu.waitFor();
    expect(await menu.getByText('Plan: Free').isVisible()).toBe(true);
    expect(await menu.getByTestId('usage-line').textContent()).toBe('1 free video available today');
    for (const item of ['Upgrade for More Credits', 'Billing and Plans', 'Settings', 'Sign Out'])
      expect(await menu.getByRole('menuitem', { name: item }).isVisible()).toBe(true);
    // Not an admin: no admin links.
    expect(await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Admin' }).count()).toBe(0);
    await page.screenshot({ path: shot('accounts-4-user-menu') });
    // Settings holds the signed-in user's account section (password, sessions, deletion).
    await menu.getByRole('menuitem', { name: 'Settings' }).click();
    const settings = page.getByRole('dialog', { name: 'Default Settings' });
    await settings.getByRole('heading', { name: 'Change Password' }).waitFor();
    expect(await settings.getByRole('heading', { name: 'Delete Account' }).isVisible()).toBe(true);
    await page.keyboard.press('Escape');
    await settings.waitFor({ state: 'hidden' });

    // The stored token is checked at start: a reload keeps the user signed in.
    await page.reload();
    await menuButton.waitFor();

    // Sign out, then sign in with the password.
    await menuButton.click();
    await menu.getByRole('menuitem', { name: 'Sign Out' }).click();
    await page.getByRole('button', { name: 'Sign In' }).click();
    const signin = page.getByRole('dialog', { name: 'Sign In' });
    await signin.getByLabel('Email').fill(email);
    await signin.getByLabel('Password').fill('wrong-password');
    await signin.getByRole('button', { name: 'Sign In' }).click();
    await signin.getByText('Invalid email or password.').waitFor();
    await signin.getByLabel('Password').fill(password);
    await signin.getByRole('button', { name: 'Sign In' }).click();
    await menuButton.waitFor();
  }, 120_000);

  it('clears a stored token the server refuses', async () => {
    await page.evaluate(() => localStorage.setItem('reelsmith.session_token', 'not-a-real-token'));
    await page.goto(`${sys.baseUrl}/pricing`);
    await page.getByRole('button', { name: 'Sign In' }).waitFor();
    expect(await page.evaluate(() => localStorage.getItem('reelsmith.session_token'))).toBeNull();
  });

  it('shows the verify page errors with their exact messages', async () => {
    await page.goto(`${sys.baseUrl}/verify-email`);
    await page.getByText('Invalid verification link. No token was found.').waitFor();
    await page.goto(`${sys.baseUrl}/verify-email?token=forged-token-value`);
    await page.getByRole('heading', { name: 'Verification Failed' }).waitFor();
    await page.getByText('This verification link is invalid, has already been used, or has expired.').waitFor();
    await page.screenshot({ path: shot('accounts-5-verify-failed') });
    await page.getByRole('button', { name: 'Try Logging In' }).click();
    await page.getByRole('dialog', { name: 'Sign In' }).waitFor();
  });
});
