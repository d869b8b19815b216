import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import type { FastifyInstance } from 'fastify';
import { LocalObjectStore, createMetrics } from '@reelsmith/kit';
import { makeTestMedia, quietLogger, tempDir } from '@reelsmith/kit/testing';
import type { Peers } from '../../services/gateway/src/repositories/clients';
import { buildHttpApp } from '../../services/gateway/src/transport/http/server';
import { catalogueReply } from '../../services/billing/src/transport/grpc';
import { axeViolations } from '../support/axe';
import { launchBrowser, shot } from '../support/browser';
import { listenLocal } from '../support/in-process';
import { ROOT } from '../support/system';

/** Three featured reels with real frames and a real MP4, served by the gateway's public routes over a stand-in media-library. */
/** `billing.down` makes billing's catalogue fail, as when billing is down. */
function showcasePeers(billing = { down: false }): Peers {
  const reels = [
    ['11111111-2222-4333-8444-000000000001', 'Relaxed cut', 'Cinematic', 12, 40],
    ['11111111-2222-4333-8444-000000000002', 'High-energy cut', 'Action', 8, 95],
    ['11111111-2222-4333-8444-000000000003', 'Vertical story', 'Social', 10, 7],
  ] as const;
  const entry = ([id, title, category, dur, views]: (typeof reels)[number]) => ({
    reel: {
      id,
      ownerId: 'system',
      title,
      description: `A ${category.toLowerCase()} reel`,
      objectKey: 'reels/demo.mp4',
      thumbnailKey: 'showcase/f2.jpg',
      durationSec: dur,
      createdAtUnixMs: 0n,
    },
    category,
    views: BigInt(views),
    featuredAtUnixMs: 1_760_000_000_000n,
    previewKeys: ['showcase/f1.jpg', 'showcase/f2.jpg', 'showcase/f3.jpg'],
  });
  return {
    identity: {
      authenticate: async () => Promise.reject(new Error('no sessions here')),
      submitContact: async () => ({}),
      // The system account is named; the other creator chose no public name and is not listed.
      getPublicNames: async ({ userIds }: { userIds: string[] }) => ({
        names: userIds.filter((id) => id === 'system').map((userId) => ({ userId, displayName: 'Reelsmith' })),
      }),
    },
    billing: {
      // The catalogue as billing answers it (the pricing page shows its plans and packs).
      getCatalogue: async () => {
        if (billing.down) throw new Error('billing is down');
        return catalogueReply();
      },
      estimate: async (r: { pacingPreset: string; hasMusic: boolean; totalSourceBytes: bigint }) => ({
        credits: BigInt(
          Math.max(
            10,
            Math.ceil(((r.hasMusic ? 190 : 120) / 6) * ({ relaxed: 1, standard: 1.5 } as Record<string, number>)[r.pacingPreset]! || 2),
          ),
        ),
      }),
    },
    media: {
      listShowcase: async ({ category, order }: { category: string; order: string }) => {
        const list = reels.filter((r) => !category || r[2] === category).map(entry);
        if (order === 'views') list.sort((a, b) => Number(b.views - a.views));
        return { entries: list, categories: ['Action', 'Cinematic', 'Social'] };
      },
      getShowcaseEntry: async ({ reelId }: { reelId: string }) => entry(reels.find((r) => r[0] === reelId)!),
      countShowcaseView: async () => ({ views: 1n, counted: true }),
      getShowcaseStats: async () => ({ totalReels: 42n, activeCreators30d: 5n }),
      listShowcaseCreators: async () => ({
        creators: [
          { ownerId: 'unnamed', reels: 2n, featuredReels: 1n, featuredViews: 90n },
          { ownerId: 'system', reels: 4n, featuredReels: 3n, featuredViews: 12n },
        ],
      }),
      getShowcaseRatings: async ({ reelIds }: { reelIds: string[] }) => ({
        ratings: reelIds.map((reelId) => ({ reelId, average: 0, count: 0n, mine: 0 })),
      }),
    },
    close: () => undefined,
  } as unknown as Peers;
}

const routes = [
  ['/', 'Create a Reel'],
  ['/demos', 'Demo Gallery'],
  ['/hall-of-fame', 'Hall of Fame'],
  ['/guide', 'Guide'],
  ['/about', 'About Us'],
  ['/contact', 'Contact'],
  ['/pricing', 'Pricing'],
  ['/library', 'Video Library'],
  ['/no-such-page', 'Page not found'],
] as const;

/** Every public route, at desktop and phone width, checked by axe-core and for sideways scrolling. */
describe('public pages: accessibility and layout in Chromium', () => {
  const objects = tempDir('public-pages');
  let app: FastifyInstance;
  let browser: Browser;
  let base: string;
  const errors: string[] = [];

  beforeAll(async () => {
    const store = new LocalObjectStore({ root: objects.dir, signingSecret: 'k'.repeat(32), publicUrl: 'http://localhost' });
    const tmp = path.join(objects.dir, 'src');
    fs.mkdirSync(tmp);
    makeTestMedia(
      path.join(tmp, 'demo.mp4'),
      ['testsrc=size=320x180:rate=30:duration=2'],
      ['-pix_fmt', 'yuv420p', '-movflags', '+faststart'],
    );
    await store.put('reels/demo.mp4', fs.readFileSync(path.join(tmp, 'demo.mp4')));
    for (const n of [1, 2, 3]) {
      execFileSync('ffmpeg', [
        '-v',
        'error',
        '-ss',
        String(n * 0.5),
        '-i',
        path.join(tmp, 'demo.mp4'),
        '-frames:v',
        '1',
        path.join(tmp, `f${n}.jpg`),
      ]);
      await store.put(`showcase/f${n}.jpg`, fs.readFileSync(path.join(tmp, `f${n}.jpg`)));
    }
    app = await buildHttpApp({
      log: quietLogger(),
      metrics: createMetrics('gateway'),
      webDist: path.join(ROOT, 'web', 'dist'),
      health: { report: async () => ({ status: 'healthy', services: { gateway: 'SERVING' }, unavailable: [], instance: 'browser-test' }) },
      peers: showcasePeers(),
      store,
      files: { store, signingSecret: 'k'.repeat(32) },
    });
    base = await listenLocal(app);
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await app?.close();
    objects.remove();
  });

  /** axe-core's violations of any impact. */
  const axe = axeViolations;

  describe.each([
    ['desktop', 1280],
    ['phone', 390],
    ['small-phone', 320],
  ])('%s', (size, width) => {
    it.each(routes)('%s: its own title and description, no axe violations, nothing scrolls sideways', async (route, heading) => {
      // axe-core is injected as a script, which the app's strict CSP refuses (as it should); the
      // other browser specs run under the CSP and fail on any violation.
      const page = await browser.newPage({ viewport: { width, height: 844 }, bypassCSP: true });
      page.on('pageerror', (e) => errors.push(`${route}: ${e.message}`));
      await page.goto(`${base}${route}`);
      await page.getByRole('heading', { level: 1, name: heading }).waitFor();
      await page.waitForLoadState('networkidle');
      if (route === '/demos' || route === '/hall-of-fame') await page.getByRole('button', { name: 'Play Relaxed cut' }).waitFor();
      if (route === '/hall-of-fame') {
        // Creator cards from real accounts: the named one only, with its own figures.
        const cards = page.getByRole('region', { name: 'Creators' }).getByRole('listitem');
        await cards.first().waitFor();
        expect(await cards.allInnerTexts()).toEqual([
          expect.stringMatching(/^#1\s+Reelsmith\s+4 reels made\s+3 featured reels · 12 views$/),
        ]);
      }
      if (route === '/pricing') await page.getByRole('article', { name: 'Standard plan' }).waitFor();
      if (route === '/about') {
        // The history is the changelog's: its first day, and what shipped then.
        const history = page.getByRole('list', { name: 'Changelog' });
        await history.getByRole('heading', { level: 3, name: 'Nov 21, 2026' }).waitFor();
        expect(await history.getByText(/^The first version: /).count()).toBe(1);
      }

      expect(await page.title()).toBe(`${heading} · Reelsmith`);
      const description = await page.locator('meta[name="description"]').getAttribute('content');
      expect(description?.length).toBeGreaterThan(20);
      expect(await axe(page)).toEqual([]);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      expect(overflow).toBeLessThanOrEqual(0);
      // The top bar fits, and "Sign In" keeps to one line.
      const bar = await page.evaluate(() => {
        const header = document.querySelector('header.topnav')!;
        const signIn = Array.from(header.querySelectorAll('button')).find((b) => b.textContent === 'Sign In');
        const range = document.createRange();
        if (signIn) range.selectNodeContents(signIn);
        return { overflow: header.scrollWidth - header.clientWidth, signInLines: signIn ? range.getClientRects().length : -1 };
      });
      expect(bar).toEqual({ overflow: 0, signInLines: 1 });
      await page.screenshot({ path: shot(`public-${size}${route.replace(/\//g, '-')}`), fullPage: true });
      await page.close();
      expect(errors).toEqual([]);
    });
  });

  it("sends each page's HTML with its own code preloaded, and the browser uses what it preloaded", async () => {
    for (const [route, chunk] of [
      ['/demos', 'DemosPage'],
      ['/pricing', 'PricingPage'],
      ['/', 'HomePage'],
    ] as const) {
      const html = await (await fetch(`${base}${route}`)).text();
      const preloads = [...html.matchAll(/<link rel="modulepreload" crossorigin href="([^"]+)">/g)].map((m) => m[1]!);
      const own = preloads.find((href) => href.startsWith(`/assets/${chunk}-`));
      expect({ route, own: Boolean(own) }).toEqual({ route, own: true });
      for (const href of preloads)
        expect({ href, status: (await fetch(`${base}${href}`, { method: 'HEAD' })).status }).toEqual({ href, status: 200 });
    }
    // The page's chunk is fetched once: the preload serves the import.
    const page = await browser.newPage();
    const fetched: string[] = [];
    page.on('request', (r) => void fetched.push(new URL(r.url()).pathname));
    await page.goto(`${base}/demos`);
    await page.getByRole('heading', { level: 1 }).first().waitFor();
    expect(fetched.filter((p) => p.startsWith('/assets/DemosPage-'))).toHaveLength(1);
    expect(fetched.filter((p) => p.startsWith('/assets/public-') && p.endsWith('.css'))).toHaveLength(1);
    await page.close();
  });

  it('at 320 px the menu button opens the main menu by keyboard; Escape closes it; the sign-in dialog fits and passes axe', async () => {
    const page = await browser.newPage({ viewport: { width: 320, height: 640 } });
    try {
      await page.goto(`${base}/about`);
      // The page's own code loads after the header's: axe must see the page, not only the shell.
      await page.getByRole('heading', { level: 1, name: 'About Us' }).waitFor();
      const toggle = page.getByRole('button', { name: 'Open menu' });
      await toggle.focus();
      await page.keyboard.press('Enter');
      const nav = page.getByRole('navigation', { name: 'Main' });
      await nav.getByRole('link', { name: 'Pricing' }).waitFor();
      expect(await page.getByRole('button', { name: 'Close menu' }).getAttribute('aria-expanded')).toBe('true');
      expect(await axe(page)).toEqual([]);
      await page.keyboard.press('Tab');
      expect(await nav.getByRole('link', { name: 'Create' }).evaluate((a) => a === document.activeElement)).toBe(true);
      await page.keyboard.press('Escape');
      await nav.getByRole('link', { name: 'Pricing' }).waitFor({ state: 'hidden' });
      expect(await page.getByRole('button', { name: 'Open menu' }).evaluate((b) => b === document.activeElement)).toBe(true);
      // Enter on a link goes there and closes the menu.
      await page.keyboard.press('Enter');
      await page.keyboard.press('Tab');
      await page.keyboard.press('Enter');
      await page.getByRole('heading', { level: 1, name: 'Create a Reel' }).waitFor();
      expect(await nav.isVisible()).toBe(false);

      const signIn = page.getByRole('button', { name: 'Sign In' });
      await signIn.focus();
      await page.keyboard.press('Enter');
      const dialog = page.getByRole('dialog', { name: 'Sign In' });
      await dialog.waitFor();
      await page.keyboard.type('phone@example.com');
      expect(await dialog.getByLabel('Email').inputValue()).toBe('phone@example.com');
      const box = (await dialog.boundingBox())!;
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(320);
      expect(await axe(page)).toEqual([]);
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'detached' });
      expect(await signIn.evaluate((b) => b === document.activeElement)).toBe(true);
    } finally {
      await page.close();
    }
  });

  it('contact: typed key by key, Tab between fields, the topic by arrow key, sent with Enter on the button', async () => {
    const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
    const sent: Array<Record<string, string>> = [];
    page.on('request', (r) => void (r.url().endsWith('/api/v1/contact') && sent.push(r.postDataJSON() as Record<string, string>)));
    try {
      await page.goto(`${base}/contact`);
      const name = page.getByLabel('Name');
      await name.focus();
      await page.keyboard.type('Ada Typist');
      await page.keyboard.press('Tab');
      await page.keyboard.type('ada@example.com');
      await page.keyboard.press('Tab');
      await page.keyboard.press('ArrowDown'); // General question -> Technical support
      await page.keyboard.press('Tab');
      await page.keyboard.type('The dialogs keep what I type now. Thank you!');
      await page.keyboard.press('Tab'); // the bots' field is out of the tab order
      expect(await page.getByRole('button', { name: 'Send Message' }).evaluate((b) => b === document.activeElement)).toBe(true);
      await page.keyboard.press('Enter');
      await page.getByRole('status').getByText('Thank you! Your message has been sent').waitFor();
      expect(sent).toEqual([
        {
          name: 'Ada Typist',
          email: 'ada@example.com',
          topic: 'Technical support',
          message: 'The dialogs keep what I type now. Thank you!',
          website: '',
        },
      ]);
    } finally {
      await page.close();
    }
  });

  it('pricing with billing down says so once and asks again only when told to', async () => {
    // Its own gateway: the shared one caches the catalogue for a minute.
    const billing = { down: true };
    const down = await buildHttpApp({
      log: quietLogger(),
      metrics: createMetrics('gateway'),
      webDist: path.join(ROOT, 'web', 'dist'),
      health: { report: async () => ({ status: 'healthy', services: { gateway: 'SERVING' }, unavailable: [], instance: 'browser-test' }) },
      peers: showcasePeers(billing),
    });
    await down.listen({ port: 0, host: '127.0.0.1' });
    const page = await browser.newPage({ viewport: { width: 1280, height: 844 } });
    try {
      let asked = 0;
      page.on('request', (r) => void (r.url().endsWith('/api/v1/billing/catalogue') && asked++));
      await page.goto(`http://127.0.0.1:${(down.server.address() as AddressInfo).port}/pricing`);
      await page.getByRole('alert').filter({ hasText: 'Plans could not be loaded.' }).waitFor();
      await page.waitForTimeout(1500);
      // The page asked once per failed load, not in a loop.
      expect(asked).toBeLessThanOrEqual(2);
      const before = asked;
      billing.down = false;
      await page.getByRole('button', { name: 'Try again' }).focus();
      await page.keyboard.press('Enter');
      await page.getByRole('article', { name: 'Standard plan' }).waitFor();
      expect(asked).toBeGreaterThan(before);
      await page.getByRole('heading', { name: 'Credit packs' }).waitFor();
    } finally {
      await page.close();
      await down.close();
    }
  });

  it('plays a showcase reel in the modal, cycles the hover preview, and filters by category', async () => {
    // axe is injected as a script, which the app's CSP refuses (see above).
    const page = await browser.newPage({ viewport: { width: 390, height: 844 }, bypassCSP: true });
    await page.goto(`${base}/demos`);
    const card = page.getByRole('button', { name: 'Play High-energy cut' });
    await card.hover();
    const img = card.locator('img');
    const first = await img.getAttribute('src');
    await page.waitForTimeout(900);
    expect(await img.getAttribute('src')).not.toBe(first);
    await card.click();
    const dialog = page.getByRole('dialog', { name: 'High-energy cut' });
    await dialog.waitFor();
    const played = await dialog
      .locator('video')
      .evaluate(
        (v: HTMLVideoElement) =>
          new Promise<number>((resolve) =>
            v.readyState >= 2 ? resolve(v.duration) : v.addEventListener('loadeddata', () => resolve(v.duration)),
          ),
      );
    expect(played).toBeGreaterThan(1.5);
    expect(await axe(page)).toEqual([]);
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Social' }).click();
    await page.getByRole('button', { name: 'Play Vertical story' }).waitFor();
    expect(await page.getByRole('button', { name: /^Play / }).count()).toBe(1);
    await page.close();
  });
});
