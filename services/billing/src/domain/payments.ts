import { DomainError, ErrorCode } from '@reelsmith/kit';
import { CREDIT_PACKS, PLANS, isPaidPlan, type BillingCycle, type PlanId } from './catalogue.js';

/** Pure payment rules: prices from the catalogue, payment states, cycles, plan changes, refunds. */

export type PaymentType = 'credits' | 'subscription' | 'renewal';
export type PaymentMethod = 'card' | 'paypal';
export type PaymentStatus = 'pending' | 'succeeded' | 'failed' | 'refunded';
export type ProviderName = 'sandbox' | 'stripe' | 'paypal';

export const CURRENCY = 'usd';

export interface PricedItem {
  type: 'credits' | 'subscription';
  itemId: string;
  name: string;
  amountCents: number;
  credits: number;
  plan: PlanId | null;
  billingCycle: BillingCycle | null;
}

const invalid = (m: string) => new DomainError(ErrorCode.INVALID_ARGUMENT, m);

/** The catalogue's item for a request: a pack, or a plan for one cycle. */
export function priceOf(type: string, itemId: string, billingCycle?: string): PricedItem {
  if (type === 'credits') {
    const pack = CREDIT_PACKS.find((p) => p.id === itemId);
    if (!pack) throw invalid(`Unknown credit pack: ${itemId}`);
    return {
      type,
      itemId,
      name: `${pack.credits.toLocaleString('en-US')} credits`,
      amountCents: pack.priceCents,
      credits: pack.credits,
      plan: null,
      billingCycle: null,
    };
  }
  if (type === 'subscription') {
    const plan = PLANS.find((p) => p.id === itemId);
    if (!plan) throw invalid(`Unknown plan: ${itemId}`);
    const cycle = (billingCycle || 'monthly') as string;
    if (cycle !== 'monthly' && cycle !== 'yearly') throw invalid('billing_cycle must be monthly or yearly');
    const yearly = cycle === 'yearly';
    return {
      type,
      itemId,
      name: `${plan.name} plan (${cycle})`,
      amountCents: yearly ? plan.yearlyPriceCents : plan.monthlyPriceCents,
      credits: yearly ? plan.yearlyCredits : plan.monthlyCredits,
      plan: plan.id,
      billingCycle: cycle,
    };
  }
  throw invalid('type must be credits or subscription');
}

/**
 * The server decides the price: a request whose amount is not the catalogue's is refused, and
 * only US dollars are taken.
 */
export function checkedItem(req: {
  type: string;
  itemId: string;
  amountCents: number;
  currency: string;
  billingCycle?: string;
}): PricedItem {
  const item = priceOf(req.type, req.itemId, req.billingCycle);
  if ((req.currency || CURRENCY).toLowerCase() !== CURRENCY) throw invalid('Only usd is accepted');
  if (req.amountCents !== item.amountCents)
    throw invalid(`Amount ${req.amountCents} does not match the price of ${item.name} (${item.amountCents} cents)`);
  return item;
}

/** The pack whose price is this many dollars (POST /auth/purchase-credits {amount}). */
export function packForDollars(amount: number): string {
  const pack = CREDIT_PACKS.find((p) => p.priceCents === Math.round(amount * 100));
  if (!pack) throw invalid(`No credit pack costs $${amount}; packs cost ${CREDIT_PACKS.map((p) => `$${p.priceCents / 100}`).join(', ')}`);
  return pack.id;
}

/**
 * Payment states: pending -> succeeded | failed; succeeded -> refunded (fully refunded). A failed
 * payment may still succeed later (a retried card, or a success webhook that arrives after a
 * failure one, out of order); a succeeded one never goes back to pending or failed.
 */
const NEXT: Record<PaymentStatus, readonly PaymentStatus[]> = {
  pending: ['succeeded', 'failed'],
  failed: ['succeeded'],
  succeeded: ['refunded'],
  refunded: [],
};
export const canMove = (from: PaymentStatus, to: PaymentStatus) => NEXT[from].includes(to);

/** Adds one billing cycle in UTC, clamping to the month's last day (Jan 31 -> Feb 28). */
export function addCycle(from: Date, cycle: BillingCycle): Date {
  const months = cycle === 'yearly' ? 12 : 1;
  const y = from.getUTCFullYear();
  const m = from.getUTCMonth() + months;
  const lastDay = new Date(Date.UTC(y, m + 1, 0)).getUTCDate();
  return new Date(
    Date.UTC(
      y,
      m,
      Math.min(from.getUTCDate(), lastDay),
      from.getUTCHours(),
      from.getUTCMinutes(),
      from.getUTCSeconds(),
      from.getUTCMilliseconds(),
    ),
  );
}

export interface SubscriptionState {
  plan: PlanId;
  status: 'active' | 'inactive' | 'canceled' | 'past_due';
  billingCycle: BillingCycle | null;
  nextBillingAt: Date | null;
  cancelAtPeriodEnd: boolean;
}

/**
 * Subscribing or changing plan (our proration rule, documented in docs/payments.md): the change takes
 * effect at once, a new cycle starts now at the full price of the new plan and cycle and grants
 * that cycle's credits. Credits already granted stay the user's; the unused part of the old
 * cycle is not paid back. Subscribing to the plan and cycle already active is refused.
 */
export function startCycle(item: PricedItem, now: Date): SubscriptionState {
  if (!item.plan || !item.billingCycle) throw invalid('not a subscription');
  return {
    plan: item.plan,
    status: 'active',
    billingCycle: item.billingCycle,
    nextBillingAt: addCycle(now, item.billingCycle),
    cancelAtPeriodEnd: false,
  };
}

export function checkCanSubscribe(current: SubscriptionState, item: PricedItem): void {
  if (current.status === 'active' && current.plan === item.plan && current.billingCycle === item.billingCycle && !current.cancelAtPeriodEnd)
    throw new DomainError(ErrorCode.FAILED_PRECONDITION, 'You are already subscribed to this plan.', 'already_subscribed');
}

export type RenewalDecision = { kind: 'end' } | { kind: 'charge'; item: PricedItem; periodStart: Date; nextBillingAt: Date };

/** What a due subscription does at its billing date: ends (cancelled at period end) or is charged again. */
export function renewalOf(s: SubscriptionState): RenewalDecision {
  if (!isPaidPlan(s.plan) || !s.billingCycle || !s.nextBillingAt) throw invalid('no paid subscription to renew');
  if (s.cancelAtPeriodEnd) return { kind: 'end' };
  const item = priceOf('subscription', s.plan, s.billingCycle);
  return { kind: 'charge', item, periodStart: s.nextBillingAt, nextBillingAt: addCycle(s.nextBillingAt, s.billingCycle) };
}

export const afterRenewal = (s: SubscriptionState, d: RenewalDecision, ok: boolean): SubscriptionState => {
  if (d.kind === 'end') return { plan: 'free', status: 'canceled', billingCycle: null, nextBillingAt: null, cancelAtPeriodEnd: false };
  return ok ? { ...s, status: 'active', nextBillingAt: d.nextBillingAt } : { ...s, status: 'past_due' };
};

/**
 * A refund takes back the refunded share of the payment's credits (refunded cents / amount,
 * rounded up), minus what earlier refunds took, but never more than the user still has: spent
 * credits are not taken and the balance never goes below zero.
 */
export function creditsToTakeBack(p: {
  amountCents: number;
  credits: number;
  refundedCentsTotal: number;
  alreadyTaken: number;
  balance: number;
}): number {
  const cents = Math.min(p.refundedCentsTotal, p.amountCents);
  const due = Math.ceil((p.credits * cents) / p.amountCents) - p.alreadyTaken;
  return Math.max(0, Math.min(due, p.balance));
}

/** The published test cards (the card networks' test numbers as Stripe documents them). */
export const TEST_CARDS = {
  success: '4242424242424242',
  declined: '4000000000000002',
  insufficientFunds: '4000000000009995',
  /** Sandbox extension: the first charge succeeds, every renewal is declined (to try past_due). */
  renewalsFail: '4000000000000341',
} as const;

export const DECLINE_MESSAGES = {
  declined: 'Your card was declined.',
  insufficientFunds: 'Your card has insufficient funds.',
  incorrectNumber: 'Your card number is incorrect.',
  notTestCard: 'Your card was declined. Test mode accepts only test cards, such as 4242 4242 4242 4242.',
  expired: "Your card's expiration date is in the past.",
  cvc: "Your card's security code is incomplete.",
  paypalCanceled: 'The PayPal payment was cancelled.',
} as const;

export const luhn = (digits: string) => {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return digits.length >= 12 && sum % 10 === 0;
};

/** The sandbox's verdict on a card, like the card networks' test numbers behave. */
export function sandboxCardOutcome(card: string, expiry: string, cvc: string, now: Date): { ok: true } | { ok: false; message: string } {
  const digits = card.replace(/[\s-]/g, '');
  if (!/^\d{12,19}$/.test(digits) || !luhn(digits)) return { ok: false, message: DECLINE_MESSAGES.incorrectNumber };
  if (expiry) {
    const m = /^(\d{1,2})\s*\/\s*(\d{2}|\d{4})$/.exec(expiry.trim());
    if (!m) return { ok: false, message: DECLINE_MESSAGES.expired };
    const month = Number(m[1]);
    const year = m[2]!.length === 2 ? 2000 + Number(m[2]) : Number(m[2]);
    if (month < 1 || month > 12 || Date.UTC(year, month, 1) <= now.getTime()) return { ok: false, message: DECLINE_MESSAGES.expired };
  }
  if (cvc && !/^\d{3,4}$/.test(cvc.trim())) return { ok: false, message: DECLINE_MESSAGES.cvc };
  if (digits === TEST_CARDS.success || digits === TEST_CARDS.renewalsFail) return { ok: true };
  if (digits === TEST_CARDS.declined) return { ok: false, message: DECLINE_MESSAGES.declined };
  if (digits === TEST_CARDS.insufficientFunds) return { ok: false, message: DECLINE_MESSAGES.insufficientFunds };
  return { ok: false, message: DECLINE_MESSAGES.notTestCard };
}
