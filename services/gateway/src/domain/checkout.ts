import { DomainError, ErrorCode } from '@reelsmith/kit';

export interface Buyer {
  id: string;
  email: string;
  isGuest: boolean;
}

/** What a payment is for; billing checks the amount against its catalogue again. */
export interface PaymentOrder {
  type: 'credits' | 'subscription';
  itemId: string;
  amountCents: number;
  currency: string;
  paymentMethod: 'card' | 'paypal';
  billingCycle?: 'monthly' | 'yearly';
}

export interface StartedPayment {
  clientSecret: string;
  paymentIntentId: string;
  provider: string;
  publishableKey: string;
  approvalUrl: string;
}

export interface CatalogueFacts {
  packs: Array<{ id: string; priceCents: number }>;
  plans: Array<{ id: string; monthlyPriceCents: number; yearlyPriceCents: number }>;
}

/** Billing, as checkout needs it (repositories/account-flows.ts binds it to gRPC). */
export interface CheckoutPorts {
  catalogue(requestId: string): Promise<CatalogueFacts>;
  createPayment(buyer: Buyer, order: PaymentOrder, requestId: string): Promise<StartedPayment>;
}

const dollars = (cents: number) => `$${cents / 100}`;

/**
 * Starting a payment: the buyer may buy (the shared guest pass may not) and the item exists at that
 * price, all checked before billing creates anything. Nothing is granted here: a payment is
 * confirmed with POST /payments/confirm or the provider's webhook.
 */
export class Checkout {
  constructor(private readonly ports: CheckoutPorts) {}

  /** POST /payments/create-intent: the order as the client sent it (billing checks the price). */
  async start(buyer: Buyer, order: PaymentOrder, requestId: string): Promise<StartedPayment> {
    this.mayBuy(buyer);
    return this.ports.createPayment(buyer, order, requestId);
  }

  /** POST /auth/purchase-credits: the credit pack that costs `amountDollars`. */
  async buyPackCosting(buyer: Buyer, amountDollars: number, requestId: string): Promise<StartedPayment> {
    this.mayBuy(buyer);
    const cents = Math.round(amountDollars * 100);
    const { packs } = await this.ports.catalogue(requestId);
    const pack = packs.find((p) => p.priceCents === cents);
    if (!pack)
      throw new DomainError(
        ErrorCode.INVALID_ARGUMENT,
        `No credit pack costs $${amountDollars}; packs cost ${packs.map((p) => dollars(p.priceCents)).join(', ')}`,
        'no_such_pack',
      );
    return this.ports.createPayment(
      buyer,
      { type: 'credits', itemId: pack.id, amountCents: cents, currency: 'usd', paymentMethod: 'card' },
      requestId,
    );
  }

  /** POST /auth/upgrade-subscription: the plan at its catalogue price for the cycle. */
  async subscribe(buyer: Buyer, planId: string, cycle: 'monthly' | 'yearly', requestId: string): Promise<StartedPayment> {
    this.mayBuy(buyer);
    const { plans } = await this.ports.catalogue(requestId);
    const plan = plans.find((p) => p.id === planId);
    if (!plan) throw new DomainError(ErrorCode.INVALID_ARGUMENT, `There is no plan "${planId}".`, 'no_such_plan');
    return this.ports.createPayment(
      buyer,
      {
        type: 'subscription',
        itemId: plan.id,
        amountCents: cycle === 'yearly' ? plan.yearlyPriceCents : plan.monthlyPriceCents,
        currency: 'usd',
        paymentMethod: 'card',
        billingCycle: cycle,
      },
      requestId,
    );
  }

  private mayBuy(buyer: Buyer): void {
    if (buyer.isGuest)
      throw new DomainError(ErrorCode.PERMISSION_DENIED, 'The guest pass cannot make purchases. Sign up to buy credits.', 'guest');
  }
}
