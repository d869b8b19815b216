/** The payment objects of the REST API (payments, billing and account routes share them). */
import type { billing } from '@reelsmith/proto';
import { z } from 'zod';
import type { StartedPayment } from '../../domain/checkout.js';
import { identifier } from './input-text.js';

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
    item_id: identifier(40, 'item_id'),
    amount: z.number().int().positive().describe('The price in cents (price times 100); must equal the catalogue price'),
    currency: z.literal('usd').default('usd'),
    payment_method: z.enum(['card', 'paypal']).default('card'),
    billing_cycle: z.enum(['monthly', 'yearly']).optional(),
  })
  .strict()
  .meta({ id: 'CreateIntentRequest' });

/** A started payment as the API answers it. */
export const toPaymentIntent = (r: StartedPayment): z.infer<typeof paymentIntent> => ({
  client_secret: r.clientSecret,
  payment_intent_id: r.paymentIntentId,
  provider: r.provider as 'sandbox',
  publishable_key: r.publishableKey,
  approval_url: r.approvalUrl,
});
