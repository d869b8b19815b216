import { DomainError, ErrorCode, isDomainError } from '@reelsmith/kit';
import { plainText, type billing } from '@reelsmith/proto';
import type { FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Peers } from '../../repositories/clients.js';
import { RATE_LIMITS } from './security.js';
import { callerOf, type Caller } from './auth.js';
import { toHttp } from './errors.js';
import { errors, user } from './schemas.js';
import { userBody } from './user.view.js';

export const paymentIntent = z
  .object({
    client_secret: z.string(),
    payment_intent_id: z.string(),
    provider: z.enum(['sandbox', 'stripe', 'paypal']).describe('sandbox is test mode: no real money moves'),
    publishable_key: z.string().describe("Stripe's publishable key when the provider is stripe"),
    approval_url: z.string().describe("PayPal's approval page when the provider is paypal"),
  })
  .meta({ id: 'PaymentIntent' });

export const paymentRecord = z
  .object({
    id: z.string(),
    date: z.string().describe('ISO 8601'),
    type: z.enum(['credits', 'subscription', 'renewal']),
    item_id: z.string(),
    item: z.string(),
    amount: z.number().describe('US dollars'),
    currency: z.string(),
    credits: z.number().int(),
    provider: z.string(),
    payment_method: z.string(),
    status: z.enum(['pending', 'succeeded', 'failed', 'refunded']),
    failure_message: z.string(),
    billing_cycle: z.string().nullable(),
    refunded_credits: z.number().int(),
    refunded_amount: z.number(),
  })
  .meta({ id: 'PaymentRecord' });

export const toPaymentRecord = (p: billing.Payment): z.infer<typeof paymentRecord> => ({
  id: p.id,
  date: new Date(Number(p.createdUnixMs)).toISOString(),
  type: p.type as 'credits',
  item_id: p.itemId,
  item: p.itemName,
  amount: Number(p.amountCents) / 100,
  currency: p.currency,
  credits: Number(p.credits),
  provider: p.provider,
  payment_method: p.paymentMethod,
  status: p.status as 'succeeded',
  failure_message: p.failureMessage,
  billing_cycle: p.billingCycle || null,
  refunded_credits: Number(p.refundedCredits),
  refunded_amount: Number(p.refundedCents) / 100,
});

export const createIntentBody = z
  .object({
    type: z.enum(['credits', 'subscription']),
    item_id: plainText(40, 'item_id'),
    amount: z.number().int().positive().describe('The price in cents (price times 100); must equal the catalogue price'),
    currency: z.literal('usd').default('usd'),
    payment_method: z.enum(['card', 'paypal']).default('card'),
    billing_cycle: z.enum(['monthly', 'yearly']).optional(),
  })
  .strict()
  .meta({ id: 'CreateIntentRequest' });

const noGuestPurchases = (c: Caller) => {
  if (c.isGuest)
    throw new DomainError(ErrorCode.PERMISSION_DENIED, 'The guest pass cannot make purchases. Sign up to buy credits.', 'guest');
};

/** Starts a payment in billing (which checks the amount against the catalogue). Grants nothing. */
export async function startPayment(peers: Peers, c: Caller, body: z.infer<typeof createIntentBody>, requestId: string) {
  noGuestPurchases(c);
  const r = await peers.billing.createPayment(
    {
      userId: c.id,
      email: c.email,
      type: body.type,
      itemId: body.item_id,
      amountCents: BigInt(body.amount),
      currency: body.currency,
      paymentMethod: body.payment_method,
      billingCycle: body.billing_cycle ?? '',
    },
    { requestId },
  );
  return {
    client_secret: r.clientSecret,
    payment_intent_id: r.paymentIntentId,
    provider: r.provider as 'sandbox',
    publishable_key: r.publishableKey,
    approval_url: r.approvalUrl,
  };
}

/** A declined payment is 402 with the decline message in `detail`. */
const declined = (e: unknown, reply: FastifyReply) => {
  if (isDomainError(e) && e.reason === 'payment_declined') return reply.status(402).send(toHttp(e).body);
  throw e;
};

/**
 * POST /payments/create-intent, /payments/confirm, /payments/refund (admin); GET /payments/config;
 * and the providers' webhooks, verified in billing on the exact bytes received.
 */
export const paymentsRoutes: FastifyPluginAsyncZod<{ peers: Peers }> = async (app, { peers }) => {
  app.get(
    '/payments/config',
    {
      schema: {
        summary: 'Which providers take payments: sandbox (test mode, no real money moves), stripe or paypal',
        response: {
          200: z
            .object({
              card_provider: z.enum(['sandbox', 'stripe']),
              paypal_provider: z.enum(['sandbox', 'paypal']),
              stripe_publishable_key: z.string(),
            })
            .meta({ id: 'PaymentConfig' }),
        },
      },
    },
    async (req) => {
      const c = await peers.billing.getPaymentConfig({}, { requestId: req.id });
      return {
        card_provider: c.cardProvider as 'sandbox',
        paypal_provider: c.paypalProvider as 'sandbox',
        stripe_publishable_key: c.stripePublishableKey,
      };
    },
  );

  app.post(
    '/payments/create-intent',
    {
      config: { access: 'user', rateLimit: RATE_LIMITS.payments },
      schema: {
        summary: 'Start paying for a credit pack or a plan; the amount must be the catalogue price',
        body: createIntentBody,
        response: { 200: paymentIntent, ...errors(400, 401, 403, 409, 429) },
      },
    },
    async (req) => startPayment(peers, callerOf(req), req.body, req.id),
  );

  app.post(
    '/payments/confirm',
    {
      config: { access: 'user', rateLimit: RATE_LIMITS.payments },
      schema: {
        summary: 'Confirm a payment: credits are granted once per payment, however often this is called',
        body: z
          .object({
            payment_intent_id: plainText(200, 'payment_intent_id'),
            type: z.enum(['credits', 'subscription']).optional(),
            item: z.unknown().optional().describe('Ignored: the server knows what the payment is for'),
            test_card: plainText(30, 'test_card').optional().describe('Sandbox only: the test card number'),
            test_expiry: plainText(7, 'test_expiry').optional().describe('Sandbox only: MM/YY'),
            test_cvc: plainText(4, 'test_cvc').optional().describe('Sandbox only'),
            paypal_action: z.enum(['approve', 'cancel']).optional(),
          })
          .strict()
          .meta({ id: 'ConfirmPaymentRequest' }),
        response: {
          200: z.object({ payment: paymentRecord, user }).meta({ id: 'ConfirmPaymentReply' }),
          ...errors(400, 401, 402, 404, 409, 429),
        },
      },
    },
    async (req, reply) => {
      const c = callerOf(req);
      try {
        const r = await peers.billing.confirmPayment(
          {
            userId: c.id,
            paymentIntentId: req.body.payment_intent_id,
            testCard: req.body.test_card ?? '',
            testExpiry: req.body.test_expiry ?? '',
            testCvc: req.body.test_cvc ?? '',
            paypalAction: req.body.paypal_action ?? '',
          },
          { requestId: req.id },
        );
        // Credits or the plan changed: this replica's next GET /auth/me asks billing again.
        app.accountChanged(c.id);
        const { user: u } = await peers.identity.getUser({ userId: c.id }, { requestId: req.id });
        return { payment: toPaymentRecord(r.payment!), user: await userBody(peers, u!, req.id) };
      } catch (e) {
        return declined(e, reply);
      }
    },
  );

  app.post(
    '/payments/refund',
    {
      config: { access: 'admin' },
      schema: {
        summary: 'Refund a payment (admins): the provider pays back, unspent credits are taken back',
        body: z
          .object({
            payment_intent_id: plainText(200, 'payment_intent_id'),
            amount: z.number().int().positive().optional().describe('Cents; all that is left when absent'),
          })
          .strict(),
        response: { 200: paymentRecord, ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (req) =>
      toPaymentRecord(
        await peers.billing.refund(
          { paymentId: req.body.payment_intent_id, amountCents: BigInt(req.body.amount ?? 0) },
          { requestId: req.id },
        ),
      ),
  );

  // Webhooks: their own scope, where JSON bodies are kept as the exact bytes received (signatures
  // are computed over them); everywhere else the gateway's JSON parser is unchanged.
  await app.register(async (hooks) => {
    hooks.removeContentTypeParser('application/json');
    hooks.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
    for (const provider of ['stripe', 'paypal'] as const)
      hooks.post(
        `/payments/webhooks/${provider}`,
        {
          schema: {
            summary: `${provider === 'stripe' ? 'Stripe' : 'PayPal'} webhook; 400 and no change when its signature does not verify`,
            response: { 200: z.object({ received: z.boolean(), processed: z.boolean() }), ...errors(400) },
          },
        },
        async (req) => {
          if (!Buffer.isBuffer(req.body)) throw new DomainError(ErrorCode.INVALID_ARGUMENT, 'Expected a JSON body', 'webhook_unverified');
          const headers: Record<string, string> = {};
          for (const [k, v] of Object.entries(req.headers))
            if (typeof v === 'string' && (k.startsWith('stripe-') || k.startsWith('paypal-'))) headers[k] = v;
          const r = await peers.billing.handleWebhook({ provider, payload: req.body, headers }, { requestId: req.id });
          return { received: true, processed: r.processed };
        },
      );
  });
};
