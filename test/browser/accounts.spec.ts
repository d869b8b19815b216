import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { axeViolations, focusIn } from '../support/axe';
import { closeAll, launchBrowser, openPage, shot } from '../support/browser';
import { SHARED_START_MS, sharedSystem, type SharedSystem } from '../support/shared-system';

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
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'reelsmith-browser-'));
  let sys: SharedSystem;
  let browser: Browser;
  let page: Page;
  const email = `newcomer.${Date.now()}@example.com`;
  const password = 'a-good-password';

  beforeAll(async () => {
    [sys, browser] = await Promise.all([sharedSystem(), launchBrowser()]);
    page = await openPage(browser, { width: 1280, height: 800 });
  }, SHARED_START_MS);
  afterAll(() => closeAll(browser, undefined, work));

  it('signs up, verifies through the mailed link, lands signed in and sees the user menu', async () => {
    await page.goto(`${sys.baseUrl}/`);
    const opener = page.getByRole('button', { name: 'Sign In' });
    await opener.focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Sign In' });
    await dialog.waitFor();
    // Focus starts on the first field; typing keeps it there and the dialog open (it used to jump
    // to the close button after the first key, and the next space or Enter closed the dialog).
    expect(await focusIn(page)).toEqual({ inDialog: 'Sign In', label: 'Email' });
    await page.keyboard.type('someone typing@example.com');
    expect(await dialog.getByLabel('Email').inputValue()).toBe('someone typing@example.com');
    expect(await focusIn(page)).toEqual({ inDialog: 'Sign In', label: 'Email' });
    expect(await dialog.isVisible()).toBe(true);
    // The title is a heading and no banner landmark sits inside the dialog; axe finds nothing.
    expect(await dialog.getByRole('heading', { level: 2, name: 'Sign In' }).isVisible()).toBe(true);
    expect(await dialog.getByRole('banner').count()).toBe(0);
    expect(await axeViolations(page)).toEqual([]);
    // Tab and Shift+Tab never reach the page behind the dialog.
    const seen = new Set<string>();
    for (let i = 0; i < 8; i++) {
      await page.keyboard.press('Tab');
      const f = await focusIn(page);
      if (f.label !== 'body') expect(f.inDialog).toBe('Sign In');
      seen.add(f.label);
    }
    for (let i = 0; i < 8; i++) {
      await page.keyboard.press('Shift+Tab');
      const f = await focusIn(page);
      if (f.label !== 'body') expect(f.inDialog).toBe('Sign In');
    }
    expect([...seen]).toEqual(expect.arrayContaining(['Close', 'Email', 'Password', 'Sign In', 'No account yet? Sign up']));
    // Escape closes it and gives the focus back to the button that opened it.
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    expect(await opener.evaluate((b) => b === document.activeElement)).toBe(true);

    await page.keyboard.press('Enter');
    await dialog.getByLabel('Email').waitFor();
    // Opens the dialog like the sign-up case above on purpose: each case walks its own path through it.
    const signupLink = dialog.getByRole('button', { name: 'No account yet? Sign up' });
    await signupLink.focus();
    await page.keyboard.press('Enter');
    const signup = page.getByRole('dialog', { name: 'Create Account' });
    await signup.waitFor();
    // The new step's first field has the focus.
    expect(await focusIn(page)).toEqual({ inDialog: 'Create Account', label: 'Email' });
    expect(await axeViolations(page)).toEqual([]);

    // The spec's validation messages, before anything is sent; typed key by key, Tab between fields.
    await page.keyboard.type(email);
    await page.keyboard.press('Tab');
    await page.keyboard.type('abc12');
    await page.keyboard.press('Tab');
    await page.keyboard.type('abc123');
    await page.keyboard.press('Enter');
    await signup.getByText('Passwords do not match').waitFor();
    await page.keyboard.press('Backspace');
    await page.keyboard.press('Enter');
    await signup.getByText('Password must be at least 6 characters').waitFor();
    expect(await signup.getByLabel('Email').inputValue()).toBe(email);

    await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Control+A');
    await page.keyboard.type(password);
    await page.keyboard.press('Tab');
    await page.keyboard.press('Control+A');
    await page.keyboard.type(password);
    await page.screenshot({ path: shot('accounts-1-signup') });
    await page.keyboard.press('Enter');

    // Sign-up success moves to verify, carrying the e-mail.
    const verify = page.getByRole('dialog', { name: 'Verify Your Email' });
    await verify.waitFor();
    expect(await verify.getByLabel('Email').inputValue()).toBe(email);
    // The e-mail is carried (and disabled): focus goes to the code, which keeps digits only.
    expect(await focusIn(page)).toEqual({ inDialog: 'Verify Your Email', label: 'Verification Code' });
    await page.keyboard.type('12a3');
    expect(await verify.getByLabel('Verification Code').inputValue()).toBe('123');
    expect(await axeViolations(page)).toEqual([]);
    await page.keyboard.type('456');
    await page.keyboard.press('Enter');
    await verify.getByRole('alert').waitFor();
    await page.screenshot({ path: shot('accounts-2-verify-mode') });

    const mail = await until(() => latestMail(sys.dataDir, email));
    const link = /(http:\/\/localhost:\d+\/verify-email\?token=[A-Za-z0-9_-]+)/.exec(mail)![1]!;
    await page.goto(link.replace('localhost', '127.0.0.1'));
    await page.getByRole('heading', { name: 'Email Verified!' }).waitFor();
    expect(await axeViolations(page)).toEqual([]);
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
    expect(await axeViolations(page)).toEqual([]);
    await page.screenshot({ path: shot('accounts-4-user-menu') });
    // Settings holds the signed-in user's account section (password, sessions, deletion).
    await menu.getByRole('menuitem', { name: 'Settings' }).click();
    const settings = page.getByRole('dialog', { name: 'Default Settings' });
    await settings.getByRole('heading', { name: 'Change Password' }).waitFor();
    expect(await settings.getByRole('heading', { name: 'Delete Account' }).isVisible()).toBe(true);
    // The public name for the Hall of Fame, typed key by key and saved with Enter.
    await settings.getByRole('textbox', { name: 'Public name' }).focus();
    await page.keyboard.type('Ann Lee');
    await page.keyboard.press('Enter');
    await settings.getByText('Saved. Your featured reels show “Ann Lee”.').waitFor();
    expect(await settings.getByRole('textbox', { name: 'Public name' }).inputValue()).toBe('Ann Lee');
    expect(await axeViolations(page)).toEqual([]);
    await page.keyboard.press('Escape');
    await settings.waitFor({ state: 'hidden' });

    // The stored token is checked at start: a reload keeps the user signed in.
    await page.reload();
    await menuButton.waitFor();
    // The public name is the account's: it is there after the reload.
    await menuButton.click();
    await menu.getByRole('menuitem', { name: 'Settings' }).click();
    await settings.getByRole('heading', { name: 'Public Name' }).waitFor();
    await page.waitForFunction(
      () => (document.querySelector('input[name="display_name"]') as HTMLInputElement | null)?.value === 'Ann Lee',
    );
    await page.keyboard.press('Escape');
    await settings.waitFor({ state: 'hidden' });

    // Sign out, then sign in with the password.
    await menuButton.click();
    await menu.getByRole('menuitem', { name: 'Sign Out' }).click();
    await page.getByRole('button', { name: 'Sign In' }).click();
    const signin = page.getByRole('dialog', { name: 'Sign In' });
    // Forgot password, typed: the same answer whether or not the address has an account.
    await signin.getByRole('button', { name: 'Forgot password?' }).click();
    const forgot = page.getByRole('dialog', { name: 'Reset Your Password' });
    await forgot.waitFor();
    expect(await focusIn(page)).toEqual({ inDialog: 'Reset Your Password', label: 'Email' });
    await page.keyboard.type(email);
    await page.keyboard.press('Enter');
    await forgot.getByRole('status').waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await forgot.getByRole('button', { name: 'Back to sign in' }).click();
    await signin.waitFor();
    expect(await focusIn(page)).toEqual({ inDialog: 'Sign In', label: 'Email' });
    await page.keyboard.press('Control+A');
    await page.keyboard.type(email);
    await page.keyboard.press('Tab');
    await page.keyboard.type('wrong-password');
    await page.keyboard.press('Enter');
    await signin.getByText('Invalid email or password.').waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await page.keyboard.press('Control+A');
    await page.keyboard.type(password);
    await page.keyboard.press('Enter');
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
    expect(await axeViolations(page)).toEqual([]);
    await page.screenshot({ path: shot('accounts-5-verify-failed') });
    // The reset-password page, outside the layout like /verify-email: its form passes axe too.
    await page.goto(`${sys.baseUrl}/reset-password?token=forged-token-value`);
    await page.getByRole('heading', { level: 1, name: 'Choose a New Password' }).waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await page.goto(`${sys.baseUrl}/verify-email?token=forged-token-value`);
    await page.getByRole('heading', { name: 'Verification Failed' }).waitFor();
    await page.getByRole('button', { name: 'Try Logging In' }).click();
    await page.getByRole('dialog', { name: 'Sign In' }).waitFor();
  });
});
