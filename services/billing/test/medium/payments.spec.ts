import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { createMailTransport, migrate, openDatabase, outboxMigration, readMigrations, type Database } from '@reelsmith/kit';
import { createTestDatabase, quietLogger, tempDir, type TestDatabase } from '@reelsmith/kit/testing';
import { BillingService } from '../../src/domain/billing.service';
import { PaymentsService, type ConfirmDetails, type Providers } from '../../src/domain/payments.service';
import { DrizzleBillingRepository } from '../../src/repositories/billing.repository';
import { createReceipts } from '../../src/repositories/mailer';
import { DrizzlePaymentsRepository } from '../../src/repositories/payments.repository';
import { SandboxProvider } from '../../src/repositories/providers/sandbox';

const uid = () => crypto.randomUUID();
const card = (testCard: string): ConfirmDetails => ({ testCard, testExpiry: '12/34', testCvc: '123', paypalAction: '' });
const VISA = '4242424242424242';

describe('payments against real PostgreSQL (sandbox provider)', () => {
  let pg: TestDatabase;
  let db: Database;
  let mail: { dir: string; remove(): void };
  let now = new Date('2026-11-21T10:00:00Z');
  const clock = () => now;

  const sandboxProviders = (): Providers => {
    const sandbox = new SandboxProvider(clock);
    return { card: sandbox, paypal: sandbox, byName: (n) => (n === 'sandbox' ? sandbox : undefined), publishableKey: '' };
  };
  /** One billing process: a fresh service over the same database (a restart, or another replica). */
  const boot = () => ({
    billing: new BillingService(new DrizzleBillingRepository(db.orm), clock),
    payments: new PaymentsService(
      new DrizzlePaymentsRepository(db.orm),
      sandboxProviders(),
      createReceipts(
        createMailTransport({ from: 'Reelsmith <no-reply@reelsmith.local>', dir: mail.dir, log: quietLogger() }),
        'http://localhost:8080',
      ),
      clock,
    ),
  });
  let svc: ReturnType<typeof boot>;

  beforeAll(async () => {
    pg = await createTestDatabase('payments');
    db = await openDatabase({ url: pg.url, pgliteDir: '', poolSize: 30 });
    await migrate(db, [outboxMigration(), ...readMigrations(path.join(__dirname, '..', '..', 'migrations'))]);
    mail = tempDir('receipts');
    svc = boot();
  });
  afterAll(async () => {
    await db.close();
    await pg.drop();
    mail.remove();
  });
  beforeEach(() => {
    now = new Date('2026-11-21T10:00:00Z');
  });

  const balance = async (userId: string) => (await svc.billing.account(userId, false)).credits;
  const receiptsTo = (email: string) =>
    fs.readdirSync(mail.dir).filter((f) => fs.readFileSync(path.join(mail.dir, f), 'utf8').includes(`To: ${email}`)).length;
  const buy = (userId: string, itemId = 'credits_1000', amountCents = 4000) =>
    svc.payments.create({
      userId,
      email: `${userId}@example.com`,
      type: 'credits',
      itemId,
      amountCents,
      currency: 'usd',
      method: 'card',
      billingCycle: '',
    });
  const subscribe = (userId: string, plan: string, billingCycle: string, amountCents: number) =>
    svc.payments.create({
      userId,
      email: `${userId}@example.com`,
      type: 'subscription',
      itemId: plan,
      amountCents,
      currency: 'usd',
      method: 'card',
      billingCycle,
    });

  it('refuses an amount that is not the catalogue price, and any currency but usd; nothing is recorded', async () => {
    const userId = uid();
    await expect(buy(userId, 'credits_1000', 100)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(
      svc.payments.create({
        userId,
        email: 'a@b.c',
        type: 'credits',
        itemId: 'credits_1000',
        amountCents: 4000,
        currency: 'eur',
        method: 'card',
        billingCycle: '',
      }),
    ).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', message: 'Only usd is accepted' });
    await expect(subscribe(userId, 'standard', 'yearly', 2000)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(await svc.payments.history(userId)).toEqual([]);
    expect(await balance(userId)).toBe(0);
  });

  it('creating a payment grants nothing; confirming with the test card grants the pack, sends one receipt, shows in history', async () => {
    const userId = uid();
    const intent = await buy(userId);
    expect(intent).toMatchObject({
      provider: 'sandbox',
      paymentIntentId: expect.stringMatching(/^sbx_pi_/),
      clientSecret: expect.any(String),
    });
    expect(await balance(userId)).toBe(0);
    const p = await svc.payments.confirm(userId, intent.paymentIntentId, card(VISA));
    expect(p).toMatchObject({ status: 'succeeded', credits: 1000, amountCents: 4000 });
    expect(await balance(userId)).toBe(1000);
    expect(receiptsTo(`${userId}@example.com`)).toBe(1);
    const history = await svc.payments.history(userId);
    expect(history).toEqual([
      expect.objectContaining({ itemName: '1,000 credits', amountCents: 4000, credits: 1000, provider: 'sandbox', status: 'succeeded' }),
    ]);
    // Confirming again changes nothing.
    await svc.payments.confirm(userId, intent.paymentIntentId, card(VISA));
    expect(await balance(userId)).toBe(1000);
    expect(receiptsTo(`${userId}@example.com`)).toBe(1);
  });

  it('a declined card and an insufficient-funds card grant nothing and say why; a later good card still works', async () => {
    const userId = uid();
    const intent = await buy(userId, 'credits_200', 1000);
    await expect(svc.payments.confirm(userId, intent.paymentIntentId, card('4000000000000002'))).rejects.toMatchObject({
      code: 'FAILED_PRECONDITION',
      reason: 'payment_declined',
      message: 'Your card was declined.',
    });
    await expect(svc.payments.confirm(userId, intent.paymentIntentId, card('4000 0000 0000 9995'))).rejects.toMatchObject({
      message: 'Your card has insufficient funds.',
    });
    expect(await balance(userId)).toBe(0);
    expect(await svc.payments.history(userId)).toEqual([
      expect.objectContaining({ status: 'failed', failureMessage: 'Your card has insufficient funds.' }),
    ]);
    expect(receiptsTo(`${userId}@example.com`)).toBe(0);
    await svc.payments.confirm(userId, intent.paymentIntentId, card(VISA));
    expect(await balance(userId)).toBe(200);
  });

  it("someone else's payment id is not found", async () => {
    const intent = await buy(uid());
    await expect(svc.payments.confirm(uid(), intent.paymentIntentId, card(VISA))).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('20 concurrent confirms of one payment (across two replicas) grant once and send one receipt', async () => {
    const userId = uid();
    const intent = await buy(userId, 'credits_2500', 8000);
    const other = boot();
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) => (i % 2 ? other : svc).payments.confirm(userId, intent.paymentIntentId, card(VISA))),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(20);
    expect(await balance(userId)).toBe(2500);
    expect(receiptsTo(`${userId}@example.com`)).toBe(1);
  });

  it('subscribing takes effect at once and grants the first cycle; the same plan again is refused', async () => {
    const userId = uid();
    const intent = await subscribe(userId, 'mid-tier', 'yearly', 57600);
    await svc.payments.confirm(userId, intent.paymentIntentId, card(VISA));
    const a = await svc.billing.account(userId, false);
    expect(a.credits).toBe(21600);
    expect(a.subscription).toMatchObject({
      plan: 'mid-tier',
      status: 'active',
      billingCycle: 'yearly',
      nextBillingAt: new Date('2027-11-21T10:00:00Z'),
    });
    expect(a.entitlements.subscribed).toBe(true);
    await expect(subscribe(userId, 'mid-tier', 'yearly', 57600)).rejects.toMatchObject({
      code: 'FAILED_PRECONDITION',
      reason: 'already_subscribed',
    });
    // Changing plan takes effect immediately: a new cycle at the new plan, its credits on top.
    const change = await subscribe(userId, 'standard', 'monthly', 2000);
    await svc.payments.confirm(userId, change.paymentIntentId, card(VISA));
    const b = await svc.billing.account(userId, false);
    expect(b.subscription).toMatchObject({ plan: 'standard', billingCycle: 'monthly', nextBillingAt: new Date('2026-12-21T10:00:00Z') });
    expect(b.credits).toBe(21600 + 400);
  });

  it('the renewal scheduler grants one cycle once, across two replicas and a restart, and keeps going each cycle', async () => {
    const userId = uid();
    const intent = await subscribe(userId, 'standard', 'monthly', 2000);
    await svc.payments.confirm(userId, intent.paymentIntentId, card(VISA));
    expect(await balance(userId)).toBe(400);
    // Not due yet: nothing happens.
    await svc.payments.renewDue();
    expect(await balance(userId)).toBe(400);

    now = new Date('2026-12-21T10:00:01Z');
    const replicaA = boot();
    const replicaB = boot();
    await Promise.all([replicaA.payments.renewDue(), replicaB.payments.renewDue(), replicaA.payments.renewDue()]);
    expect(await balance(userId)).toBe(800);
    // A restart: a new process over the same database, same instant.
    const restarted = boot();
    await restarted.payments.renewDue();
    expect(await balance(userId)).toBe(800);
    expect((await restarted.billing.account(userId, false)).subscription.nextBillingAt).toEqual(new Date('2027-01-21T10:00:00Z'));

    // Down for two cycles: each missed cycle renews once when it comes back.
    now = new Date('2027-02-22T00:00:00Z');
    await Promise.all([boot().payments.renewDue(), boot().payments.renewDue()]);
    expect(await balance(userId)).toBe(1600);
    const history = await svc.payments.history(userId);
    expect(history.filter((p) => p.type === 'renewal' && p.status === 'succeeded')).toHaveLength(3);
    expect(receiptsTo(`${userId}@example.com`)).toBe(4);
  });

  it('a failed renewal makes the subscription past_due and grants nothing', async () => {
    const userId = uid();
    const intent = await subscribe(userId, 'corporate', 'monthly', 17000);
    // The sandbox card whose renewals are declined.
    await svc.payments.confirm(userId, intent.paymentIntentId, card('4000000000000341'));
    expect(await balance(userId)).toBe(6800);
    now = new Date('2026-12-22T00:00:00Z');
    expect(await svc.payments.renewDue()).toMatchObject({ failed: 1 });
    const a = await svc.billing.account(userId, false);
    expect(a.credits).toBe(6800);
    expect(a.subscription.status).toBe('past_due');
    expect(a.entitlements.subscribed).toBe(false);
    await svc.payments.renewDue();
    expect((await svc.billing.account(userId, false)).credits).toBe(6800);
    expect(await svc.payments.history(userId)).toContainEqual(
      expect.objectContaining({ type: 'renewal', status: 'failed', failureMessage: 'Your card was declined.' }),
    );
  });

  it('cancel at period end: active until the billing date, then free with nothing charged', async () => {
    const userId = uid();
    await expect(svc.payments.cancel(userId)).rejects.toMatchObject({ code: 'FAILED_PRECONDITION', reason: 'no_subscription' });
    const intent = await subscribe(userId, 'standard', 'monthly', 2000);
    await svc.payments.confirm(userId, intent.paymentIntentId, card(VISA));
    await svc.payments.cancel(userId);
    const a = await svc.billing.account(userId, false);
    expect(a.subscription).toMatchObject({ plan: 'standard', status: 'active', cancelAtPeriodEnd: true });
    now = new Date('2026-12-21T10:00:01Z');
    expect(await svc.payments.renewDue()).toMatchObject({ ended: 1, renewed: 0 });
    const b = await svc.billing.account(userId, false);
    expect(b.subscription).toMatchObject({ plan: 'free', status: 'canceled', nextBillingAt: null });
    expect(b.credits).toBe(400);
  });

  it('a refund takes back the unspent credits only, never below zero, once', async () => {
    const userId = uid();
    const intent = await buy(userId, 'credits_400', 2000);
    await svc.payments.confirm(userId, intent.paymentIntentId, card(VISA));
    // Half refunded: 200 credits back.
    await svc.payments.refund(intent.paymentIntentId, 1000);
    expect(await balance(userId)).toBe(200);
    // Spend 150 on a reel, then refund the rest: only the 50 left are taken.
    await svc.billing.setSubscription(userId, 'standard', 'monthly', 'active', null);
    await svc.billing.reserve(uid(), userId, 150, false);
    const p = await svc.payments.refund(intent.paymentIntentId, 0);
    expect(p).toMatchObject({ status: 'refunded', refundedCents: 2000, refundedCredits: 250 });
    expect(await balance(userId)).toBe(0);
    await svc.payments.applyRefund(intent.paymentIntentId, 2000);
    expect(await balance(userId)).toBe(0);
  });

  it("revenue is the ledger's: succeeded payments in the window, refunds taken off, nothing for declined or unconfirmed ones", async () => {
    // A day no other test pays on, so the window holds only these payments.
    now = new Date('2030-01-10T10:00:00Z');
    expect(await svc.payments.revenue(24)).toEqual({ cents: 0, payments: 0 });
    const [a, b] = [uid(), uid()];
    const first = await buy(a, 'credits_400', 2000);
    await svc.payments.confirm(a, first.paymentIntentId, card(VISA));
    now = new Date('2030-01-10T12:00:00Z');
    await svc.payments.confirm(b, (await buy(b, 'credits_400', 2000)).paymentIntentId, card(VISA));
    await expect(svc.payments.confirm(b, (await buy(b, 'credits_200', 1000)).paymentIntentId, card('4000000000000002'))).rejects.toThrow();
    await buy(b, 'credits_2500', 8000); // never confirmed
    // $40 taken, as the admin dashboard's Revenue tile shows it.
    expect(await svc.payments.revenue(24)).toEqual({ cents: 4000, payments: 2 });
    // A $5 refund comes off; a fresh process over the same database reads the same ledger.
    await svc.payments.refund(first.paymentIntentId, 500);
    expect(await boot().payments.revenue(24)).toEqual({ cents: 3500, payments: 2 });
    // A day later, the first payment has left a 24-hour window.
    now = new Date('2030-01-11T11:00:00Z');
    expect(await svc.payments.revenue(24)).toEqual({ cents: 2000, payments: 1 });
    await expect(svc.payments.revenue(0)).rejects.toThrow('hours must be a whole number from 1 to 8784');
  });
});
