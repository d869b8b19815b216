import { DomainError, ErrorCode, isDomainError } from '@reelsmith/kit';
import { plainText } from '@reelsmith/proto';
import type { FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Peers } from '../../repositories/clients.js';
import { RATE_LIMITS } from './security.js';
import type { Checkout } from '../../domain/checkout.js';
import { callerOf } from './auth.js';
import { identifier } from './input-text.js';
import { toHttp } from './errors.js';
import { createIntentBody, paymentIntent, paymentRecord, toPaymentIntent, toPaymentRecord } from './payments.schemas.js';
import { errors, user } from './schemas.js';
import { userBody } from './user.view.js';

/** A declined payment is 402 with the decline message in `detail`. */
const declined = (e: unknown, reply: FastifyReply) => {
  if (isDomainError(e) && e.reason === 'payment_declined') return reply.status(402).send(toHttp(e).body);
  throw e;
};

/**
 * POST /payments/create-intent, /payments/confirm, /payments/refund (admin); GET /payments/config;
 * and the providers' webhooks, verified in billing on the exact bytes received.
 */
export const paymentsRoutes: FastifyPluginAsyncZod<{ peers: Peers; checkout: Checkout }> = async (app, { peers, checkout }) => {
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
    async (req) => {
      const b = req.body;
      const order = {
        type: b.type,
        itemId: b.item_id,
        amountCents: b.amount,
        currency: b.currency,
        paymentMethod: b.payment_method,
        billingCycle: b.billing_cycle,
      };
      return toPaymentIntent(await checkout.start(callerOf(req), order, req.id));
    },
  );

  app.post(
    '/payments/confirm',
    {
      config: { access: 'user', rateLimit: RATE_LIMITS.payments },
      schema: {
        summary: 'Confirm a payment: credits are granted once per payment, however often this is called',
        body: z
          .object({
            payment_intent_id: identifier(200, 'payment_intent_id'),
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
            payment_intent_id: identifier(200, 'payment_intent_id'),
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
          config: {
            documentedBody: {
              contentType: 'application/json',
              description: `The event as ${provider === 'stripe' ? 'Stripe' : 'PayPal'} sends it, verified by its signature headers on the exact bytes`,
              schema: { type: 'object' },
            },
          },
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
