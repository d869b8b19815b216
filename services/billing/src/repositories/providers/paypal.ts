import {
  ApiError,
  CheckoutPaymentIntent,
  Client,
  Environment,
  OrdersController,
  PaymentsController,
  PaypalExperienceUserAction,
  PaypalWalletContextShippingPreference,
  type Order,
} from '@paypal/paypal-server-sdk';
import { DomainError, ErrorCode } from '@reelsmith/kit';
import { DECLINE_MESSAGES, type PaymentType, type PricedItem } from '../../domain/payments.js';
// The same port types as stripe.ts on purpose: both providers implement PaymentProvider.
import type {
  ConfirmDetails,
  CreatedPayment,
  Outcome,
  PaymentProvider,
  PaymentRecord,
  PaymentSeed,
  ProviderEvent,
} from '../../domain/payments.ports.js';

export interface PaypalOptions {
  clientId: string;
  clientSecret: string;
  env: 'sandbox' | 'live';
  webhookId?: string;
  publicUrl: string;
  /** Tests: send every PayPal call to this origin instead of api-m.(sandbox.)paypal.com. */
  apiUrl?: string;
}

const REAL = { sandbox: 'https://api-m.sandbox.paypal.com', live: 'https://api-m.paypal.com' };

interface AdapterConfig {
  url?: string;
  method?: string;
  headers?: { toJSON?: () => Record<string, string> } & Record<string, unknown>;
  data?: unknown;
  auth?: { username: string; password: string };
}

/** An axios adapter (the SDK's transport) that sends the SDK's requests to another origin with fetch. */
const redirectingAdapter = (from: string, to: string) => async (config: AdapterConfig) => {
  const headers: Record<string, string> = {};
  const raw = typeof config.headers?.toJSON === 'function' ? config.headers.toJSON() : (config.headers ?? {});
  for (const [k, v] of Object.entries(raw)) if (typeof v === 'string' || typeof v === 'number') headers[k] = String(v);
  if (config.auth) headers.authorization = `Basic ${Buffer.from(`${config.auth.username}:${config.auth.password}`).toString('base64')}`;
  const data = config.data;
  const body =
    data === undefined || data === null
      ? undefined
      : typeof data === 'string'
        ? data
        : data instanceof URLSearchParams
          ? data.toString()
          : JSON.stringify(data);
  const res = await fetch((config.url ?? '').replace(from, to), { method: (config.method ?? 'get').toUpperCase(), headers, body });
  return {
    data: await res.text(),
    status: res.status,
    statusText: res.statusText,
    headers: Object.fromEntries([...(res.headers as unknown as Iterable<[string, string]>)]),
    config,
    request: {},
  };
};

/** What we put in a purchase unit's custom_id, to credit the right user from a webhook alone. */
export const customId = (userId: string, item: PricedItem) => [userId, item.type, item.itemId, item.billingCycle ?? ''].join('|');
const fromCustomId = (id: string, paymentId: string, amountCents: number, ref: string): PaymentSeed | null => {
  const [userId, type, itemId, cycle] = id.split('|');
  if (!userId || !itemId || (type !== 'credits' && type !== 'subscription')) return null;
  return {
    id: paymentId,
    userId,
    email: '',
    type: type as PaymentType,
    itemId,
    billingCycle: cycle === 'monthly' || cycle === 'yearly' ? cycle : null,
    amountCents,
    ref,
  };
};

type Obj = Record<string, unknown>;
const at = (o: unknown, path: string): unknown =>
  path.split('.').reduce<unknown>((v, k) => (v && typeof v === 'object' ? (v as Obj)[k] : undefined), o);
const s = (o: unknown, path: string) => {
  const v = at(o, path);
  return typeof v === 'string' ? v : '';
};
const cents = (value: string) => Math.round(Number(value) * 100);
const captureOf = (o: Order) => o.purchaseUnits?.[0]?.payments?.captures?.[0];

const unverified = (why: string) =>
  new DomainError(ErrorCode.INVALID_ARGUMENT, `Webhook signature verification failed: ${why}`, 'webhook_unverified');

/**
 * PayPal Orders v2 through @paypal/paypal-server-sdk: an order per payment, approved by the payer
 * on PayPal's page, captured when the dialog says approved (or by the capture webhook). PayPal has
 * no saved method here, so a plan paid with PayPal is paid per period: at its billing date it
 * becomes past_due until the user subscribes again.
 */
export class PaypalProvider implements PaymentProvider {
  readonly name = 'paypal' as const;
  private readonly client: Client;
  private readonly orders: OrdersController;
  private readonly payments: PaymentsController;
  private readonly base: string;

  constructor(private readonly o: PaypalOptions) {
    const real = REAL[o.env];
    this.base = o.apiUrl ?? real;
    this.client = new Client({
      clientCredentialsAuthCredentials: { oAuthClientId: o.clientId, oAuthClientSecret: o.clientSecret },
      environment: o.env === 'live' ? Environment.Production : Environment.Sandbox,
      timeout: 20_000,
      ...(o.apiUrl ? { unstable_httpClientOptions: { adapter: redirectingAdapter(real, o.apiUrl) } } : {}),
    });
    this.orders = new OrdersController(this.client);
    this.payments = new PaymentsController(this.client);
  }

  async create(input: { userId: string; item: PricedItem }): Promise<CreatedPayment> {
    const { item } = input;
    const { result } = await this.orders.createOrder({
      body: {
        intent: CheckoutPaymentIntent.Capture,
        purchaseUnits: [
          {
            referenceId: item.itemId,
            customId: customId(input.userId, item),
            description: `Reelsmith: ${item.name}`,
            amount: { currencyCode: 'USD', value: (item.amountCents / 100).toFixed(2) },
          },
        ],
        paymentSource: {
          paypal: {
            experienceContext: {
              brandName: 'Reelsmith',
              userAction: PaypalExperienceUserAction.PayNow,
              shippingPreference: PaypalWalletContextShippingPreference.NoShipping,
              returnUrl: `${this.o.publicUrl}/pricing?paypal=approved`,
              cancelUrl: `${this.o.publicUrl}/pricing?paypal=cancelled`,
            },
          },
        },
      },
    });
    const approve = result.links?.find((l) => l.rel === 'payer-action' || l.rel === 'approve')?.href ?? '';
    if (!result.id) throw new DomainError(ErrorCode.INTERNAL, 'PayPal returned an order without an id');
    return { id: result.id, clientSecret: result.id, approvalUrl: approve };
  }

  async confirm(p: PaymentRecord, d: ConfirmDetails): Promise<Outcome> {
    if (d.paypalAction === 'cancel') return { status: 'failed', message: DECLINE_MESSAGES.paypalCanceled };
    try {
      const { result } = await this.orders.captureOrder({ id: p.id, paypalRequestId: `capture-${p.id}` });
      return this.outcomeOf(result);
    } catch (e) {
      // Captured already (another confirm, or the webhook): the order says how it ended.
      if (e instanceof ApiError && e.statusCode === 422) return this.outcomeOf((await this.orders.getOrder({ id: p.id })).result);
      throw e;
    }
  }

  private outcomeOf(order: Order): Outcome {
    const capture = captureOf(order);
    if (order.status === 'COMPLETED' && capture?.status === 'COMPLETED') return { status: 'succeeded', ref: capture.id };
    if (capture?.status === 'DECLINED' || capture?.status === 'FAILED')
      return { status: 'failed', message: 'PayPal declined the payment.' };
    return { status: 'pending' };
  }

  async renew(): Promise<Outcome> {
    return { status: 'failed', message: 'Plans paid with PayPal are paid each period: subscribe again to renew.' };
  }

  async refund(p: PaymentRecord, amountCents: number): Promise<void> {
    if (!p.providerRef) throw new DomainError(ErrorCode.FAILED_PRECONDITION, 'This PayPal payment has no capture to refund');
    await this.payments.refundCapturedPayment({
      captureId: p.providerRef,
      paypalRequestId: `refund-${p.id}-${p.refundedCents + amountCents}`,
      body: { amount: { currencyCode: 'USD', value: (amountCents / 100).toFixed(2) } },
    });
  }

  /** Verified by PayPal itself (verify-webhook-signature with our webhook id), then reduced. */
  async parseWebhook(raw: Buffer, headers: Record<string, string>): Promise<ProviderEvent> {
    if (!this.o.webhookId) throw unverified('PAYPAL_WEBHOOK_ID is not set');
    const need = ['paypal-transmission-id', 'paypal-transmission-time', 'paypal-transmission-sig', 'paypal-cert-url', 'paypal-auth-algo'];
    for (const h of need) if (!headers[h]) throw unverified(`no ${h} header`);
    let event: Obj;
    try {
      event = JSON.parse(raw.toString('utf8')) as Obj;
    } catch {
      throw unverified('the body is not JSON');
    }
    const token = await this.client.clientCredentialsAuthManager.fetchToken();
    const res = await fetch(`${this.base}/v1/notifications/verify-webhook-signature`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token.accessToken}` },
      // PayPal verifies the event as it sent it: the raw bytes are spliced in, not re-serialised.
      body: `{"auth_algo":${JSON.stringify(headers['paypal-auth-algo'])},"cert_url":${JSON.stringify(headers['paypal-cert-url'])},"transmission_id":${JSON.stringify(headers['paypal-transmission-id'])},"transmission_sig":${JSON.stringify(headers['paypal-transmission-sig'])},"transmission_time":${JSON.stringify(headers['paypal-transmission-time'])},"webhook_id":${JSON.stringify(this.o.webhookId)},"webhook_event":${raw.toString('utf8')}}`,
    });
    if (!res.ok) throw new DomainError(ErrorCode.UNAVAILABLE, `PayPal signature check answered ${res.status}`);
    const verdict = (await res.json()) as { verification_status?: string };
    if (verdict.verification_status !== 'SUCCESS') throw unverified(`PayPal says ${verdict.verification_status ?? 'nothing'}`);
    return mapPaypalEvent(event);
  }
}

/** Reduces a verified PayPal event to what the product reacts to. */
export function mapPaypalEvent(e: Obj): ProviderEvent {
  const base = { id: s(e, 'id'), type: s(e, 'event_type') };
  const r = at(e, 'resource');
  const orderId = s(r, 'supplementary_data.related_ids.order_id');
  switch (base.type) {
    case 'PAYMENT.CAPTURE.COMPLETED': {
      const seed = orderId ? fromCustomId(s(r, 'custom_id'), orderId, cents(s(r, 'amount.value')), s(r, 'id')) : null;
      return seed ? { ...base, kind: 'payment_succeeded', payment: seed } : { ...base, kind: 'ignored' };
    }
    case 'PAYMENT.CAPTURE.DENIED':
    case 'PAYMENT.CAPTURE.DECLINED':
      return orderId
        ? { ...base, kind: 'payment_failed', paymentId: orderId, message: 'PayPal declined the payment.' }
        : { ...base, kind: 'ignored' };
    case 'PAYMENT.CAPTURE.REFUNDED': {
      const links = at(r, 'links');
      const up = Array.isArray(links) ? (links as Obj[]).find((l) => l.rel === 'up') : undefined;
      const captureId = /\/captures\/([^/]+)$/.exec(s(up, 'href'))?.[1] ?? '';
      const total = s(r, 'seller_payable_breakdown.total_refunded_amount.value') || s(r, 'amount.value');
      return captureId
        ? { ...base, kind: 'refunded', paymentId: captureId, refundedCentsTotal: cents(total) }
        : { ...base, kind: 'ignored' };
    }
    default:
      return { ...base, kind: 'ignored' };
  }
}
