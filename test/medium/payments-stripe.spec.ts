import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';
import { tempDir } from '@reelsmith/kit/testing';
import { syncStripe } from '../../services/billing/src/stripe-sync';
import type { Peers } from '../../services/gateway/src/repositories/clients';
import { startBillingGateway, type BillingGateway } from '../support/billing-gateway';

const SECRET = 'whsec_test_0123456789abcdef';
const SK = 'sk_test_standin';
type Obj = Record<string, unknown>;

/**
 * A local stand-in for the few Stripe endpoints the provider and stripe:sync call, speaking
 * Stripe's form encoding and JSON answers. Tests flip objects' states as Stripe would.
 */
class StripeStandIn {
  server = http.createServer((req, res) => void this.handle(req, res));
  n = 0;
  intents = new Map<string, Obj>();
  invoices = new Map<string, Obj>();
  subscriptions = new Map<string, Obj>();
  products = new Map<string, Obj>();
  prices: Obj[] = [];
  refunds: Obj[] = [];
  calls: string[] = [];
  url = '';

  async start() {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }
  id = (prefix: string) => `${prefix}_standin${++this.n}`;

  private async handle(req: http.IncomingMessage, res: http.ServerResponse) {
    let body = '';
    for await (const c of req) body += String(c);
    const url = new URL(req.url ?? '/', 'http://x');
    const form = new URLSearchParams(req.method === 'GET' ? url.search : body);
    const f = (k: string) => form.get(k) ?? '';
    const meta = () =>
      Object.fromEntries([...form.entries()].filter(([k]) => k.startsWith('metadata[')).map(([k, v]) => [k.slice(9, -1), v]));
    const send = (status: number, o: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json', 'request-id': 'req_standin' });
      res.end(JSON.stringify(o));
    };
    const missing = () => send(404, { error: { type: 'invalid_request_error', message: 'No such object', code: 'resource_missing' } });
    this.calls.push(`${req.method} ${url.pathname}`);
    const [, , kind, id, extra] = url.pathname.split('/');
    if (kind === 'payment_intents' && req.method === 'POST' && !id) {
      const pi = {
        id: this.id('pi'),
        object: 'payment_intent',
        amount: Number(f('amount')),
        currency: f('currency'),
        status: 'requires_payment_method',
        metadata: meta(),
      };
      pi['client_secret' as keyof typeof pi] = `${pi.id}_secret_x` as never;
      this.intents.set(pi.id, pi);
      return send(200, pi);
    }
    if (kind === 'payment_intents' && req.method === 'GET') return this.intents.has(id!) ? send(200, this.intents.get(id!)) : missing();
    if (kind === 'customers' && req.method === 'POST') return send(200, { id: this.id('cus'), object: 'customer', email: f('email') });
    if (kind === 'products' && req.method === 'GET') return this.products.has(id!) ? send(200, this.products.get(id!)) : missing();
    if (kind === 'products' && req.method === 'POST') {
      const p = { id: f('id'), object: 'product', name: f('name') };
      this.products.set(p.id, p);
      return send(200, p);
    }
    if (kind === 'prices' && req.method === 'GET') {
      const key = f('lookup_keys[0]');
      return send(200, { object: 'list', has_more: false, data: this.prices.filter((p) => p.lookup_key === key && p.active) });
    }
    if (kind === 'prices' && req.method === 'POST') {
      const key = f('lookup_key');
      if (f('transfer_lookup_key') === 'true') for (const p of this.prices) if (p.lookup_key === key) p.lookup_key = null;
      const p = {
        id: this.id('price'),
        object: 'price',
        active: true,
        currency: f('currency'),
        unit_amount: Number(f('unit_amount')),
        recurring: { interval: f('recurring[interval]') },
        lookup_key: key,
        product: f('product'),
      };
      this.prices.push(p);
      return send(200, p);
    }
    if (kind === 'subscriptions' && req.method === 'POST' && !id) {
      const price = this.prices.find((p) => p.id === f('items[0][price]'))!;
      const sub: Obj = {
        id: this.id('sub'),
        object: 'subscription',
        status: 'incomplete',
        customer: f('customer'),
        metadata: meta(),
        cancel_at_period_end: false,
        price,
      };
      const start = Math.floor(Date.now() / 1000);
      const end = start + ((price.recurring as Obj).interval === 'year' ? 365 : 30) * 86400;
      const invoice: Obj = {
        id: this.id('in'),
        object: 'invoice',
        status: 'open',
        amount_paid: 0,
        billing_reason: 'subscription_create',
        confirmation_secret: { client_secret: `pi_for_invoice_secret_${this.n}`, type: 'payment_intent' },
        parent: { type: 'subscription_details', subscription_details: { subscription: sub.id, metadata: sub.metadata } },
        lines: { object: 'list', data: [{ period: { start, end } }] },
      };
      this.invoices.set(invoice.id as string, invoice);
      this.subscriptions.set(sub.id as string, sub);
      return send(200, { ...sub, latest_invoice: invoice });
    }
    if (kind === 'subscriptions' && req.method === 'POST' && id) {
      const sub = this.subscriptions.get(id);
      if (!sub) return missing();
      if (form.has('cancel_at_period_end')) sub.cancel_at_period_end = f('cancel_at_period_end') === 'true';
      return send(200, sub);
    }
    if (kind === 'invoices' && req.method === 'GET') return this.invoices.has(id!) ? send(200, this.invoices.get(id!)) : missing();
    if (kind === 'refunds' && req.method === 'POST') {
      const r = { id: this.id('re'), object: 'refund', payment_intent: f('payment_intent'), amount: Number(f('amount')) };
      this.refunds.push(r);
      return send(200, r);
    }
    void extra;
    return send(404, { error: { type: 'invalid_request_error', message: `stand-in has no ${req.method} ${url.pathname}` } });
  }
}

const shuffle = <T>(xs: T[]) => {
  const a = [...xs];
  for (let i = a.length - 1; i > 0; i--) {
    const j = crypto.randomInt(i + 1);
    [a[i], a[j]] = [a[j]!, a[i]!];
  }
  return a;
};

describe('Stripe provider and webhooks: billing on PostgreSQL + NATS, gateway, a local Stripe stand-in', () => {
  const standIn = new StripeStandIn();
  const stripe = new Stripe(SK);
  const data = tempDir('stripe');
  let gw: BillingGateway;
  let peers: Peers;
  let base: string;

  beforeAll(async () => {
    await standIn.start();
    gw = await startBillingGateway('billing_stripe', data.dir, {
      STRIPE_SECRET_KEY: SK,
      STRIPE_PUBLISHABLE_KEY: 'pk_test_standin',
      STRIPE_WEBHOOK_SECRET: SECRET,
      STRIPE_API_URL: standIn.url,
    });
    ({ peers, base } = gw);
  }, 60_000);

  afterAll(async () => {
    await gw?.stop();
    await new Promise((r) => standIn.server.close(r));
    data.remove();
  });

  const balance = async (userId: string) => Number((await peers.billing.getAccount({ userId })).account!.credits);
  const account = async (userId: string) => (await peers.billing.getAccount({ userId })).account!;
  const deliver = (event: object, opts: { secret?: string; timestamp?: number; tamper?: boolean } = {}) => {
    const payload = JSON.stringify(event);
    const header = stripe.webhooks.generateTestHeaderString({ payload, secret: opts.secret ?? SECRET, timestamp: opts.timestamp });
    return fetch(`${base}/payments/webhooks/stripe`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'stripe-signature': header },
      body: opts.tamper ? payload.replace('"amount_received":4000', '"amount_received":8000') : payload,
    });
  };
  const evt = (type: string, object: object) => ({
    id: `evt_${crypto.randomBytes(8).toString('hex')}`,
    object: 'event',
    type,
    data: { object },
    created: 1,
  });

  it('npm run stripe:sync creates one Price per plan and cycle by lookup key, and a second run changes nothing', async () => {
    const first = await syncStripe(SK, standIn.url, () => undefined);
    expect(first).toEqual({ created: 6, kept: 0 });
    const second = await syncStripe(SK, standIn.url, () => undefined);
    expect(second).toEqual({ created: 0, kept: 6 });
    expect(standIn.prices.map((p) => p.lookup_key).sort()).toEqual([
      'reelsmith_corporate_monthly',
      'reelsmith_corporate_yearly',
      'reelsmith_mid_tier_monthly',
      'reelsmith_mid_tier_yearly',
      'reelsmith_standard_monthly',
      'reelsmith_standard_yearly',
    ]);
    expect(standIn.prices.find((p) => p.lookup_key === 'reelsmith_mid_tier_yearly')).toMatchObject({
      unit_amount: 57600,
      recurring: { interval: 'year' },
    });
  });

  it('a pack is a PaymentIntent for the catalogue amount; confirm grants only once Stripe says succeeded', async () => {
    const userId = crypto.randomUUID();
    const r = await peers.billing.createPayment({
      userId,
      email: 'buyer@example.com',
      type: 'credits',
      itemId: 'credits_1000',
      amountCents: 4000n,
      currency: 'usd',
      paymentMethod: 'card',
    });
    expect(r).toMatchObject({ provider: 'stripe', publishableKey: '', paymentIntentId: expect.stringMatching(/^pi_/) });
    const pi = standIn.intents.get(r.paymentIntentId)!;
    expect(pi).toMatchObject({ amount: 4000, currency: 'usd', metadata: { user_id: userId, item_id: 'credits_1000', type: 'credits' } });
    expect(r.clientSecret).toBe(pi.client_secret);
    // Not paid yet at Stripe: nothing.
    await expect(peers.billing.confirmPayment({ userId, paymentIntentId: r.paymentIntentId })).rejects.toMatchObject({
      code: 'FAILED_PRECONDITION',
    });
    expect(await balance(userId)).toBe(0);
    // Stripe Elements confirmed the card in the browser.
    pi.status = 'succeeded';
    await Promise.all(Array.from({ length: 5 }, () => peers.billing.confirmPayment({ userId, paymentIntentId: r.paymentIntentId })));
    expect(await balance(userId)).toBe(1000);
    // A card the bank declined.
    const d = await peers.billing.createPayment({
      userId,
      email: 'b@e.com',
      type: 'credits',
      itemId: 'credits_200',
      amountCents: 1000n,
      currency: 'usd',
      paymentMethod: 'card',
    });
    Object.assign(standIn.intents.get(d.paymentIntentId)!, {
      status: 'requires_payment_method',
      last_payment_error: { message: 'Your card was declined.' },
    });
    await expect(peers.billing.confirmPayment({ userId, paymentIntentId: d.paymentIntentId })).rejects.toMatchObject({
      code: 'FAILED_PRECONDITION',
      message: 'Your card was declined.',
    });
    expect(await balance(userId)).toBe(1000);
  });

  it('a plan is a Stripe subscription for the synced price; paid invoice -> active plan and credits; cancel at period end reaches Stripe', async () => {
    const userId = crypto.randomUUID();
    const r = await peers.billing.createPayment({
      userId,
      email: 'sub@example.com',
      type: 'subscription',
      itemId: 'mid-tier',
      amountCents: 6000n,
      currency: 'usd',
      paymentMethod: 'card',
      billingCycle: 'monthly',
    });
    const invoice = standIn.invoices.get(r.paymentIntentId)!;
    expect(r.clientSecret).toBe((invoice.confirmation_secret as Obj).client_secret);
    const subId = ((invoice.parent as Obj).subscription_details as Obj).subscription as string;
    expect(standIn.subscriptions.get(subId)).toMatchObject({
      metadata: { user_id: userId, item_id: 'mid-tier', billing_cycle: 'monthly' },
    });
    invoice.status = 'paid';
    await peers.billing.confirmPayment({ userId, paymentIntentId: r.paymentIntentId });
    const a = await account(userId);
    expect(Number(a.credits)).toBe(1800);
    const periodEnd = (((invoice.lines as Obj).data as Obj[])[0]!.period as Obj).end as number;
    expect(a.subscription).toMatchObject({
      plan: 'mid-tier',
      status: 'active',
      billingCycle: 'monthly',
      nextBillingUnixMs: BigInt(periodEnd * 1000),
    });
    await peers.billing.cancelSubscription({ userId });
    expect(standIn.subscriptions.get(subId)!.cancel_at_period_end).toBe(true);
    expect((await account(userId)).subscription).toMatchObject({ status: 'active', cancelAtPeriodEnd: true });
  });

  it('every webhook type, each delivered three times in shuffled order, takes effect exactly once', async () => {
    const userId = crypto.randomUUID();
    const meta = (type: string, item: string, cycle = '') => ({
      user_id: userId,
      email: 'hook@example.com',
      type,
      item_id: item,
      billing_cycle: cycle,
    });
    const subMeta = meta('subscription', 'standard', 'monthly');
    const now = Math.floor(Date.now() / 1000);
    const invoice = (id: string, reason: string, periodEnd: number) => ({
      id,
      object: 'invoice',
      billing_reason: reason,
      amount_paid: 2000,
      parent: { type: 'subscription_details', subscription_details: { subscription: 'sub_hook', metadata: subMeta } },
      lines: { data: [{ period: { start: periodEnd - 30 * 86400, end: periodEnd } }] },
    });
    const events = [
      evt('payment_intent.succeeded', {
        id: 'pi_hook_pack',
        object: 'payment_intent',
        amount: 4000,
        amount_received: 4000,
        metadata: meta('credits', 'credits_1000'),
      }),
      evt('payment_intent.payment_failed', {
        id: 'pi_hook_declined',
        object: 'payment_intent',
        amount: 1000,
        metadata: meta('credits', 'credits_200'),
        last_payment_error: { message: 'Your card was declined.' },
      }),
      evt('invoice.paid', invoice('in_hook_1', 'subscription_create', now + 30 * 86400)),
      evt('invoice.paid', invoice('in_hook_2', 'subscription_cycle', now + 60 * 86400)),
      evt('invoice.payment_failed', { ...invoice('in_hook_3', 'subscription_cycle', now + 90 * 86400), amount_paid: 0 }),
      evt('customer.subscription.updated', {
        id: 'sub_hook',
        object: 'subscription',
        status: 'active',
        cancel_at_period_end: true,
        items: { data: [{ current_period_end: now + 60 * 86400 }] },
      }),
      evt('charge.refunded', { id: 'ch_hook', object: 'charge', payment_intent: 'pi_hook_pack', amount: 4000, amount_refunded: 2000 }),
      evt('customer.subscription.deleted', { id: 'sub_hook', object: 'subscription', status: 'canceled' }),
      evt('customer.created', { id: 'cus_hook', object: 'customer' }),
    ];
    const statuses: number[] = [];
    let pending = shuffle([...events, ...events, ...events]);
    // Stripe retries what was not acknowledged (an event that needs one not yet applied).
    for (let round = 0; pending.length && round < 10; round++) {
      const retry: typeof events = [];
      for (const e of pending) {
        const res = await deliver(e);
        statuses.push(res.status);
        if (res.status !== 200) retry.push(e);
      }
      pending = shuffle(retry);
    }
    expect(pending).toEqual([]);
    // Pack 1000 + first cycle 400 + renewal 400, minus half the pack refunded (500); the failed
    // payment and the failed renewal add nothing.
    expect(await balance(userId)).toBe(1300);
    const a = await account(userId);
    // Deleted is final whatever order the events came in (canceled, or never started when the
    // deletion arrived before the first invoice).
    expect(a.subscription!.plan).toBe('free');
    expect(['canceled', 'inactive']).toContain(a.subscription!.status);
    const history = (await peers.billing.history({ userId })).payments;
    expect(history.map((p) => [p.id, p.status, Number(p.credits), Number(p.refundedCredits)]).sort()).toEqual([
      ['in_hook_1', 'succeeded', 400, 0],
      ['in_hook_2', 'succeeded', 400, 0],
      ['pi_hook_pack', 'succeeded', 1000, 500],
    ]);
    // Replays again: all acknowledged, nothing changes.
    for (const e of shuffle(events)) expect(await (await deliver(e)).json()).toEqual({ received: true, processed: false });
    expect(await balance(userId)).toBe(1300);
  });

  it('a wrong signature, a stale timestamp, a tampered body or a missing header: 400 and nothing changes', async () => {
    const userId = crypto.randomUUID();
    const e = evt('payment_intent.succeeded', {
      id: `pi_${crypto.randomBytes(6).toString('hex')}`,
      object: 'payment_intent',
      amount: 4000,
      amount_received: 4000,
      metadata: { user_id: userId, email: 'x@example.com', type: 'credits', item_id: 'credits_1000', billing_cycle: '' },
    });
    const wrong = await deliver(e, { secret: 'whsec_someone_else_0000000000' });
    expect(wrong.status).toBe(400);
    expect(await wrong.json()).toMatchObject({ code: 'webhook_unverified' });
    expect((await deliver(e, { timestamp: Math.floor(Date.now() / 1000) - 301 })).status).toBe(400);
    expect((await deliver(e, { tamper: true })).status).toBe(400);
    const bare = await fetch(`${base}/payments/webhooks/stripe`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(e),
    });
    expect(bare.status).toBe(400);
    expect(await balance(userId)).toBe(0);
    expect((await peers.billing.history({ userId })).payments).toEqual([]);
    // The same event, properly signed, was not marked as seen by the refused deliveries.
    const ok = await deliver(e);
    expect(await ok.json()).toEqual({ received: true, processed: true });
    expect(await balance(userId)).toBe(1000);
  });
});
