import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type BrowserContextOptions, type FileChooser, type Page } from 'playwright-core';
import { ROOT, stopSystem, type RunningSystem } from './system';

export const CHROMIUM = '/usr/bin/chromium';
export const ARTIFACTS = path.join(ROOT, 'test-artifacts');
/**
 * Whether the specs' screenshots are saved (into ARTIFACTS, for a person to look at; no test reads
 * them): by default yes, but not on CI, where the clone and its artifacts are thrown away and each
 * full-page capture costs Chromium CPU the other lane is waiting for. SCREENSHOTS=1 or 0 decides.
 */
const SCREENSHOTS = process.env.SCREENSHOTS ? process.env.SCREENSHOTS !== '0' : process.env.CI !== 'true';

/**
 * Debian's Chromium, headless, with the flags this machine needs (no network beyond loopback).
 * Every page it opens is watched for Content-Security-Policy violations; closing the browser fails
 * (so the spec's afterAll fails) when the app broke its own policy anywhere in the spec.
 */
export async function launchBrowser(): Promise<Browser> {
  if (!fs.existsSync(CHROMIUM)) throw new Error(`Chromium is not installed at ${CHROMIUM}: sudo apt-get install -y chromium`);
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  const browser = await launch();
  const violations: string[] = [];
  const watch = (page: Page) => {
    page.on('console', (m) => {
      if (/Content Security Policy/i.test(m.text())) violations.push(`${page.url()}: ${m.text()}`);
    });
    // (An element's screenshot, `locator.screenshot`, is small and still taken.)
    if (!SCREENSHOTS) page.screenshot = async () => Buffer.alloc(0);
  };
  const newPage = browser.newPage.bind(browser);
  browser.newPage = async (...args) => {
    const page = await newPage(...args);
    watch(page);
    return page;
  };
  const newContext = browser.newContext.bind(browser);
  browser.newContext = async (...args) => {
    const context = await newContext(...args);
    context.on('page', watch);
    return context;
  };
  const close = browser.close.bind(browser);
  browser.close = async (...args) => {
    await close(...args);
    if (violations.length) throw new Error(`Content-Security-Policy violations:\n${violations.join('\n')}`);
  };
  return browser;
}

function launch(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

export const shot = (name: string) => path.join(ARTIFACTS, `${name}.png`);

/** Where the app keeps its session token in localStorage (web/src/base/session.ts's TOKEN_KEY). */
export const TOKEN_KEY = 'reelsmith.session_token';

/**
 * Context options (for `browser.newContext` or `browser.newPage`) of a visitor already signed in
 * with `token` at `baseUrl`: the app's session token in that origin's localStorage from the
 * start, as a sign-in earlier in the same browser leaves it, with no page loaded only to set it.
 */
export function signedIn(baseUrl: string, token: string): { storageState: BrowserContextOptions['storageState'] } {
  return {
    storageState: {
      cookies: [],
      origins: [{ origin: new URL(baseUrl).origin, localStorage: [{ name: TOKEN_KEY, value: token }] }],
    },
  };
}

/** A new page of `browser` at `viewport`, printing the app's uncaught errors on the test's console. */
export async function openPage(browser: Browser, viewport = { width: 1280, height: 1000 }): Promise<Page> {
  const page = await browser.newPage({ viewport });
  page.on('pageerror', (e) => console.error('page error:', e.message));
  return page;
}

/**
 * A browser spec's afterAll: closes the browser, stops the system it started (none for the shared
 * product: pass undefined) and removes its folders.
 */
export async function closeAll(browser: Browser | undefined, sys: RunningSystem | undefined, ...dirs: string[]): Promise<void> {
  await browser?.close();
  await stopSystem(sys, ...dirs);
}

/** Presses Tab until the focused element's name matches (a person reading the focus ring). */
export async function tabTo(page: Page, name: RegExp, maxPresses = 150): Promise<void> {
  for (let i = 0; i < maxPresses; i++) {
    await page.keyboard.press('Tab');
    const focused = await page.evaluate(() => {
      const a = document.activeElement as HTMLElement | null;
      return (a?.getAttribute('aria-label') || a?.textContent || '').trim();
    });
    if (name.test(focused)) return;
  }
  throw new Error(`Tab never reached ${name}`);
}

/**
 * Resolves with the page's next file chooser. Call it when the page opens: Playwright turns its
 * file-chooser interception on asynchronously, so a listener added just before the key press can
 * miss the chooser (it did in CI, and in 4 of 6 tries of a minimal page).
 */
export const nextFileChooser = (page: Page): Promise<FileChooser> => new Promise((resolve) => page.once('filechooser', resolve));

/** Waits until every tile in the media tray (clips and music) is in one of `states`: uploaded and probed by default. */
export async function trayDone(page: Page, states: string[] = ['ready']): Promise<void> {
  await page.waitForFunction(
    (wanted) =>
      Array.from(document.querySelectorAll('[data-testid=tray-clip],[data-testid=tray-music]')).every((t) =>
        wanted.includes(t.getAttribute('data-state') ?? ''),
      ),
    states,
    { timeout: 60_000 },
  );
}

/** Waits until the tray holds `clips` ready clips and its song is ready (files given through the file chooser). */
export async function trayHolds(page: Page, clips: number): Promise<void> {
  await page.waitForFunction(
    (n) =>
      document.querySelectorAll('[data-testid=tray-clip][data-state=ready]').length === n &&
      document.querySelector('[data-testid=tray-music]')?.getAttribute('data-state') === 'ready',
    clips,
    { timeout: 60_000 },
  );
}

/** Opens the app at `baseUrl` with `token` as the stored session, and waits for the account menu. */
export async function openSignedIn(page: Page, baseUrl: string, token: string): Promise<void> {
  await page.evaluate(([key, t]) => localStorage.setItem(key, t), [TOKEN_KEY, token] as const);
  await page.goto(`${baseUrl}/`);
  await page.getByRole('button', { name: /@example\.com/ }).waitFor();
}

/** Signs in through the Sign In dialog with the keyboard only (Home must be open and signed out). */
export async function signInByKeyboard(page: Page, email: string, password: string): Promise<void> {
  await page.getByRole('button', { name: 'Sign In' }).waitFor();
  await tabTo(page, /^Sign In$/);
  await page.keyboard.press('Enter');
  const signIn = page.getByRole('dialog', { name: 'Sign In' });
  await signIn.waitFor();
  await page.keyboard.type(email);
  await page.keyboard.press('Tab');
  await page.keyboard.type(password);
  await page.keyboard.press('Enter');
  await page.getByRole('button', { name: email }).waitFor();
  await signIn.waitFor({ state: 'detached' });
}
