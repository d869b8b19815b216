import { DomainError, ErrorCode } from '@reelsmith/kit';
import {
  afterRenewal,
  canMove,
  checkCanSubscribe,
  checkedItem,
  creditsToTakeBack,
  priceOf,
  renewalOf,
  startCycle,
  type PaymentMethod,
  type PricedItem,
  type ProviderName,
} from './payments.js';
import type {
  ConfirmDetails,
  Outcome,
  PaymentRecord,
  PaymentSeed,
  PaymentsRepository,
  PaymentsTx,
  ProviderEvent,
  Providers,
  Receipts,
  SubscriptionRecord,
} from './payments.ports.js';

export type * from './payments.ports.js';

const declined = (message: string) => new DomainError(ErrorCode.FAILED_PRECONDITION, message, 'payment_declined');
const notFound = () => new DomainError(ErrorCode.NOT_FOUND, 'Payment not found', 'payment_not_found');

/** A subscription that has ended: back on the free plan, nothing due. */
const ENDED = { plan: 'free', status: 'canceled', billingCycle: null, nextBillingAt: null, cancelAtPeriodEnd: false } as const;

/** A payment of `item` as first recorded: pending, in dollars, nothing refunded. */
const newPayment = (
  item: PricedItem,
  p: Pick<PaymentRecord, 'id' | 'userId' | 'email' | 'provider' | 'type' | 'method' | 'providerRef' | 'createdAt'>,
): PaymentRecord => ({
  ...p,
  itemId: item.itemId,
  itemName: item.name,
  plan: item.plan,
  billingCycle: item.billingCycle,
  amountCents: item.amountCents,
  currency: 'usd',
  credits: item.credits,
  status: 'pending',
  failureMessage: '',
  refundedCents: 0,
  refundedCredits: 0,
});

/** Grants a payment's credits under the ledger key `payment:<id>`, once; true when this call did. */
async function grantPayment(tx: PaymentsTx, p: PaymentRecord, reason: string): Promise<boolean> {
  const key = `payment:${p.id}`;
  const applied = await tx.appendLedger({ userId: p.userId, delta: p.credits, kind: 'purchase', key, reason });
  if (applied)
    await tx.emit(
      'events.billing.granted',
      { userId: p.userId, credits: BigInt(p.credits), reason, idempotencyKey: key },
      `billing.granted.payment.${p.id}`,
    );
  return applied;
}

/**
 * Payments and subscriptions. Credits are granted only for a confirmed payment, exactly once per
 * payment id (the ledger key `payment:<id>`, written in the transaction that moves the payment to
 * succeeded while it holds the payment's row lock), however many confirms and webhooks arrive.
 */
export class PaymentsService {
  constructor(
    private readonly repo: PaymentsRepository,
    private readonly providers: Providers,
    private readonly receipts: Receipts,
    private readonly clock: () => Date = () => new Date(),
    private readonly committed: () => void = () => undefined,
    private readonly log: { warn(o: object, m: string): void } = { warn: () => undefined },
  ) {}

  config() {
    return {
      cardProvider: this.providers.card.name,
      paypalProvider: this.providers.paypal.name,
      publishableKey: this.providers.publishableKey,
    };
  }

  async create(req: {
    userId: string;
    email: string;
    type: string;
    itemId: string;
    amountCents: number;
    currency: string;
    method: string;
    billingCycle: string;
  }) {
    const item = checkedItem(req);
    if (req.method !== 'card' && req.method !== 'paypal')
      throw new DomainError(ErrorCode.INVALID_ARGUMENT, 'payment_method must be card or paypal');
    const provider = req.method === 'paypal' ? this.providers.paypal : this.providers.card;
    const sub = await this.repo.transaction(async (tx) => {
      await tx.lockAccount(req.userId);
      return tx.lockSubscription(req.userId);
    });
    if (item.type === 'subscription') checkCanSubscribe(sub, item);
    const created = await provider.create({
      userId: req.userId,
      email: req.email,
      item,
      method: req.method,
      customerRef: sub.customerRef,
    });
    if (created.customerRef && created.customerRef !== sub.customerRef)
      await this.repo.transaction(async (tx) => {
        const s = await tx.lockSubscription(req.userId);
        await tx.saveSubscription({ ...s, customerRef: created.customerRef! });
      });
    await this.repo.transaction((tx) =>
      tx.insertPayment(
        newPayment(item, {
          id: created.id,
          userId: req.userId,
          email: req.email,
          provider: provider.name,
          type: item.type,
          method: req.method as PaymentMethod,
          providerRef: created.ref ?? '',
          createdAt: this.clock(),
        }),
      ),
    );
    return {
      clientSecret: created.clientSecret,
      paymentIntentId: created.id,
      provider: provider.name,
      approvalUrl: created.approvalUrl ?? '',
    };
  }

  /** Asks the provider; a success settles the payment (once), a decline records it and is thrown. */
  async confirm(userId: string, paymentId: string, details: ConfirmDetails): Promise<PaymentRecord> {
    const p = await this.repo.findPayment(paymentId);
    if (!p || p.userId !== userId) throw notFound();
    if (p.status === 'succeeded' || p.status === 'refunded') return p;
    const provider = this.providers.byName(p.provider);
    if (!provider) throw new DomainError(ErrorCode.FAILED_PRECONDITION, `The ${p.provider} provider is not configured`);
    const outcome = await provider.confirm(p, details);
    if (outcome.status === 'succeeded') return this.settle(p.id, outcome.ref, outcome.periodEnd);
    if (outcome.status === 'failed') {
      await this.fail(p.id, outcome.message);
      throw declined(outcome.message);
    }
    throw new DomainError(ErrorCode.FAILED_PRECONDITION, 'Payment confirmation failed', 'payment_pending');
  }

  /**
   * Moves a payment to succeeded and grants its credits, once: under the payment's row lock, and
   * with the ledger key `payment:<id>`. A subscription's first payment starts its cycle.
   */
  async settle(paymentId: string, ref?: string, periodEnd?: Date): Promise<PaymentRecord> {
    const out = await this.repo.transaction(async (tx) => {
      const p = await tx.lockPayment(paymentId);
      if (!p) throw notFound();
      if (!canMove(p.status, 'succeeded')) return { p, fresh: false };
      await tx.lockAccount(p.userId);
      const next: PaymentRecord = { ...p, status: 'succeeded', failureMessage: '', providerRef: ref || p.providerRef };
      await tx.updatePayment(next);
      const applied = await grantPayment(tx, p, p.itemName);
      const ended = p.type !== 'credits' && next.providerRef !== '' && (await tx.isEnded(p.provider, next.providerRef));
      if (p.type === 'renewal' && periodEnd && !ended) {
        const sub = await tx.lockSubscription(p.userId);
        if (sub.providerRef === next.providerRef && (!sub.nextBillingAt || sub.nextBillingAt < periodEnd))
          await tx.saveSubscription({ ...sub, status: 'active', nextBillingAt: periodEnd });
      }
      if (p.type === 'subscription' && p.plan && p.billingCycle && !ended) {
        const sub = await tx.lockSubscription(p.userId);
        const item = {
          type: 'subscription',
          itemId: p.itemId,
          name: p.itemName,
          amountCents: p.amountCents,
          credits: p.credits,
          plan: p.plan,
          billingCycle: p.billingCycle,
        } as const;
        const state = startCycle(item, this.clock());
        await tx.saveSubscription({
          ...sub,
          ...state,
          nextBillingAt: periodEnd ?? state.nextBillingAt,
          provider: p.provider,
          providerRef: next.providerRef,
          email: p.email || sub.email,
        });
      }
      return { p: next, fresh: applied };
    });
    this.committed();
    if (out.fresh) await this.sendReceipt(out.p);
    return out.p;
  }

  private async sendReceipt(p: PaymentRecord) {
    if (!p.email) return;
    try {
      if (await this.repo.claimReceipt(p.id)) await this.receipts.send(p);
    } catch (e) {
      this.log.warn({ err: e, payment_id: p.id }, 'receipt not sent');
    }
  }

  private async fail(paymentId: string, message: string) {
    await this.repo.transaction(async (tx) => {
      const p = await tx.lockPayment(paymentId);
      if (!p || (p.status !== 'pending' && p.status !== 'failed')) return;
      await tx.updatePayment({ ...p, status: 'failed', failureMessage: message });
    });
  }

  /** The admin dashboard's revenue: money the ledger says was taken in the last `hours`, refunds off. */
  async revenue(hours: number): Promise<{ cents: number; payments: number }> {
    if (!Number.isInteger(hours) || hours < 1 || hours > 8784)
      throw new DomainError(ErrorCode.INVALID_ARGUMENT, 'hours must be a whole number from 1 to 8784');
    return this.repo.revenueSince(new Date(this.clock().getTime() - hours * 3_600_000));
  }

  async history(userId: string): Promise<PaymentRecord[]> {
    return (await this.repo.history(userId)).filter((p) => p.status !== 'pending');
  }

  /** Cancel at period end: the plan stays active until the next billing date, then ends. */
  async cancel(userId: string): Promise<void> {
    const sub = await this.repo.transaction(async (tx) => {
      await tx.lockAccount(userId);
      const s = await tx.lockSubscription(userId);
      if (s.plan === 'free' || (s.status !== 'active' && s.status !== 'past_due'))
        throw new DomainError(ErrorCode.FAILED_PRECONDITION, 'You have no active subscription to cancel.', 'no_subscription');
      if (s.status === 'past_due') {
        // Nothing paid for the current period: it ends now.
        await tx.saveSubscription({ ...s, ...ENDED });
        return { ...s, cancelAtPeriodEnd: false };
      }
      await tx.saveSubscription({ ...s, cancelAtPeriodEnd: true });
      return { ...s, cancelAtPeriodEnd: true };
    });
    const provider = sub.provider ? this.providers.byName(sub.provider) : undefined;
    if (sub.cancelAtPeriodEnd && provider?.cancelAtPeriodEnd && sub.providerRef) await provider.cancelAtPeriodEnd(sub.providerRef);
  }

  /**
   * Renews every due sandbox subscription once. Each is claimed with a row lock that skips rows
   * another replica holds, and its charge is recorded under the payment id
   * `renewal:<user>:<period start>`, so a cycle is granted once across restarts and replicas.
   */
  async renewDue(): Promise<{ renewed: number; failed: number; ended: number }> {
    const counts = { renewed: 0, failed: 0, ended: 0 };
    const receipts: PaymentRecord[] = [];
    for (let i = 0; i < 1000; i++) {
      const now = this.clock();
      const done = await this.repo.transaction(async (tx) => {
        const s = await tx.claimDue(now);
        if (!s) return false;
        const decision = renewalOf(s);
        if (decision.kind === 'end') {
          await tx.saveSubscription({ ...s, ...afterRenewal(s, decision, true) });
          counts.ended++;
          return true;
        }
        const id = `renewal:${s.userId}:${decision.periodStart.toISOString()}`;
        const provider = this.providers.byName(s.provider ?? 'sandbox');
        const outcome: Outcome = provider?.renew
          ? await provider.renew(s, decision.item)
          : { status: 'failed', message: 'no provider renews it' };
        const ok = outcome.status === 'succeeded';
        const p: PaymentRecord = {
          ...newPayment(decision.item, {
            id,
            userId: s.userId,
            email: s.email,
            provider: s.provider ?? 'sandbox',
            type: 'renewal',
            method: 'card',
            providerRef: s.providerRef,
            createdAt: now,
          }),
          status: ok ? 'succeeded' : 'failed',
          failureMessage: outcome.status === 'failed' ? outcome.message : '',
        };
        const inserted = await tx.insertPayment(p);
        if (ok && inserted) {
          await tx.lockAccount(s.userId);
          if (await grantPayment(tx, p, `${p.itemName} renewal`)) receipts.push(p);
        }
        await tx.saveSubscription({ ...s, ...afterRenewal(s, decision, ok) });
        if (ok) counts.renewed++;
        else counts.failed++;
        return true;
      });
      if (!done) break;
    }
    this.committed();
    for (const p of receipts) await this.sendReceipt(p);
    return counts;
  }

  /**
   * A refund (whole or partial, `refundedCentsTotal` is the payment's total refunded so far)
   * takes back the refunded share of its credits that the user has not spent; never below zero.
   */
  async applyRefund(paymentId: string, refundedCentsTotal: number): Promise<PaymentRecord> {
    const out = await this.repo.transaction(async (tx) => {
      const p = await tx.lockPayment(paymentId);
      if (!p) throw notFound();
      if (p.status !== 'succeeded' && p.status !== 'refunded')
        throw new DomainError(ErrorCode.FAILED_PRECONDITION, 'Only a successful payment can be refunded');
      const total = Math.min(Math.max(refundedCentsTotal, p.refundedCents), p.amountCents);
      if (total === p.refundedCents) return p;
      await tx.lockAccount(p.userId);
      const take = creditsToTakeBack({
        amountCents: p.amountCents,
        credits: p.credits,
        refundedCentsTotal: total,
        alreadyTaken: p.refundedCredits,
        balance: await tx.balance(p.userId),
      });
      if (take > 0)
        await tx.appendLedger({
          userId: p.userId,
          delta: -take,
          kind: 'refund',
          key: `refund:${p.id}:${total}`,
          reason: `refund of ${p.itemName}`,
        });
      const next: PaymentRecord = {
        ...p,
        refundedCents: total,
        refundedCredits: p.refundedCredits + take,
        status: total >= p.amountCents ? 'refunded' : p.status,
      };
      await tx.updatePayment(next);
      return next;
    });
    this.committed();
    return out;
  }

  /** Admin refund: asks the provider to pay back, then takes back the unspent credits. */
  async refund(paymentId: string, amountCents: number): Promise<PaymentRecord> {
    const p = await this.repo.findPayment(paymentId);
    if (!p) throw notFound();
    if (p.status !== 'succeeded') throw new DomainError(ErrorCode.FAILED_PRECONDITION, 'Only a successful payment can be refunded');
    const cents = amountCents > 0 ? Math.min(amountCents, p.amountCents - p.refundedCents) : p.amountCents - p.refundedCents;
    const provider = this.providers.byName(p.provider);
    if (provider?.refund) await provider.refund(p, cents);
    return this.applyRefund(p.id, p.refundedCents + cents);
  }

  /** A provider's webhook: verified, then applied at most once per event id (and per payment id). */
  async webhook(providerName: string, raw: Buffer, headers: Record<string, string>): Promise<{ eventId: string; processed: boolean }> {
    const provider = this.providers.byName(providerName);
    if (!provider?.parseWebhook)
      throw new DomainError(ErrorCode.INVALID_ARGUMENT, `No ${providerName} webhooks are configured`, 'webhook_unverified');
    const event = await provider.parseWebhook(raw, headers);
    // A replay is answered without effect; a new event is applied (every effect is idempotent by
    // payment id), then recorded, so a failure half-way is retried by the provider's redelivery.
    if (await this.repo.transaction((tx) => tx.eventSeen(providerName, event.id))) return { eventId: event.id, processed: false };
    await this.apply(providerName as ProviderName, event);
    const fresh = await this.repo.transaction((tx) => tx.recordEvent(providerName, event.id, event.type));
    return { eventId: event.id, processed: fresh };
  }

  private async ensurePayment(provider: ProviderName, seed: PaymentSeed) {
    // The provider has taken the money already: the catalogue names the item and its credits; a
    // different amount (a coupon, tax) is logged, not refused.
    const item = priceOf(seed.type === 'renewal' ? 'subscription' : seed.type, seed.itemId, seed.billingCycle ?? undefined);
    if (item.amountCents !== seed.amountCents)
      this.log.warn(
        { payment_id: seed.id, amount_cents: seed.amountCents, price_cents: item.amountCents },
        'provider amount differs from the catalogue',
      );
    await this.repo.transaction(async (tx) => {
      await tx.lockAccount(seed.userId);
      await tx.insertPayment(
        newPayment(item, {
          id: seed.id,
          userId: seed.userId,
          email: seed.email,
          provider,
          type: seed.type,
          method: provider === 'paypal' ? 'paypal' : 'card',
          providerRef: seed.ref ?? '',
          createdAt: this.clock(),
        }),
      );
    });
  }

  private async subscriptionOwner(provider: ProviderName, ref: string) {
    return this.repo.transaction((tx) => tx.findSubscriptionByRef(provider, ref));
  }

  private async apply(provider: ProviderName, e: ProviderEvent): Promise<void> {
    switch (e.kind) {
      case 'payment_succeeded':
        await this.ensurePayment(provider, e.payment);
        await this.settle(e.payment.id, e.payment.ref);
        return;
      case 'payment_failed':
        await this.fail(e.paymentId, e.message);
        return;
      case 'invoice_paid':
        await this.ensurePayment(provider, e.payment);
        await this.settle(e.payment.id, e.subscriptionRef, e.periodEnd);
        return;
      case 'invoice_failed': {
        await this.fail(e.paymentId, e.message);
        const userId = await this.subscriptionOwner(provider, e.subscriptionRef);
        if (userId && !e.first) await this.setStatus(userId, e.subscriptionRef, (s) => ({ ...s, status: 'past_due' }));
        return;
      }
      case 'subscription_updated': {
        const userId = await this.subscriptionOwner(provider, e.subscriptionRef);
        if (!userId) return;
        const status =
          e.status === 'active' || e.status === 'trialing'
            ? 'active'
            : e.status === 'past_due' || e.status === 'unpaid'
              ? 'past_due'
              : null;
        await this.setStatus(userId, e.subscriptionRef, (s) => ({
          ...s,
          status: status ?? s.status,
          cancelAtPeriodEnd: e.cancelAtPeriodEnd,
          nextBillingAt: e.periodEnd ?? s.nextBillingAt,
        }));
        return;
      }
      case 'subscription_deleted': {
        const userId = await this.subscriptionOwner(provider, e.subscriptionRef);
        await this.repo.transaction((tx) => tx.markEnded(provider, e.subscriptionRef));
        if (userId) await this.setStatus(userId, e.subscriptionRef, (s) => ({ ...s, ...ENDED, providerRef: '' }));
        return;
      }
      case 'refunded': {
        const p = (await this.repo.findPayment(e.paymentId)) ?? (await this.repo.findPaymentByRef(provider, e.paymentId));
        // Not known yet (its success event has not arrived): refused, so the provider retries it.
        if (!p) throw new DomainError(ErrorCode.FAILED_PRECONDITION, 'Refund for a payment not recorded yet', 'payment_not_found');
        await this.applyRefund(p.id, e.refundedCentsTotal);
        return;
      }
      case 'ignored':
        return;
    }
  }

  private async setStatus(userId: string, ref: string, change: (s: SubscriptionRecord) => SubscriptionRecord) {
    await this.repo.transaction(async (tx) => {
      await tx.lockAccount(userId);
      const s = await tx.lockSubscription(userId);
      // An event about a subscription the user has since replaced changes nothing.
      if (s.providerRef !== ref) return;
      await tx.saveSubscription(change(s));
    });
  }
}
