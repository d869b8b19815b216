import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { createMetrics, type RunningService } from '@reelsmith/kit';
import { TEST_NATS_URL, natsPrefix, quietLogger, tempDir, waitFor, type TestDatabase } from '@reelsmith/kit/testing';
import { wire as wireIdentity } from '../../services/identity/src/app';
import { configSchema as identitySchema } from '../../services/identity/src/config';
import { wire as wireBilling } from '../../services/billing/src/app';
import { configSchema as billingSchema } from '../../services/billing/src/config';
import type { Peers } from '../../services/gateway/src/repositories/clients';
import { buildHttpApp } from '../../services/gateway/src/transport/http/server';
import { decodeQuotedPrintable, gatewayPeers, healthyReport, listenLocal, startService } from '../support/in-process';

type Body = Record<string, unknown> & { user?: Record<string, unknown> & { subscription: Record<string, unknown> } };

describe('payments over HTTP with the sandbox provider: gateway + identity + billing on PostgreSQL', () => {
  const dbs: TestDatabase[] = [];
  const services: RunningService[] = [];
  const data = tempDir('payments-http');
  const mailDir = path.join(data.dir, 'mail');
  let app: FastifyInstance;
  let peers: Peers;
  let base: string;
  let token = '';
  const email = `payer.${Date.now()}@example.com`;

  const mails = () => (fs.existsSync(mailDir) ? fs.readdirSync(mailDir).map((f) => fs.readFileSync(path.join(mailDir, f), 'utf8')) : []);
  const call = (method: string, route: string, body?: unknown, auth = token) =>
    fetch(`${base}${route}`, {
      method,
      headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...(auth ? { authorization: `Bearer ${auth}` } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    }).then(async (r) => ({ status: r.status, body: (await r.json().catch(() => null)) as Body }));

  beforeAll(async () => {
    const common = { DATA_DIR: data.dir, NATS_URL: TEST_NATS_URL, NATS_PREFIX: natsPrefix(), LOG_LEVEL: 'silent' };
    const identity = await startService({
      name: 'identity',
      schema: identitySchema,
      wire: wireIdentity,
      env: { ...common, TOKEN_SECRET: 'test-token-secret-0123456789abcdef' },
      outbox: true,
    });
    const billing = await startService({ name: 'billing', schema: billingSchema, wire: wireBilling, env: common, outbox: true });
    for (const s of [identity, billing]) {
      services.push(s.running);
      dbs.push(s.db);
    }
    peers = gatewayPeers({ identity: identity.address, billing: billing.address });
    app = await buildHttpApp({ log: quietLogger(), metrics: createMetrics('gateway'), webDist: data.dir, health: healthyReport, peers });
    base = `${await listenLocal(app)}/api/v1`;
    // A verified user, by the code identity wrote to DATA_DIR/mail.
    expect((await call('POST', '/auth/register', { email, password: 'correct horse' }, '')).status).toBe(201);
    const code = await waitFor(
      () =>
        mails()
          .map((m) => /verification code is (\d{6})/.exec(decodeQuotedPrintable(m))?.[1])
          .find(Boolean) ?? null,
      10_000,
    );
    const v = await call('POST', '/auth/verify-email', { email, code }, '');
    token = v.body.session_token as string;
  }, 60_000);

  afterAll(async () => {
    await app?.close();
    peers?.close();
    for (const s of services) await s.stop();
    for (const d of dbs) await d.drop();
    data.remove();
  });

  const VISA = { test_card: '4242 4242 4242 4242', test_expiry: '12/34', test_cvc: '123' };

  it('says the provider is the sandbox; paying needs a session', async () => {
    expect(await call('GET', '/payments/config', undefined, '')).toEqual({
      status: 200,
      body: { card_provider: 'sandbox', paypal_provider: 'sandbox', stripe_publishable_key: '' },
    });
    const anon = await call('POST', '/payments/create-intent', { type: 'credits', item_id: 'credits_200', amount: 1000 }, '');
    expect(anon.status).toBe(401);
    // Without Stripe configured, no Stripe webhook can be verified.
    const hook = await fetch(`${base}/payments/webhooks/stripe`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"id":"evt_1"}',
    });
    expect(hook.status).toBe(400);
  });

  it('buys a pack: wrong amount 400, declined card 402 with the message, test card 200 with the new balance, a receipt and a history line', async () => {
    expect(
      (
        await call('POST', '/payments/create-intent', {
          type: 'credits',
          item_id: 'credits_1000',
          amount: 100,
          currency: 'usd',
          payment_method: 'card',
        })
      ).status,
    ).toBe(400);
    const intent = await call('POST', '/payments/create-intent', {
      type: 'credits',
      item_id: 'credits_1000',
      amount: 4000,
      currency: 'usd',
      payment_method: 'card',
    });
    expect(intent).toMatchObject({ status: 200, body: { provider: 'sandbox', payment_intent_id: expect.stringMatching(/^sbx_pi_/) } });
    const id = intent.body.payment_intent_id as string;
    expect((await call('GET', '/auth/me')).body.user!.credits).toBe(0);

    const declined = await call('POST', '/payments/confirm', { payment_intent_id: id, ...VISA, test_card: '4000000000000002' });
    expect(declined).toEqual({ status: 402, body: { detail: 'Your card was declined.', code: 'payment_declined' } });
    expect((await call('GET', '/auth/me')).body.user!.credits).toBe(0);

    const ok = await call('POST', '/payments/confirm', { payment_intent_id: id, type: 'credits', item: { id: 'credits_1000' }, ...VISA });
    expect(ok.status).toBe(200);
    expect(ok.body.user!.credits).toBe(1000);
    expect(ok.body.payment).toMatchObject({ item: '1,000 credits', amount: 40, credits: 1000, provider: 'sandbox', status: 'succeeded' });
    expect((await call('POST', '/payments/confirm', { payment_intent_id: id, ...VISA })).body.user!.credits).toBe(1000);

    const receipt = await waitFor(() => mails().find((m) => m.includes('Your Reelsmith receipt')) ?? null, 5000);
    expect(decodeQuotedPrintable(receipt)).toMatch(/Credits: 1,000/);
    const history = await call('GET', '/billing/history');
    expect(history.body.payments).toEqual([
      expect.objectContaining({
        item: '1,000 credits',
        amount: 40,
        credits: 1000,
        provider: 'sandbox',
        status: 'succeeded',
        date: expect.any(String),
      }),
    ]);
  });

  it('/auth/purchase-credits and /auth/upgrade-subscription start the same flow and grant nothing by themselves', async () => {
    expect((await call('POST', '/auth/purchase-credits', { amount: 15 })).status).toBe(400);
    const pack = await call('POST', '/auth/purchase-credits', { amount: 10 });
    expect(pack).toMatchObject({ status: 200, body: { provider: 'sandbox' } });
    const before = (await call('GET', '/auth/me')).body.user!.credits as number;
    const up = await call('POST', '/auth/upgrade-subscription', { plan: 'standard', billing_cycle: 'monthly' });
    expect(up.status).toBe(200);
    expect((await call('GET', '/auth/me')).body.user).toMatchObject({ credits: before, subscription: { plan: 'free' } });

    await call('POST', '/payments/confirm', { payment_intent_id: pack.body.payment_intent_id, ...VISA });
    const sub = await call('POST', '/payments/confirm', { payment_intent_id: up.body.payment_intent_id, ...VISA });
    expect(sub.body.user).toMatchObject({
      credits: before + 200 + 400,
      subscription: {
        plan: 'standard',
        status: 'active',
        billing_cycle: 'monthly',
        next_billing: expect.any(String),
        cancel_at_period_end: false,
      },
      entitlements: expect.objectContaining({ subscribed: true }),
    });
    expect((await call('POST', '/auth/upgrade-subscription', { plan: 'standard', billing_cycle: 'monthly' })).status).toBe(409);

    const cancelled = await call('POST', '/billing/subscription/cancel');
    expect(cancelled.body.user!.subscription).toMatchObject({ plan: 'standard', status: 'active', cancel_at_period_end: true });
  });

  it('the sandbox PayPal step: cancel is 402 and grants nothing, approve grants', async () => {
    const before = (await call('GET', '/auth/me')).body.user!.credits as number;
    const intent = await call('POST', '/payments/create-intent', {
      type: 'credits',
      item_id: 'credits_400',
      amount: 2000,
      payment_method: 'paypal',
    });
    const cancel = await call('POST', '/payments/confirm', { payment_intent_id: intent.body.payment_intent_id, paypal_action: 'cancel' });
    expect(cancel).toEqual({ status: 402, body: { detail: 'The PayPal payment was cancelled.', code: 'payment_declined' } });
    const approve = await call('POST', '/payments/confirm', { payment_intent_id: intent.body.payment_intent_id, paypal_action: 'approve' });
    expect(approve.body.user!.credits).toBe(before + 400);
    expect(approve.body.payment).toMatchObject({ payment_method: 'paypal' });
  });
});
