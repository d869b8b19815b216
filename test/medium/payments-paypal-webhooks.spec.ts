import crypto from 'node:crypto';
import { tempDir } from '@reelsmith/kit/testing';
import type { Peers } from '../../services/gateway/src/repositories/clients';
import { paypalCaptureEvents } from '../../services/billing/test/paypal-events';
import { PaypalStandIn } from '../../services/billing/test/paypal-standin';
import { startBillingGateway, type BillingGateway } from '../support/billing-gateway';

type Obj = Record<string, unknown>;
const WEBHOOK_ID = 'WH-gateway-standin';
const SIGNING_KEY = 'paypal-standin-signing-key';

/** PayPal's transmission signature, as the stand-in makes and checks it: over the exact bytes sent. */
const sign = (transmissionId: string, time: string, raw: string) =>
  crypto.createHmac('sha256', SIGNING_KEY).update(`${transmissionId}|${time}|${WEBHOOK_ID}|${raw}`).digest('base64');

describe('PayPal webhooks through the gateway: verified against a PayPal stand-in, billing on PostgreSQL', () => {
  /**
   * PayPal's verify-webhook-signature says SUCCESS only when the signature matches the event's bytes
   * exactly as billing forwards them (so a gateway that re-serialised the body would fail).
   */
  const standIn = new PaypalStandIn((body, b) => {
    const marker = '"webhook_event":';
    const raw = body.slice(body.indexOf(marker) + marker.length, -1);
    return b.webhook_id === WEBHOOK_ID && b.transmission_sig === sign(String(b.transmission_id), String(b.transmission_time), raw);
  });
  const data = tempDir('paypal-webhooks');
  let gw: BillingGateway;
  let peers: Peers;
  let base: string;

  beforeAll(async () => {
    await standIn.start();
    gw = await startBillingGateway('billing_paypal_hooks', data.dir, {
      PAYPAL_CLIENT_ID: 'client',
      PAYPAL_CLIENT_SECRET: 'secret',
      PAYPAL_WEBHOOK_ID: WEBHOOK_ID,
      PAYPAL_API_URL: standIn.url,
    });
    ({ peers, base } = gw);
  }, 60_000);

  afterAll(async () => {
    await gw?.stop();
    await new Promise((r) => standIn.server.close(r));
    data.remove();
  });

  const balance = async (userId: string) => Number((await peers.billing.getAccount({ userId })).account!.credits);
  /** One delivery as PayPal sends it: the event's bytes and headers signed over them (or a forged signature). */
  const deliver = (event: Obj, forged = false) => {
    const raw = JSON.stringify(event);
    const id = crypto.randomUUID();
    const time = new Date().toISOString();
    return fetch(`${base}/payments/webhooks/paypal`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'paypal-transmission-id': id,
        'paypal-transmission-time': time,
        'paypal-transmission-sig': forged ? sign(id, time, '{}') : sign(id, time, raw),
        'paypal-cert-url': 'https://api.sandbox.paypal.com/v1/notifications/certs/CERT',
        'paypal-auth-algo': 'SHA256withRSA',
      },
      body: raw,
    });
  };

  it('a capture and its refund, each delivered three times in shuffled order: credited once, refunded once', async () => {
    const userId = crypto.randomUUID();
    const order = await peers.billing.createPayment({
      userId,
      email: 'pp@example.com',
      type: 'credits',
      itemId: 'credits_400',
      amountCents: 2000n,
      currency: 'usd',
      paymentMethod: 'paypal',
      billingCycle: '',
    });
    const orderId = order.paymentIntentId;
    expect(order.provider).toBe('paypal');
    const { completed, refunded } = paypalCaptureEvents(userId, orderId);

    // A forged signature: 400, and nothing changes.
    const forged = await deliver(completed, true);
    expect(forged.status).toBe(400);
    expect(((await forged.json()) as Obj).code).toBe('webhook_unverified');
    expect(await balance(userId)).toBe(0);

    // The refund first, then everything three times in a shuffled order; PayPal retries what was not acknowledged.
    let pending: Obj[] = [refunded, ...[completed, completed, completed, refunded, refunded].sort(() => Math.random() - 0.5)];
    const statuses: number[] = [];
    for (let round = 0; pending.length && round < 5; round++) {
      const retry: Obj[] = [];
      for (const e of pending) {
        const res = await deliver(e);
        statuses.push(res.status);
        if (res.status !== 200) retry.push(e);
      }
      pending = retry;
    }
    expect(pending).toEqual([]);
    expect(standIn.verifications.filter((v) => v === 'SUCCESS').length).toBe(statuses.length);
    // 400 credits once, half of them taken back once.
    expect(await balance(userId)).toBe(200);
    const history = (await peers.billing.history({ userId })).payments;
    expect(history.map((p) => [p.id, p.status, Number(p.credits), Number(p.refundedCredits)])).toEqual([[orderId, 'succeeded', 400, 200]]);
    // Replayed again later: acknowledged, no effect.
    for (const e of [completed, refunded]) expect(await (await deliver(e)).json()).toEqual({ received: true, processed: false });
    expect(await balance(userId)).toBe(200);
  }, 60_000);
});
