import Stripe from 'stripe';
import { DomainError, ErrorCode } from '@reelsmith/kit';
// The same port types as paypal.ts on purpose: both providers implement PaymentProvider.
import type { BillingCycle } from '../../domain/catalogue.js';
import type { PaymentType, PricedItem } from '../../domain/payments.js';
import type {
  ConfirmDetails,
  CreatedPayment,
  Outcome,
  PaymentProvider,
  PaymentRecord,
  PaymentSeed,
  ProviderEvent,
} from '../../domain/payments.ports.js';

const CONFIRM_ATTEMPTS = 4;
const CONFIRM_RETRY_MS = 500;

/** Stripe's webhook tolerance: a signature older than this is refused. */
export const STRIPE_TOLERANCE_SECONDS = 300;

/** The lookup key of a plan's Price for one cycle (created by `npm run stripe:sync`). */
export const lookupKey = (plan: string, cycle: BillingCycle) => `reelsmith_${plan.replace(/-/g, '_')}_${cycle}`;

/** The Stripe client; `apiUrl` points it elsewhere (tests use a local stand-in). */
export function stripeClient(secretKey: string, apiUrl?: string): Stripe {
  const u = apiUrl ? new URL(apiUrl) : undefined;
  return new Stripe(secretKey, {
    maxNetworkRetries: 2,
    timeout: 20_000,
    ...(u
      ? {
          host: u.hostname,
          port: u.port || (u.protocol === 'https:' ? 443 : 80),
          protocol: u.protocol.replace(':', '') as 'http' | 'https',
        }
      : {}),
  });
}

type Obj = Record<string, unknown>;
const at = (o: unknown, path: string): unknown =>
  path.split('.').reduce<unknown>((v, k) => (v && typeof v === 'object' ? (v as Obj)[k] : undefined), o);
const str = (o: unknown, path: string) => {
  const v = at(o, path);
  return typeof v === 'string' ? v : v && typeof v === 'object' && typeof (v as Obj).id === 'string' ? ((v as Obj).id as string) : '';
};
const num = (o: unknown, path: string) => {
  const v = at(o, path);
  return typeof v === 'number' ? v : 0;
};

const unverified = (why: string) =>
  new DomainError(ErrorCode.INVALID_ARGUMENT, `Webhook signature verification failed: ${why}`, 'webhook_unverified');

/** Our metadata on every PaymentIntent and Subscription we create: enough to credit the right user. */
function seedFrom(id: string, meta: unknown, amountCents: number, type?: PaymentType, ref?: string): PaymentSeed | null {
  const userId = str(meta, 'user_id');
  const itemId = str(meta, 'item_id');
  if (!userId || !itemId) return null;
  const cycle = str(meta, 'billing_cycle');
  return {
    id,
    userId,
    email: str(meta, 'email'),
    type: type ?? (str(meta, 'type') === 'subscription' ? 'subscription' : 'credits'),
    itemId,
    billingCycle: cycle === 'monthly' || cycle === 'yearly' ? cycle : null,
    amountCents,
    ref,
  };
}

/** An invoice's subscription id and our metadata on it (both API shapes: `parent` and the older fields). */
const invoiceSubscription = (inv: unknown) => ({
  id: str(inv, 'parent.subscription_details.subscription') || str(inv, 'subscription'),
  meta: at(inv, 'parent.subscription_details.metadata') ?? at(inv, 'subscription_details.metadata'),
});

const periodEndOf = (inv: unknown): Date => {
  const lines = at(inv, 'lines.data');
  const end = (Array.isArray(lines) && num(lines[0], 'period.end')) || num(inv, 'period_end');
  return new Date(end * 1000);
};

/** Reduces a verified Stripe event to what the product reacts to. */
export function mapStripeEvent(e: { id: string; type: string; data: { object: unknown } }): ProviderEvent {
  const o = e.data.object;
  const base = { id: e.id, type: e.type };
  switch (e.type) {
    case 'payment_intent.succeeded': {
      const seed = seedFrom(str(o, 'id'), at(o, 'metadata'), num(o, 'amount_received') || num(o, 'amount'));
      // Subscription payments are invoices' PaymentIntents (no metadata of ours): invoice.paid credits them.
      return seed && seed.type === 'credits' ? { ...base, kind: 'payment_succeeded', payment: seed } : { ...base, kind: 'ignored' };
    }
    case 'payment_intent.payment_failed':
      return {
        ...base,
        kind: 'payment_failed',
        paymentId: str(o, 'id'),
        message: str(o, 'last_payment_error.message') || 'Your card was declined.',
      };
    case 'invoice.paid':
    case 'invoice.payment_succeeded': {
      const sub = invoiceSubscription(o);
      const first = str(o, 'billing_reason') === 'subscription_create';
      const seed = seedFrom(str(o, 'id'), sub.meta, num(o, 'amount_paid'), first ? 'subscription' : 'renewal', sub.id);
      if (!seed || !sub.id) return { ...base, kind: 'ignored' };
      return { ...base, kind: 'invoice_paid', payment: seed, subscriptionRef: sub.id, periodEnd: periodEndOf(o) };
    }
    case 'invoice.payment_failed': {
      const sub = invoiceSubscription(o);
      if (!sub.id) return { ...base, kind: 'ignored' };
      return {
        ...base,
        kind: 'invoice_failed',
        paymentId: str(o, 'id'),
        subscriptionRef: sub.id,
        message: str(o, 'last_finalization_error.message') || 'Your card was declined.',
        first: str(o, 'billing_reason') === 'subscription_create',
      };
    }
    case 'customer.subscription.updated': {
      const items = at(o, 'items.data');
      const end = (Array.isArray(items) && num(items[0], 'current_period_end')) || num(o, 'current_period_end');
      return {
        ...base,
        kind: 'subscription_updated',
        subscriptionRef: str(o, 'id'),
        status: str(o, 'status'),
        cancelAtPeriodEnd: at(o, 'cancel_at_period_end') === true,
        periodEnd: end ? new Date(end * 1000) : null,
      };
    }
    case 'customer.subscription.deleted':
      return { ...base, kind: 'subscription_deleted', subscriptionRef: str(o, 'id') };
    case 'charge.refunded':
      return { ...base, kind: 'refunded', paymentId: str(o, 'payment_intent'), refundedCentsTotal: num(o, 'amount_refunded') };
    default:
      return { ...base, kind: 'ignored' };
  }
}

/**
 * Cards through Stripe: packs are PaymentIntents, plans are Stripe Billing subscriptions (a
 * Customer per user, Prices by lookup key). The browser confirms with Stripe Elements; the server
 * only believes Stripe (it retrieves the PaymentIntent or invoice) and its signed webhooks.
 */
export class StripeProvider implements PaymentProvider {
  readonly name = 'stripe' as const;
  constructor(
    private readonly stripe: Stripe,
    private readonly webhookSecret: string | undefined,
  ) {}

  async create(input: { userId: string; email: string; item: PricedItem; customerRef: string }): Promise<CreatedPayment> {
    const { item } = input;
    const metadata = {
      user_id: input.userId,
      email: input.email,
      type: item.type,
      item_id: item.itemId,
      billing_cycle: item.billingCycle ?? '',
    };
    if (item.type === 'credits') {
      const pi = await this.stripe.paymentIntents.create({
        amount: item.amountCents,
        currency: 'usd',
        description: `Reelsmith: ${item.name}`,
        metadata,
        automatic_payment_methods: { enabled: true, allow_redirects: 'never' },
      });
      return { id: pi.id, clientSecret: pi.client_secret ?? '' };
    }
    const key = lookupKey(item.plan!, item.billingCycle!);
    const prices = await this.stripe.prices.list({ lookup_keys: [key], active: true, limit: 1 });
    const price = prices.data[0];
    if (!price)
      throw new DomainError(ErrorCode.FAILED_PRECONDITION, `Stripe has no price ${key}: run npm run stripe:sync`, 'stripe_not_synced');
    const customer =
      input.customerRef || (await this.stripe.customers.create({ email: input.email, metadata: { user_id: input.userId } })).id;
    const sub = await this.stripe.subscriptions.create({
      customer,
      items: [{ price: price.id }],
      payment_behavior: 'default_incomplete',
      payment_settings: { save_default_payment_method: 'on_subscription' },
      metadata,
      expand: ['latest_invoice.confirmation_secret'],
    });
    const invoice = sub.latest_invoice as Stripe.Invoice | null;
    if (!invoice?.id || !invoice.confirmation_secret)
      throw new DomainError(ErrorCode.INTERNAL, 'Stripe returned a subscription without an invoice to pay');
    return { id: invoice.id, clientSecret: invoice.confirmation_secret.client_secret, ref: sub.id, customerRef: customer };
  }

  /** Stripe may take a moment after the browser's confirmation: asked a few times before 'pending'. */
  async confirm(p: PaymentRecord, _d: ConfirmDetails): Promise<Outcome> {
    void _d;
    for (let attempt = 0; ; attempt++) {
      const o = await this.check(p);
      if (o.status !== 'pending' || attempt >= CONFIRM_ATTEMPTS - 1) return o;
      await new Promise((r) => setTimeout(r, CONFIRM_RETRY_MS));
    }
  }

  private async check(p: PaymentRecord): Promise<Outcome> {
    if (p.type === 'credits') {
      const pi = await this.stripe.paymentIntents.retrieve(p.id);
      if (pi.status === 'succeeded') return { status: 'succeeded' };
      if (pi.last_payment_error?.message && pi.status === 'requires_payment_method')
        return { status: 'failed', message: pi.last_payment_error.message };
      return { status: 'pending' };
    }
    const invoice = await this.stripe.invoices.retrieve(p.id);
    if (invoice.status === 'paid') return { status: 'succeeded', ref: p.providerRef, periodEnd: periodEndOf(invoice) };
    return { status: 'pending' };
  }

  async cancelAtPeriodEnd(subscriptionRef: string): Promise<void> {
    await this.stripe.subscriptions.update(subscriptionRef, { cancel_at_period_end: true });
  }

  async refund(p: PaymentRecord, cents: number): Promise<void> {
    if (!p.id.startsWith('pi_'))
      throw new DomainError(
        ErrorCode.FAILED_PRECONDITION,
        'Refund subscription invoices from the Stripe Dashboard; the charge.refunded webhook takes the credits back',
      );
    await this.stripe.refunds.create({ payment_intent: p.id, amount: cents });
  }

  async parseWebhook(raw: Buffer, headers: Record<string, string>): Promise<ProviderEvent> {
    if (!this.webhookSecret) throw unverified('STRIPE_WEBHOOK_SECRET is not set');
    const signature = headers['stripe-signature'];
    if (!signature) throw unverified('no Stripe-Signature header');
    let event: Stripe.Event;
    try {
      event = this.stripe.webhooks.constructEvent(raw, signature, this.webhookSecret, STRIPE_TOLERANCE_SECONDS);
    } catch (e) {
      throw unverified((e as Error).message.split('\n')[0] ?? 'invalid');
    }
    return mapStripeEvent(event as unknown as { id: string; type: string; data: { object: unknown } });
  }
}
