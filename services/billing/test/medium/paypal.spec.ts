import crypto from 'node:crypto';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { migrate, openDatabase, outboxMigration, readMigrations, type Database } from '@reelsmith/kit';
import { createTestDatabase, type TestDatabase } from '@reelsmith/kit/testing';
import { BillingService } from '../../src/domain/billing.service';
import { PaymentsService } from '../../src/domain/payments.service';
import { DrizzleBillingRepository } from '../../src/repositories/billing.repository';
import { DrizzlePaymentsRepository } from '../../src/repositories/payments.repository';
import { PaypalProvider } from '../../src/repositories/providers/paypal';
import { SandboxProvider } from '../../src/repositories/providers/sandbox';
import { paypalCaptureEvents } from '../paypal-events';

type Obj = Record<string, unknown>;

/** A local stand-in for the PayPal endpoints the provider calls (OAuth, Orders v2, refunds, webhook verification). */
class PaypalStandIn {
  server = http.createServer((req, res) => void this.handle(req, res));
  orders = new Map<string, Obj & { approved: boolean; captured: boolean }>();
  refunds: Obj[] = [];
  verified: Obj[] = [];
  captures = 0;
  url = '';
  async start() {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }
  private view(o: Obj & { approved: boolean; captured: boolean }) {
    const { approved, captured, ...rest } = o;
    void approved;
    const unit = (rest.purchase_units as Obj[])[0]!;
    return {
      ...rest,
      status: captured ? 'COMPLETED' : approved ? 'APPROVED' : 'PAYER_ACTION_REQUIRED',
      purchase_units: [
        captured
          ? { ...unit, payments: { captures: [{ id: `CAP-${rest.id as string}`, status: 'COMPLETED', amount: unit.amount }] } }
          : unit,
      ],
    };
  }
  private async handle(req: http.IncomingMessage, res: http.ServerResponse) {
    let body = '';
    for await (const c of req) body += String(c);
    const send = (status: number, o: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(o));
    };
    const p = (req.url ?? '').split('?')[0]!;
    if (p === '/v1/oauth2/token') return send(200, { access_token: 'A21-standin', token_type: 'Bearer', expires_in: 32400, scope: '' });
    if (req.headers.authorization !== 'Bearer A21-standin') return send(401, { error: 'invalid_token' });
    if (p === '/v2/checkout/orders' && req.method === 'POST') {
      const b = JSON.parse(body) as Obj;
      const id = `ORDER${crypto.randomBytes(5).toString('hex').toUpperCase()}`;
      const o = {
        id,
        intent: b.intent,
        purchase_units: b.purchase_units,
        links: [{ rel: 'payer-action', href: `https://www.sandbox.paypal.com/checkoutnow?token=${id}`, method: 'GET' }],
        approved: false,
        captured: false,
      };
      this.orders.set(id, o);
      return send(200, this.view(o));
    }
    const capture = /^\/v2\/checkout\/orders\/([^/]+)\/capture$/.exec(p);
    if (capture) {
      const o = this.orders.get(capture[1]!);
      if (!o) return send(404, { name: 'RESOURCE_NOT_FOUND' });
      if (!o.approved) return send(422, { name: 'UNPROCESSABLE_ENTITY', details: [{ issue: 'ORDER_NOT_APPROVED' }] });
      if (o.captured) return send(422, { name: 'UNPROCESSABLE_ENTITY', details: [{ issue: 'ORDER_ALREADY_CAPTURED' }] });
      o.captured = true;
      this.captures++;
      return send(201, this.view(o));
    }
    const get = /^\/v2\/checkout\/orders\/([^/]+)$/.exec(p);
    if (get) return this.orders.has(get[1]!) ? send(200, this.view(this.orders.get(get[1]!)!)) : send(404, { name: 'RESOURCE_NOT_FOUND' });
    const refund = /^\/v2\/payments\/captures\/([^/]+)\/refund$/.exec(p);
    if (refund) {
      this.refunds.push({ capture: refund[1], ...(JSON.parse(body || '{}') as Obj) });
      return send(201, { id: `REF-${this.refunds.length}`, status: 'COMPLETED' });
    }
    if (p === '/v1/notifications/verify-webhook-signature') {
      const b = JSON.parse(body) as Obj;
      this.verified.push(b);
      return send(200, { verification_status: b.transmission_sig === 'good-sig' && b.webhook_id === 'WH-standin' ? 'SUCCESS' : 'FAILURE' });
    }
    return send(404, { name: 'NOT_FOUND', message: `stand-in has no ${req.method} ${p}` });
  }
}

describe('PayPal provider (Orders v2 with @paypal/paypal-server-sdk) against a local stand-in, on real PostgreSQL', () => {
  const standIn = new PaypalStandIn();
  let pg: TestDatabase;
  let db: Database;
  let billing: BillingService;
  let payments: PaymentsService;
  let now = new Date('2026-11-21T10:00:00Z');

  beforeAll(async () => {
    await standIn.start();
    pg = await createTestDatabase('paypal');
    db = await openDatabase({ url: pg.url, pgliteDir: '', poolSize: 20 });
    await migrate(db, [outboxMigration(), ...readMigrations(path.join(__dirname, '..', '..', 'migrations'))]);
    const paypal = new PaypalProvider({
      clientId: 'client',
      clientSecret: 'secret',
      env: 'sandbox',
      webhookId: 'WH-standin',
      publicUrl: 'http://localhost:8080',
      apiUrl: standIn.url,
    });
    const sandbox = new SandboxProvider(() => now);
    const all = new Map<string, PaypalProvider | SandboxProvider>([
      ['paypal', paypal],
      ['sandbox', sandbox],
    ]);
    billing = new BillingService(new DrizzleBillingRepository(db.orm), () => now);
    payments = new PaymentsService(
      new DrizzlePaymentsRepository(db.orm),
      { card: sandbox, paypal, byName: (n) => all.get(n), publishableKey: '' },
      { send: async () => undefined },
      () => now,
    );
  });
  afterAll(async () => {
    await db.close();
    await pg.drop();
    await new Promise((r) => standIn.server.close(r));
  });

  const balance = async (userId: string) => (await billing.account(userId, false)).credits;
  const pay = (userId: string, type: string, itemId: string, amountCents: number, billingCycle = '') =>
    payments.create({ userId, email: 'pp@example.com', type, itemId, amountCents, currency: 'usd', method: 'paypal', billingCycle });
  const approve = { testCard: '', testExpiry: '', testCvc: '', paypalAction: 'approve' };
  const hook = (event: Obj, sig = 'good-sig') =>
    payments.webhook('paypal', Buffer.from(JSON.stringify(event)), {
      'paypal-transmission-id': crypto.randomUUID(),
      'paypal-transmission-time': new Date().toISOString(),
      'paypal-transmission-sig': sig,
      'paypal-cert-url': 'https://api.sandbox.paypal.com/v1/notifications/certs/CERT',
      'paypal-auth-algo': 'SHA256withRSA',
    });

  it('an order for the catalogue amount; capture only after the payer approved; concurrent confirms capture and grant once', async () => {
    const userId = crypto.randomUUID();
    const intent = await pay(userId, 'credits', 'credits_1000', 4000);
    expect(intent).toMatchObject({ provider: 'paypal', approvalUrl: expect.stringContaining('checkoutnow?token=') });
    const order = standIn.orders.get(intent.paymentIntentId)!;
    expect((order.purchase_units as Obj[])[0]).toMatchObject({
      amount: { currency_code: 'USD', value: '40.00' },
      custom_id: `${userId}|credits|credits_1000|`,
    });
    await expect(payments.confirm(userId, intent.paymentIntentId, approve)).rejects.toMatchObject({
      message: 'Payment confirmation failed',
    });
    expect(await balance(userId)).toBe(0);
    order.approved = true; // the payer approved on PayPal's page
    await Promise.all(Array.from({ length: 10 }, () => payments.confirm(userId, intent.paymentIntentId, approve)));
    expect(standIn.captures).toBe(1);
    expect(await balance(userId)).toBe(1000);
    // Refunded by an admin: PayPal refunds the capture, the unspent credits go back.
    await payments.refund(intent.paymentIntentId, 0);
    expect(standIn.refunds.at(-1)).toMatchObject({
      capture: `CAP-${intent.paymentIntentId}`,
      amount: { currency_code: 'USD', value: '40.00' },
    });
    expect(await balance(userId)).toBe(0);
  });

  it('cancel on PayPal grants nothing and says so', async () => {
    const userId = crypto.randomUUID();
    const intent = await pay(userId, 'credits', 'credits_200', 1000);
    await expect(payments.confirm(userId, intent.paymentIntentId, { ...approve, paypalAction: 'cancel' })).rejects.toMatchObject({
      reason: 'payment_declined',
      message: 'The PayPal payment was cancelled.',
    });
    expect(await balance(userId)).toBe(0);
  });

  it('capture and refund webhooks, verified by PayPal, replayed three times shuffled: once each; a bad signature changes nothing', async () => {
    const userId = crypto.randomUUID();
    const intent = await pay(userId, 'credits', 'credits_400', 2000);
    const orderId = intent.paymentIntentId;
    const { completed, refunded } = paypalCaptureEvents(userId, orderId);
    await expect(hook(completed, 'forged')).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', reason: 'webhook_unverified' });
    expect(await balance(userId)).toBe(0);
    expect(standIn.verified.at(-1)).toMatchObject({ webhook_id: 'WH-standin', webhook_event: completed });

    const deliveries: Obj[] = [completed, completed, completed, refunded, refunded, refunded].sort(() => Math.random() - 0.5);
    let pending = deliveries;
    for (let round = 0; pending.length && round < 5; round++) {
      const retry: Obj[] = [];
      for (const e of pending) await hook(e).catch(() => retry.push(e));
      pending = retry;
    }
    expect(pending).toEqual([]);
    // 400 credits, half refunded.
    expect(await balance(userId)).toBe(200);
    expect(await payments.history(userId)).toEqual([expect.objectContaining({ id: orderId, status: 'succeeded', refundedCredits: 200 })]);
  });

  it('a plan paid with PayPal is active for its period, then past_due: PayPal plans are paid each period', async () => {
    const userId = crypto.randomUUID();
    const intent = await pay(userId, 'subscription', 'standard', 2000, 'monthly');
    standIn.orders.get(intent.paymentIntentId)!.approved = true;
    await payments.confirm(userId, intent.paymentIntentId, approve);
    expect((await billing.account(userId, false)).subscription).toMatchObject({ plan: 'standard', status: 'active' });
    now = new Date('2026-12-21T10:00:01Z');
    await payments.renewDue();
    const a = await billing.account(userId, false);
    expect(a.subscription.status).toBe('past_due');
    expect(a.credits).toBe(400);
  });
});
