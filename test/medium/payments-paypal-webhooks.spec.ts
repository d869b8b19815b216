import crypto from 'node:crypto';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { createMetrics, parseConfig, runService, type RunningService } from '@reelsmith/kit';
import { TEST_NATS_URL, createTestDatabase, natsPrefix, quietLogger, tempDir, type TestDatabase } from '@reelsmith/kit/testing';
import { wire as wireBilling } from '../../services/billing/src/app';
import { configSchema as billingSchema } from '../../services/billing/src/config';
import { dialPeers, type Peers } from '../../services/gateway/src/repositories/clients';
import { buildHttpApp } from '../../services/gateway/src/transport/http/server';
import { paypalCaptureEvents } from '../../services/billing/test/paypal-events';

type Obj = Record<string, unknown>;
const WEBHOOK_ID = 'WH-gateway-standin';
const SIGNING_KEY = 'paypal-standin-signing-key';

/** PayPal's transmission signature, as the stand-in makes and checks it: over the exact bytes sent. */
const sign = (transmissionId: string, time: string, raw: string) =>
  crypto.createHmac('sha256', SIGNING_KEY).update(`${transmissionId}|${time}|${WEBHOOK_ID}|${raw}`).digest('base64');

/**
 * The PayPal endpoints billing calls for a webhook and an order: OAuth, Orders v2 (create), and
 * verify-webhook-signature, which says SUCCESS only when the signature matches the event's bytes
 * exactly as billing forwards them (so a gateway that re-serialised the body would fail).
 */
class PaypalStandIn {
  server = http.createServer((req, res) => void this.handle(req, res));
  verifications: string[] = [];
  url = '';
  async start() {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }
  private async handle(req: http.IncomingMessage, res: http.ServerResponse) {
    let body = '';
    for await (const c of req) body += String(c);
    const send = (status: number, o: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(o));
    };
    const p = (req.url ?? '').split('?')[0]!;
    if (p === '/v1/oauth2/token') return send(200, { access_token: 'A21-standin', token_type: 'Bearer', expires_in: 32400, scope: '' });
    if (req.headers.authorization !== 'Bearer A21-standin') return send(401, { error: 'invalid_token' });
    if (p === '/v2/checkout/orders' && req.method === 'POST') {
      const b = JSON.parse(body) as Obj;
      const id = `ORDER${crypto.randomBytes(5).toString('hex').toUpperCase()}`;
      return send(200, {
        id,
        intent: b.intent,
        status: 'PAYER_ACTION_REQUIRED',
        purchase_units: b.purchase_units,
        links: [{ rel: 'payer-action', href: `https://www.sandbox.paypal.com/checkoutnow?token=${id}`, method: 'GET' }],
      });
    }
    if (p === '/v1/notifications/verify-webhook-signature') {
      const marker = '"webhook_event":';
      const raw = body.slice(body.indexOf(marker) + marker.length, -1);
      const b = JSON.parse(body) as Obj;
      const ok = b.webhook_id === WEBHOOK_ID && b.transmission_sig === sign(String(b.transmission_id), String(b.transmission_time), raw);
      this.verifications.push(ok ? 'SUCCESS' : 'FAILURE');
      return send(200, { verification_status: ok ? 'SUCCESS' : 'FAILURE' });
    }
    return send(404, { name: 'NOT_FOUND', message: `stand-in has no ${req.method} ${p}` });
  }
}

describe('PayPal webhooks through the gateway: verified against a PayPal stand-in, billing on PostgreSQL', () => {
  const standIn = new PaypalStandIn();
  const data = tempDir('paypal-webhooks');
  let db: TestDatabase;
  let billing: RunningService;
  let peers: Peers;
  let app: FastifyInstance;
  let base: string;

  beforeAll(async () => {
    await standIn.start();
    db = await createTestDatabase('billing_paypal_hooks');
    const config = parseConfig(billingSchema, {
      DATA_DIR: data.dir,
      NATS_URL: TEST_NATS_URL,
      NATS_PREFIX: natsPrefix(),
      DATABASE_URL: db.url,
      LOG_LEVEL: 'silent',
      PAYPAL_CLIENT_ID: 'client',
      PAYPAL_CLIENT_SECRET: 'secret',
      PAYPAL_WEBHOOK_ID: WEBHOOK_ID,
      PAYPAL_API_URL: standIn.url,
    });
    billing = await runService(
      {
        name: 'billing',
        config,
        migrationsDir: path.join(__dirname, '..', '..', 'services', 'billing', 'migrations'),
        outbox: true,
        wire: wireBilling,
      },
      { handleSignals: false, log: quietLogger() },
    );
    peers = dialPeers(
      {
        billing: `127.0.0.1:${billing.grpcPort}`,
        identity: '127.0.0.1:1',
        'media-library': '127.0.0.1:1',
        'assembly-orchestrator': '127.0.0.1:1',
      },
      10_000,
      createMetrics('gw'),
    );
    app = await buildHttpApp({
      log: quietLogger(),
      metrics: createMetrics('gateway'),
      webDist: data.dir,
      health: { report: async () => ({ status: 'healthy', services: {}, unavailable: [], instance: 't' }) },
      peers,
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/api/v1`;
  }, 60_000);

  afterAll(async () => {
    await app?.close();
    peers?.close();
    await billing?.stop();
    await db?.drop();
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
