/**
 * A local stand-in for the PayPal endpoints billing calls: OAuth, Orders v2 (create, get, capture),
 * refunds and verify-webhook-signature. Used by billing's own PayPal test and by the gateway's
 * webhook test (test/medium/payments-paypal-webhooks.spec.ts); each says what a valid webhook
 * signature is with `verifies`, which sees the request's exact bytes and their parsed form.
 */
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

type Obj = Record<string, unknown>;

export class PaypalStandIn {
  server = http.createServer((req, res) => void this.handle(req, res));
  orders = new Map<string, Obj & { approved: boolean; captured: boolean }>();
  refunds: Obj[] = [];
  /** The bodies of the verify-webhook-signature calls, in order. */
  verified: Obj[] = [];
  /** Their answers, SUCCESS or FAILURE, in order. */
  verifications: string[] = [];
  captures = 0;
  url = '';
  constructor(private readonly verifies: (raw: string, body: Obj) => boolean) {}
  async start() {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }
  private view(o: Obj & { approved: boolean; captured: boolean }) {
    const { approved, captured, ...rest } = o;
    void approved;
    const unit = (rest.purchase_units as Obj[])[0]!;
    return {
      ...rest,
      status: captured ? 'COMPLETED' : approved ? 'APPROVED' : 'PAYER_ACTION_REQUIRED',
      purchase_units: [
        captured
          ? { ...unit, payments: { captures: [{ id: `CAP-${rest.id as string}`, status: 'COMPLETED', amount: unit.amount }] } }
          : unit,
      ],
    };
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
      const o = {
        id,
        intent: b.intent,
        purchase_units: b.purchase_units,
        links: [{ rel: 'payer-action', href: `https://www.sandbox.paypal.com/checkoutnow?token=${id}`, method: 'GET' }],
        approved: false,
        captured: false,
      };
      this.orders.set(id, o);
      return send(200, this.view(o));
    }
    const capture = /^\/v2\/checkout\/orders\/([^/]+)\/capture$/.exec(p);
    if (capture) {
      const o = this.orders.get(capture[1]!);
      if (!o) return send(404, { name: 'RESOURCE_NOT_FOUND' });
      if (!o.approved) return send(422, { name: 'UNPROCESSABLE_ENTITY', details: [{ issue: 'ORDER_NOT_APPROVED' }] });
      if (o.captured) return send(422, { name: 'UNPROCESSABLE_ENTITY', details: [{ issue: 'ORDER_ALREADY_CAPTURED' }] });
      o.captured = true;
      this.captures++;
      return send(201, this.view(o));
    }
    const get = /^\/v2\/checkout\/orders\/([^/]+)$/.exec(p);
    if (get) return this.orders.has(get[1]!) ? send(200, this.view(this.orders.get(get[1]!)!)) : send(404, { name: 'RESOURCE_NOT_FOUND' });
    const refund = /^\/v2\/payments\/captures\/([^/]+)\/refund$/.exec(p);
    if (refund) {
      this.refunds.push({ capture: refund[1], ...(JSON.parse(body || '{}') as Obj) });
      return send(201, { id: `REF-${this.refunds.length}`, status: 'COMPLETED' });
    }
    if (p === '/v1/notifications/verify-webhook-signature') {
      const b = JSON.parse(body) as Obj;
      const ok = this.verifies(body, b);
      this.verified.push(b);
      this.verifications.push(ok ? 'SUCCESS' : 'FAILURE');
      return send(200, { verification_status: ok ? 'SUCCESS' : 'FAILURE' });
    }
    return send(404, { name: 'NOT_FOUND', message: `stand-in has no ${req.method} ${p}` });
  }
}
