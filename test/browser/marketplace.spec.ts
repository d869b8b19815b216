import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { Api } from '../support/api';
import { axeViolations } from '../support/axe';
import { closeAll, launchBrowser, shot } from '../support/browser';
import { SHARED_ADMINS, SHARED_START_MS, sharedSystem, type SharedSystem } from '../support/shared-system';

/**
 * The footage marketplace in Chromium against the whole product: a user's reel submitted with
 * footage offers on brings its clip to the admin's /footage-marketplace; the admin offers 75
 * credits; the user sees the badge, accepts in Review Offers, and the new balance shows.
 */
describe('footage marketplace in Chromium', () => {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'reelsmith-marketplace-'));
  // An admin of the shared product (PRIVILEGED_EMAILS).
  const admin = SHARED_ADMINS.marketplace;
  const maker = `maker.${Date.now()}@example.com`;
  let sys: SharedSystem;
  let browser: Browser;

  beforeAll(async () => {
    [sys, browser] = await Promise.all([sharedSystem(), launchBrowser()]);
  }, SHARED_START_MS);
  afterAll(() => closeAll(browser, undefined, work));

  const pageAs = async (token: string): Promise<Page> => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
    page.on('pageerror', (e) => console.error('page error:', e.message));
    await page.addInitScript((t) => localStorage.setItem('reelsmith.session_token', t), token);
    return page;
  };

  it('admin types an offer of 75 credits on a consented clip; the owner accepts in Review Offers and sees the new balance', async () => {
    const clip = path.join(work, 'surf-session.mp4');
    execFileSync('ffmpeg', ['-v', 'error', '-f', 'lavfi', '-i', 'testsrc=size=320x240:rate=25:duration=2', '-pix_fmt', 'yuv420p', clip]);
    const user = new Api(sys.baseUrl, sys.dataDir);
    await user.signUp(maker);
    const up = await user.upload(clip);
    expect(up.status).toBe(201);
    const job = await user.call('POST', '/jobs/assemble', { media_files: [up.body.object_key], get_footage_offers: true });
    expect(job.status).toBe(200);
    const boss = new Api(sys.baseUrl, sys.dataDir);
    await boss.signUp(admin);

    // A signed-in user who is not an admin is refused by the page and by the server.
    const userPage = await pageAs(user.token);
    await userPage.goto(`${sys.baseUrl}/footage-marketplace`);
    await userPage.getByText('Access Denied - This page is only accessible to administrators.').waitFor();
    expect((await user.call('GET', '/admin/footage-marketplace')).status).toBe(403);

    const adminPage = await pageAs(boss.token);
    await adminPage.goto(`${sys.baseUrl}/footage-marketplace`);
    const card = adminPage.getByRole('article', { name: 'surf-session.mp4' });
    for (let i = 0; i < 60 && !(await card.isVisible()); i++) {
      await adminPage.waitForTimeout(500);
      await adminPage.reload();
    }
    await card.waitFor();
    expect(await adminPage.getByTestId('new-count').textContent()).toBe('1');
    await card.getByText('New').waitFor();
    await card.getByText(maker).waitFor();
    expect(await axeViolations(adminPage)).toEqual([]);
    await adminPage.screenshot({ path: shot('marketplace-1-admin') });

    // The player, by keyboard: Enter opens it with the browser's controls; Escape closes it and
    // gives focus back to the play button.
    const play = card.getByRole('button', { name: 'Play surf-session.mp4' });
    await play.focus();
    await adminPage.keyboard.press('Enter');
    const player = adminPage.getByRole('dialog', { name: 'surf-session.mp4' });
    const video = player.getByTestId('mk-video');
    await video.waitFor();
    expect(await video.getAttribute('controls')).not.toBeNull();
    await adminPage.waitForFunction(() => (document.querySelector<HTMLVideoElement>('[data-testid=mk-video]')?.readyState ?? 0) >= 1);
    expect(await axeViolations(adminPage)).toEqual([]);
    await adminPage.keyboard.press('Escape');
    await player.waitFor({ state: 'detached' });
    expect(await play.evaluate((b) => b === document.activeElement)).toBe(true);

    // The offer, typed as an admin does: 75 credits instead of the default 50, then Enter on the
    // button (whose label follows the figure).
    await card.getByLabel('Credits', { exact: true }).focus();
    await adminPage.keyboard.press('Control+A');
    await adminPage.keyboard.type('75');
    await adminPage.keyboard.press('Tab');
    const offerButton = card.getByRole('button', { name: '75 Credits Offer' });
    expect(await offerButton.evaluate((b) => b === document.activeElement)).toBe(true);
    await adminPage.keyboard.press('Enter');
    await card.getByText('Credits offered').waitFor();
    await card.getByRole('button', { name: 'Remove' }).waitFor();
    expect(await adminPage.getByTestId('new-count').textContent()).toBe('0');
    await adminPage.screenshot({ path: shot('marketplace-2-offered') });

    // The owner: a badge on the user menu, Review Offers from Settings, accept.
    await userPage.goto(`${sys.baseUrl}/`);
    await userPage.getByTestId('offer-count').waitFor();
    expect(await userPage.getByTestId('offer-count').textContent()).toBe('1');
    await userPage.getByRole('button', { name: maker }).click();
    const before = await userPage.getByTestId('usage-line').textContent();
    expect(before).not.toContain('75 credits');
    await userPage.getByRole('menuitem', { name: 'Settings' }).click();
    await userPage.getByRole('dialog', { name: 'Default Settings' }).getByRole('button', { name: 'Review Offers' }).click();
    const review = userPage.getByRole('dialog', { name: 'Review Offers' });
    const offer = review.getByRole('listitem', { name: 'Offer for surf-session.mp4' });
    await offer.getByText('75 credits').waitFor();
    expect(await axeViolations(userPage)).toEqual([]);
    await userPage.screenshot({ path: shot('marketplace-3-review-offers') });
    await offer.getByRole('button', { name: 'Accept' }).click();
    await review.getByText('Offer accepted! 75 credits have been added to your account.').waitFor();
    await review.getByText(/No offers right now/).waitFor();
    await userPage.screenshot({ path: shot('marketplace-4-accepted') });
    await review.getByRole('button', { name: 'Close' }).click();
    await userPage.getByRole('dialog', { name: 'Default Settings' }).getByRole('button', { name: 'Close' }).click();
    expect(await userPage.getByTestId('offer-count').count()).toBe(0);
    await userPage.getByRole('button', { name: maker }).click();
    await userPage
      .getByTestId('usage-line')
      .getByText(/75 credits/)
      .waitFor();
    await userPage.screenshot({ path: shot('marketplace-5-balance') });

    await adminPage.reload();
    await card.getByText('Purchased').waitFor();
  }, 240_000);
});
