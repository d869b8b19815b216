import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import type { FastifyInstance } from 'fastify';
import { createMetrics } from '@reelsmith/kit';
import { quietLogger } from '@reelsmith/kit/testing';
import { buildHttpApp } from '../../services/gateway/src/transport/http/server';
import { launchBrowser, shot } from '../support/browser';
import { listenLocal } from '../support/in-process';
import { ROOT } from '../support/system';

// The built web app served by the gateway's real HTTP surface.
describe('web shell in Chromium', () => {
  let app: FastifyInstance;
  let browser: Browser;
  let base: string;
  const errors: string[] = [];

  beforeAll(async () => {
    app = await buildHttpApp({
      log: quietLogger(),
      metrics: createMetrics('gateway'),
      webDist: path.join(ROOT, 'web', 'dist'),
      health: { report: async () => ({ status: 'healthy', services: { gateway: 'SERVING' }, unavailable: [], instance: 'browser-test' }) },
    });
    base = await listenLocal(app);
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  const open = async (route: string, width = 1280): Promise<Page> => {
    const page = await browser.newPage({ viewport: { width, height: 800 } });
    page.on('pageerror', (e) => errors.push(`${route}: ${e.message}`));
    await page.goto(`${base}${route}`);
    return page;
  };

  it.each([
    ['/', 'Create a Reel'],
    ['/demos', 'Demo Gallery'],
    ['/guide', 'Guide'],
    ['/pricing', 'Pricing'],
    ['/reels', 'My Reels'],
    ['/library', 'Video Library'],
    ['/about', 'About Us'],
    ['/hall-of-fame', 'Hall of Fame'],
    ['/contact', 'Contact'],
    ['/admin', 'System Dashboard'],
    ['/footage-marketplace', 'Footage Marketplace'],
  ])('%s shows its page inside the shared layout', async (route, title) => {
    const page = await open(route);
    await page.getByRole('heading', { level: 1, name: title }).waitFor();
    expect(await page.getByRole('navigation', { name: 'Main' }).isVisible()).toBe(true);
    const footer = page.getByRole('navigation', { name: 'Footer' });
    expect(await footer.getByRole('link').allTextContents()).toEqual(['Demos', 'Pricing', 'Guide', 'About Us', 'Hall of Fame', 'Contact']);
    await page.screenshot({ path: shot(`shell${route === '/' ? '-home' : route.replace(/\//g, '-')}`) });
    await page.close();
    expect(errors).toEqual([]);
  });

  it('shows /verify-email outside the shared layout', async () => {
    const page = await open('/verify-email');
    await page.getByRole('heading', { level: 1, name: 'Verification Failed' }).waitFor();
    await page.getByText('Invalid verification link. No token was found.').waitFor();
    expect(await page.getByRole('navigation', { name: 'Footer' }).count()).toBe(0);
    expect(await page.getByRole('navigation', { name: 'Main' }).count()).toBe(0);
    await page.screenshot({ path: shot('shell-verify-email') });
    await page.close();
  });

  it('navigates with the footer links without a page load', async () => {
    const page = await open('/');
    await page.evaluate(() => ((window as unknown as { marker: number }).marker = 1));
    await page.getByRole('navigation', { name: 'Footer' }).getByRole('link', { name: 'Hall of Fame' }).click();
    await page.getByRole('heading', { level: 1, name: 'Hall of Fame' }).waitFor();
    expect(page.url()).toBe(`${base}/hall-of-fame`);
    expect(await page.evaluate(() => (window as unknown as { marker?: number }).marker)).toBe(1);
    await page.close();
  });

  it('has a working mobile menu on a narrow screen', async () => {
    const page = await open('/', 390);
    const nav = page.getByRole('navigation', { name: 'Main' });
    expect(await nav.isVisible()).toBe(false);
    await page.getByRole('button', { name: 'Open menu' }).click();
    expect(await nav.isVisible()).toBe(true);
    await page.screenshot({ path: shot('shell-mobile-menu') });
    await nav.getByRole('link', { name: 'Pricing' }).click();
    await page.getByRole('heading', { level: 1, name: 'Pricing' }).waitFor();
    expect(await nav.isVisible()).toBe(false);
    await page.close();
  });

  it('shows a not-found page for unknown routes', async () => {
    const page = await open('/no/such/page');
    await page.getByRole('heading', { level: 1, name: 'Page not found' }).waitFor();
    await page.getByRole('link', { name: 'Go Home' }).click();
    await page.getByRole('heading', { level: 1, name: 'Create a Reel' }).waitFor();
    await page.close();
  });
});
