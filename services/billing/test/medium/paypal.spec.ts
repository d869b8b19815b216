import crypto from 'node:crypto';
import path from 'node:path';
import { migrate, openDatabase, outboxMigration, readMigrations, type Database } from '@reelsmith/kit';
import { createTestDatabase, type TestDatabase } from '@reelsmith/kit/testing';
import { BillingService } from '../../src/domain/billing.service';
import { PaymentsService } from '../../src/domain/payments.service';
import { DrizzleBillingRepository } from '../../src/repositories/billing.repository';
import { DrizzlePaymentsRepository } from '../../src/repositories/payments.repository';
import { PaypalProvider } from '../../src/repositories/providers/paypal';
import { SandboxProvider } from '../../src/repositories/providers/sandbox';
import { paypalCaptureEvents } from '../paypal-events';
import { PaypalStandIn } from '../paypal-standin';

type Obj = Record<string, unknown>;

describe('PayPal provider (Orders v2 with @paypal/paypal-server-sdk) against a local stand-in, on real PostgreSQL', () => {
  const standIn = new PaypalStandIn((_raw, b) => b.transmission_sig === 'good-sig' && b.webhook_id === 'WH-standin');
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
