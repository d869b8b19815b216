/**
 * PayPal webhook events as PayPal sends them, for the tests that deliver them: the capture of a
 * 400-credit pack order ($20.00) and a refund of half of it ($10.00). Used by billing's own PayPal
 * test and by the gateway's webhook test (test/medium/payments-paypal-webhooks.spec.ts).
 */
import crypto from 'node:crypto';

export function paypalCaptureEvents(userId: string, orderId: string) {
  const completed = {
    id: `WH-${crypto.randomUUID()}`,
    event_type: 'PAYMENT.CAPTURE.COMPLETED',
    resource: {
      id: `CAP-${orderId}`,
      status: 'COMPLETED',
      amount: { currency_code: 'USD', value: '20.00' },
      custom_id: `${userId}|credits|credits_400|`,
      supplementary_data: { related_ids: { order_id: orderId } },
    },
  };
  const refunded = {
    id: `WH-${crypto.randomUUID()}`,
    event_type: 'PAYMENT.CAPTURE.REFUNDED',
    resource: {
      id: `REF-${orderId}`,
      amount: { currency_code: 'USD', value: '10.00' },
      seller_payable_breakdown: { total_refunded_amount: { currency_code: 'USD', value: '10.00' } },
      links: [{ rel: 'up', href: `https://api.sandbox.paypal.com/v2/payments/captures/CAP-${orderId}` }],
    },
  };
  return { completed, refunded };
}
