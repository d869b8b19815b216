import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { Api } from '../support/api';
import { axeViolations } from '../support/axe';
import { closeAll, launchBrowser, openPage, shot, signedIn } from '../support/browser';
import { SHARED_START_MS, sharedSystem, type SharedSystem } from '../support/shared-system';

describe('payments in Chromium against the whole product (sandbox provider, no keys)', () => {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'reelsmith-pay-'));
  let sys: SharedSystem;
  let browser: Browser;
  let page: Page;
  /** Every URL the main page requested, scripts included. */
  const requested: string[] = [];

  beforeAll(async () => {
    [sys, browser] = await Promise.all([sharedSystem(), launchBrowser()]);
    page = await openPage(browser);
    page.on('request', (r) => requested.push(r.url()));
  }, SHARED_START_MS);
  afterAll(() => closeAll(browser, undefined, work));

  const menuText = async () => {
    await page.getByRole('button', { name: /@example\.com/ }).click();
    const menu = page.getByRole('menu', { name: 'User menu' });
    await menu.waitFor();
    const text = await menu.innerText();
    await page.keyboard.press('Escape');
    await page.getByRole('heading', { name: 'Pricing', level: 1 }).click();
    return text;
  };

  const payWithCard = async (dialogName: string, card: string) => {
    const dialog = page.getByRole('dialog', { name: dialogName });
    await dialog.getByText('Test mode: no real money moves').waitFor();
    expect(await axeViolations(page)).toEqual([]);
    // Typed as a person would: the number, Tab, the expiry, Tab, the CVC, Enter.
    await dialog.getByLabel('Card number').focus();
    await page.keyboard.press('Control+A');
    await page.keyboard.type(card);
    for (const typed of ['1234', '123']) {
      await page.keyboard.press('Tab');
      await page.keyboard.press('Control+A');
      await page.keyboard.type(typed);
    }
    expect((await dialog.getByLabel('Card number').inputValue()).replace(/\D/g, '')).toBe(card.replace(/\D/g, ''));
    expect(await dialog.getByLabel('Expiry (MM/YY)').inputValue()).toBe('12/34');
    expect(await dialog.getByLabel('CVC').inputValue()).toBe('123');
    await page.keyboard.press('Enter');
    return dialog;
  };

  it('signed out, Buy Now asks to sign in; signed in, buys a pack with the sandbox card (a decline first) and the menu shows the credits', async () => {
    await page.goto(`${sys.baseUrl}/pricing`);
    await page.getByRole('article', { name: '1000 credits pack' }).getByRole('button', { name: 'Buy Now' }).click();
    await page.getByRole('dialog', { name: 'Sign In' }).waitFor();
    await page.keyboard.press('Escape');

    const api = new Api(sys.baseUrl, sys.dataDir);
    await api.signUp(`buyer.${Date.now()}@example.com`);
    await page.evaluate((t) => localStorage.setItem('reelsmith.session_token', t), api.token);
    await page.goto(`${sys.baseUrl}/pricing`);
    await page.getByRole('button', { name: /@example\.com/ }).waitFor();
    expect(await menuText()).toContain('Upgrade for More Credits');

    await page.getByRole('article', { name: '1000 credits pack' }).getByRole('button', { name: 'Buy Now' }).click();
    let dialog = await payWithCard('Buy credits', '4000 0000 0000 0002');
    await dialog.getByText('Your card was declined.').waitFor({ timeout: 10_000 });
    await page.screenshot({ path: shot('payments-1-declined') });
    dialog = await payWithCard('Buy credits', '4242 4242 4242 4242');
    await dialog.getByText(/Payment successful! 1,000 credits/).waitFor({ timeout: 10_000 });
    await page.screenshot({ path: shot('payments-2-paid') });
    await dialog.waitFor({ state: 'detached', timeout: 5000 });
    // No reload: the menu reads the new balance.
    expect(await menuText()).toMatch(/1,000 credits/);
  });

  it('subscribes to Standard yearly: the card reads Current Plan, the menu shows the plan and next billing date, history lists both payments', async () => {
    await page.getByRole('radio', { name: /Yearly/ }).check();
    const standard = page.getByRole('article', { name: 'Standard plan' });
    await standard.getByText('$192').waitFor();
    await standard.getByRole('button', { name: 'Subscribe Now' }).click();
    const dialog = await payWithCard('Subscribe', '4242424242424242');
    await dialog.getByText(/Payment successful! 4,800 credits/).waitFor({ timeout: 10_000 });
    await dialog.waitFor({ state: 'detached', timeout: 5000 });
    await standard.getByRole('button', { name: 'Current Plan' }).waitFor();
    expect(await standard.getByRole('button', { name: 'Current Plan' }).isDisabled()).toBe(true);
    // The Monthly tab does not claim Standard monthly is the plan: it is one to switch to.
    await page.getByRole('radio', { name: /Monthly/ }).check();
    await standard.getByText('$20').waitFor();
    expect(await standard.getByRole('button', { name: 'Subscribe Now' }).isEnabled()).toBe(true);
    expect(await page.getByRole('button', { name: 'Current Plan' }).count()).toBe(0);
    await page.getByRole('radio', { name: /Yearly/ }).check();
    await standard.getByRole('button', { name: 'Current Plan' }).waitFor();
    const menu = await menuText();
    expect(menu).toContain('Plan: Standard');
    expect(menu).toMatch(/5,800 credits available/);
    expect(menu).toMatch(/Next billing: /);
    expect(menu).not.toContain('Upgrade for More Credits');

    const history = page.getByRole('table');
    await history.getByText('Standard plan (yearly)').waitFor();
    await history.getByText('1,000 credits').first().waitFor();
    expect(await history.getByText('failed: Your card was declined.').count()).toBe(1);
    await page.screenshot({ path: shot('payments-3-subscribed'), fullPage: true });
  });

  it('the cart keeps packs, removes one, and checks out the rest', async () => {
    await page.getByRole('article', { name: '200 credits pack' }).getByRole('button', { name: 'Add to Cart' }).click();
    await page.getByRole('article', { name: '400 credits pack' }).getByRole('button', { name: 'Add to Cart' }).click();
    await page.reload(); // kept in browser storage
    await page.getByRole('button', { name: /^Cart\s*2\s*items$/ }).click();
    const cart = page.getByRole('dialog', { name: 'Cart' });
    await cart.getByText('Total: $30').waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await cart.getByRole('button', { name: 'Remove 400 credits' }).click();
    await cart.getByText('Total: $10').waitFor();
    await cart.getByRole('button', { name: 'Checkout' }).click();
    const dialog = await payWithCard('Buy credits', '4242424242424242');
    await dialog.getByText(/Payment successful! 200 credits/).waitFor({ timeout: 10_000 });
    await dialog.waitFor({ state: 'detached', timeout: 5000 });
    await page.getByRole('button', { name: /^Cart\s*0\s*items$/ }).waitFor();
    expect(await menuText()).toMatch(/6,000 credits available/);
  });

  it('at 390 px wide the signed-in top bar fits: nothing scrolls sideways, the long e-mail is shortened, cart and menu open by keyboard', async () => {
    const api = new Api(sys.baseUrl, sys.dataDir);
    await api.signUp(`a.rather.long.address.for.a.phone.${Date.now()}@example.com`);
    const phone = await browser.newPage({ viewport: { width: 390, height: 844 }, ...signedIn(sys.baseUrl, api.token) });
    for (const route of ['/pricing', '/reels']) {
      await phone.goto(`${sys.baseUrl}${route}`);
      const account = phone.getByRole('button', { name: /a\.rather\.long\.address.*@example\.com/ });
      await account.waitFor();
      const widths = await phone.evaluate(() => ({
        page: document.documentElement.scrollWidth - document.documentElement.clientWidth,
        header: document.querySelector('header')!.scrollWidth - document.querySelector('header')!.clientWidth,
      }));
      expect(widths).toEqual({ page: 0, header: 0 });
      await phone.screenshot({ path: shot(`payments-phone${route.replace(/\//g, '-')}`) });
    }
    const account = phone.getByRole('button', { name: /a\.rather\.long\.address.*@example\.com/ });
    const box = (await account.boundingBox())!;
    expect(box.x + box.width).toBeLessThanOrEqual(390);
    await account.focus();
    await phone.keyboard.press('Enter');
    await phone
      .getByRole('menu', { name: 'User menu' })
      .getByText(/a\.rather\.long\.address/)
      .waitFor();
    await phone.keyboard.press('Escape');
    await phone.getByRole('button', { name: /^Cart\s*\d+\s*items?$/ }).focus();
    await phone.keyboard.press('Enter');
    await phone.getByRole('dialog', { name: 'Cart' }).waitFor();
    expect(await axeViolations(phone)).toEqual([]);
    await phone.keyboard.press('Escape');
    await phone.getByRole('dialog', { name: 'Cart' }).waitFor({ state: 'detached' });
    expect(await phone.getByRole('button', { name: /^Cart\s*\d+\s*items?$/ }).evaluate((b) => b === document.activeElement)).toBe(true);
    await phone.close();
  });

  it("with the sandbox provider, no page and no payment dialog loads a provider's script (Stripe.js, PayPal)", () => {
    // The specs above opened Pricing, the payment dialog (twice), the cart's checkout and My Reels.
    expect(requested.filter((u) => u.includes('/assets/PaymentDialog-')).length).toBeGreaterThan(0);
    expect(requested.filter((u) => !u.startsWith(sys.baseUrl))).toEqual([]);
  });
});
