import {
  addCycle,
  afterRenewal,
  canMove,
  checkCanSubscribe,
  checkedItem,
  creditsToTakeBack,
  packForDollars,
  priceOf,
  renewalOf,
  sandboxCardOutcome,
  startCycle,
  type SubscriptionState,
} from '../../src/domain/payments';

const now = new Date('2026-11-21T10:00:00Z');

describe('amounts come from the catalogue', () => {
  it.each([
    ['credits', 'credits_200', '', 1000, 200],
    ['credits', 'credits_1000', '', 4000, 1000],
    ['credits', 'credits_2500', '', 8000, 2500],
    ['subscription', 'standard', 'monthly', 2000, 400],
    ['subscription', 'standard', 'yearly', 19200, 4800],
    ['subscription', 'mid-tier', 'monthly', 6000, 1800],
    ['subscription', 'mid-tier', 'yearly', 57600, 21600],
    ['subscription', 'corporate', 'monthly', 17000, 6800],
    ['subscription', 'corporate', 'yearly', 163200, 81600],
  ])('%s %s %s costs %i cents for %i credits', (type, itemId, cycle, cents, credits) => {
    expect(priceOf(type, itemId, cycle)).toMatchObject({ amountCents: cents, credits });
    expect(checkedItem({ type, itemId, billingCycle: cycle, amountCents: cents, currency: 'usd' }).credits).toBe(credits);
  });

  it('refuses a different amount, another currency, unknown items and cycles', () => {
    expect(() => checkedItem({ type: 'credits', itemId: 'credits_1000', amountCents: 1, currency: 'usd' })).toThrow(/does not match/);
    expect(() => checkedItem({ type: 'credits', itemId: 'credits_1000', amountCents: 4000, currency: 'EUR' })).toThrow(
      'Only usd is accepted',
    );
    expect(() => priceOf('credits', 'credits_5', '')).toThrow('Unknown credit pack: credits_5');
    expect(() => priceOf('subscription', 'gold', 'monthly')).toThrow('Unknown plan: gold');
    expect(() => priceOf('subscription', 'standard', 'weekly')).toThrow(/monthly or yearly/);
    expect(() => priceOf('gift', 'x', '')).toThrow(/credits or subscription/);
  });

  it('maps /auth/purchase-credits dollar amounts to packs', () => {
    expect(packForDollars(40)).toBe('credits_1000');
    expect(packForDollars(10)).toBe('credits_200');
    expect(() => packForDollars(15)).toThrow(/No credit pack costs \$15/);
  });
});

describe('payment and subscription state machines', () => {
  it('moves payments only forward', () => {
    expect(canMove('pending', 'succeeded')).toBe(true);
    expect(canMove('pending', 'failed')).toBe(true);
    expect(canMove('failed', 'succeeded')).toBe(true);
    expect(canMove('succeeded', 'failed')).toBe(false);
    expect(canMove('succeeded', 'succeeded')).toBe(false);
    expect(canMove('succeeded', 'refunded')).toBe(true);
    expect(canMove('refunded', 'succeeded')).toBe(false);
  });

  it('adds cycles in UTC, clamping to the end of shorter months', () => {
    expect(addCycle(new Date('2026-01-31T08:00:00Z'), 'monthly')).toEqual(new Date('2026-02-28T08:00:00Z'));
    expect(addCycle(new Date('2028-02-29T00:00:00Z'), 'yearly')).toEqual(new Date('2029-02-28T00:00:00Z'));
    expect(addCycle(new Date('2026-12-15T00:00:00Z'), 'monthly')).toEqual(new Date('2027-01-15T00:00:00Z'));
  });

  const active: SubscriptionState = {
    plan: 'standard',
    status: 'active',
    billingCycle: 'monthly',
    nextBillingAt: new Date('2026-12-21T10:00:00Z'),
    cancelAtPeriodEnd: false,
  };

  it('proration rule: a plan change starts a fresh full-price cycle now with the new plan', () => {
    const item = priceOf('subscription', 'corporate', 'yearly');
    expect(startCycle(item, now)).toEqual({
      plan: 'corporate',
      status: 'active',
      billingCycle: 'yearly',
      nextBillingAt: new Date('2027-11-21T10:00:00Z'),
      cancelAtPeriodEnd: false,
    });
    expect(() => checkCanSubscribe(active, priceOf('subscription', 'standard', 'monthly'))).toThrow(
      'You are already subscribed to this plan.',
    );
    expect(() => checkCanSubscribe(active, priceOf('subscription', 'standard', 'yearly'))).not.toThrow();
    expect(() => checkCanSubscribe({ ...active, status: 'past_due' }, priceOf('subscription', 'standard', 'monthly'))).not.toThrow();
  });

  it('renews at the billing date, goes past_due on a failed charge, ends when cancelled at period end', () => {
    const d = renewalOf(active);
    expect(d).toMatchObject({ kind: 'charge', periodStart: active.nextBillingAt, nextBillingAt: new Date('2027-01-21T10:00:00Z') });
    expect(afterRenewal(active, d, true)).toMatchObject({ status: 'active', nextBillingAt: new Date('2027-01-21T10:00:00Z') });
    expect(afterRenewal(active, d, false)).toMatchObject({ status: 'past_due', nextBillingAt: active.nextBillingAt });
    const ending = { ...active, cancelAtPeriodEnd: true };
    expect(afterRenewal(ending, renewalOf(ending), true)).toEqual({
      plan: 'free',
      status: 'canceled',
      billingCycle: null,
      nextBillingAt: null,
      cancelAtPeriodEnd: false,
    });
  });
});

describe('refunds take back unspent credits only', () => {
  it.each([
    [{ amountCents: 4000, credits: 1000, refundedCentsTotal: 4000, alreadyTaken: 0, balance: 5000 }, 1000],
    [{ amountCents: 4000, credits: 1000, refundedCentsTotal: 2000, alreadyTaken: 0, balance: 5000 }, 500],
    [{ amountCents: 4000, credits: 1000, refundedCentsTotal: 4000, alreadyTaken: 500, balance: 5000 }, 500],
    [{ amountCents: 4000, credits: 1000, refundedCentsTotal: 4000, alreadyTaken: 0, balance: 120 }, 120],
    [{ amountCents: 4000, credits: 1000, refundedCentsTotal: 4000, alreadyTaken: 0, balance: 0 }, 0],
    [{ amountCents: 3000, credits: 1000, refundedCentsTotal: 1000, alreadyTaken: 0, balance: 5000 }, 334],
  ])('%o -> %i', (input, taken) => expect(creditsToTakeBack(input)).toBe(taken));
});

describe('sandbox cards behave like the published test cards', () => {
  it.each([
    ['4242424242424242', { ok: true }],
    ['4242 4242 4242 4242', { ok: true }],
    ['4000000000000002', { ok: false, message: 'Your card was declined.' }],
    ['4000000000009995', { ok: false, message: 'Your card has insufficient funds.' }],
    ['4242424242424241', { ok: false, message: 'Your card number is incorrect.' }],
    ['5555555555554444', { ok: false, message: expect.stringMatching(/Test mode accepts only test cards/) }],
  ])('%s', (cardNumber, verdict) => expect(sandboxCardOutcome(cardNumber, '12/34', '123', now)).toEqual(verdict));

  it('needs a future expiry and a 3-4 digit CVC', () => {
    expect(sandboxCardOutcome('4242424242424242', '10/26', '123', now)).toEqual({
      ok: false,
      message: "Your card's expiration date is in the past.",
    });
    expect(sandboxCardOutcome('4242424242424242', '11/26', '123', now)).toEqual({ ok: true });
    expect(sandboxCardOutcome('4242424242424242', '12/34', '12', now)).toEqual({
      ok: false,
      message: "Your card's security code is incomplete.",
    });
  });
});
