/**
 * The OpenAPI document as the exact contract of the gateway (issue 42): integers bounded to what
 * their gRPC fields hold, the text rule on every request string, media types, request bodies and
 * statuses documented; and the answers the framework gives before any route (431) in our shape.
 */
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { ScalarType, type DescMessage } from '@bufbuild/protobuf';
import type { FastifyInstance } from 'fastify';
import { DomainError, ErrorCode, LocalObjectStore, createMetrics } from '@reelsmith/kit';
import { quietLogger, tempDir } from '@reelsmith/kit/testing';
import { billing } from '@reelsmith/proto';
import { SessionVerifier } from '../../src/domain/sessions';
import type { Peers } from '../../src/repositories/clients';
import { buildHttpApp } from '../../src/transport/http/server';
import { inputsOf, operationsOf, type Doc, type Operation, type Schema } from '../support/openapi';

const INT32 = { min: -(2 ** 31), max: 2 ** 31 - 1 };

/**
 * The integer inputs that travel as int64 on gRPC (bounded to what JSON numbers hold exactly),
 * each with the proto field it fills; every other integer input must fit an int32.
 */
const INT64_INPUTS: Record<string, [DescMessage, string]> = {
  'POST /api/v1/billing/estimate body(application/json).total_source_bytes': [billing.EstimateRequestSchema, 'total_source_bytes'],
  'POST /api/v1/payments/create-intent body(application/json).amount': [billing.CreatePaymentRequestSchema, 'amount_cents'],
  'POST /api/v1/payments/refund body(application/json).amount': [billing.RefundRequestSchema, 'amount_cents'],
};

/** Peers that answer "not found" to everything. */
function notFoundPeers(): Peers {
  const service = new Proxy(
    {},
    {
      get: () => async () => {
        throw new DomainError(ErrorCode.NOT_FOUND, 'Not found.', 'not_found');
      },
    },
  );
  return new Proxy({} as Peers, { get: (_t, name: string) => (name === 'close' ? () => undefined : service) });
}

describe('gateway: the OpenAPI document is the exact contract', () => {
  const objects = tempDir('gw-contract');
  const store = new LocalObjectStore({ root: objects.dir, signingSecret: 's'.repeat(32), publicUrl: 'http://localhost:8080' });
  let app: FastifyInstance;
  let base: string;
  let doc: Doc;
  let ops: Operation[];

  beforeAll(async () => {
    app = await buildHttpApp({
      log: quietLogger(),
      metrics: createMetrics('gateway_contract'),
      webDist: objects.dir,
      health: { report: async () => ({ status: 'healthy', services: {}, unavailable: [], instance: 'c' }) },
      peers: notFoundPeers(),
      sessions: new SessionVerifier(
        async () => ({
          id: '00000000-0000-4000-8000-000000000001',
          email: 'a@example.com',
          isAdmin: true,
          isGuest: false,
          unlimited: true,
        }),
        { maxEntries: 10, ttlMs: 60_000 },
      ),
      store,
      files: { store, signingSecret: 's'.repeat(32) },
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    doc = await (await fetch(`${base}/api/v1/openapi.json`)).json();
    ops = operationsOf(doc);
  });
  afterAll(async () => {
    await app.close();
    objects.remove();
  });

  const op = (method: string, url: string) => ops.find((o) => o.method === method && o.url === `/api/v1${url}`)!;

  it('bounds every integer a request sends to what its gRPC field holds', () => {
    const problems: string[] = [];
    let integers = 0;
    for (const o of ops)
      inputsOf(o, doc, (s: Schema, path) => {
        if (s.type !== 'integer' && !(Array.isArray(s.type) && s.type.includes('integer'))) return;
        integers++;
        const at = `${o.method} ${o.url} ${path}`;
        const min = s.minimum ?? (s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : undefined);
        const max = s.maximum ?? (s.exclusiveMaximum !== undefined ? s.exclusiveMaximum - 1 : undefined);
        if (min === undefined || max === undefined) return problems.push(`${at}: unbounded (${min}..${max})`);
        const wide = INT64_INPUTS[at];
        if (wide) {
          const field = wide[0].fields.find((f) => f.name === wide[1]);
          if (field?.fieldKind !== 'scalar' || field.scalar !== ScalarType.INT64) problems.push(`${at}: ${wide[1]} is not an int64`);
          if (min < -Number.MAX_SAFE_INTEGER || max > Number.MAX_SAFE_INTEGER) problems.push(`${at}: ${min}..${max} past 2^53`);
        } else if (min < INT32.min || max > INT32.max) problems.push(`${at}: ${min}..${max} does not fit an int32`);
      });
    expect(integers).toBeGreaterThan(25);
    expect(problems).toEqual([]);
  });

  it('answers 400, not 500, to integers past int32 on the list routes and the plan', async () => {
    const lists = ops.filter((o) => o.method === 'GET' && o.parameters.some((p) => p.in === 'query' && p.name === 'offset'));
    expect(lists.map((o) => o.url).sort()).toEqual(
      [
        '/admin/contact',
        '/admin/showcase',
        '/library',
        '/music-library',
        '/music-library-detailed',
        '/video-library',
        '/video-library-detailed',
      ].map((u) => `/api/v1${u}`),
    );
    const admin = { authorization: 'Bearer admin' };
    for (const o of lists) {
      const res = await fetch(`${base}${o.url}?offset=2147483648`, { headers: admin });
      expect([o.url, res.status]).toEqual([o.url, 400]);
      expect((await fetch(`${base}${o.url}?offset=2147483647`, { headers: admin })).status).toBeLessThan(500);
    }
    const detailed = await fetch(`${base}/api/v1/video-library-detailed?offset=2147483648`);
    expect(detailed.status).toBe(400);
    expect(await detailed.json()).toMatchObject({ code: 'invalid_request' });
    for (const body of [{ reroll: [2 ** 31] }, { locked: [2 ** 31] }, { reroll: [5000] }]) {
      const res = await fetch(`${base}/api/v1/jobs/plan`, {
        method: 'POST',
        headers: { ...admin, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect([body, res.status]).toEqual([body, 400]);
    }
    const plan = deref(op('POST', '/jobs/plan').body!['application/json']!);
    expect(plan.properties!['reroll']!.items).toMatchObject({ minimum: 0, maximum: 4999 });
    expect(plan.properties!['locked']!.items).toMatchObject({ minimum: 0, maximum: 4999 });
  });

  const deref = (s: Schema): Schema => (s.$ref ? doc.components.schemas[s.$ref.split('/').pop()!] : s);

  it('states the text rule on every request string (no control character, no lone surrogate)', () => {
    const loose: string[] = [];
    let strings = 0;
    for (const o of ops)
      inputsOf(o, doc, (s, path) => {
        if (s.type !== 'string' || s.enum || s.const !== undefined || s.contentMediaType) return;
        strings++;
        const patterns = [s.pattern, ...(s.allOf ?? []).map((a) => a.pattern)].filter((p): p is string => !!p);
        const refuses = (v: string) => patterns.some((p) => !new RegExp(p, 'u').test(v));
        if (!patterns.length || !refuses('a\u0000b') || !refuses('a\u001bb') || !refuses('a\ud800b') || !refuses('a\u0085b'))
          loose.push(`${o.method} ${o.url} ${path}`);
      });
    expect(strings).toBeGreaterThan(60);
    expect(loose).toEqual([]);
  });

  it('states the bounds the services enforce (a sample of those the fuzzer found looser)', () => {
    const me = op('PATCH', '/auth/me').body!['application/json']!;
    const name = deref(me).properties!['display_name']!;
    const namePatterns = JSON.stringify(name);
    const nameRule = new RegExp(JSON.parse(namePatterns.match(/"pattern":("(?:[^"\\]|\\.)*")/)![1]!), 'u');
    expect(nameRule.test('x'.repeat(40))).toBe(true);
    expect(nameRule.test(`  ${'x'.repeat(40)}  `)).toBe(true);
    expect(nameRule.test('x'.repeat(41))).toBe(false);
    expect(nameRule.test('   ')).toBe(false);
    const offer = deref(op('POST', '/admin/footage-marketplace/{id}/offer').body!['application/json']!);
    const cash = (offer.oneOf ?? offer.anyOf)!
      .map(deref)
      .find((b) => (b.properties!['type']!.enum ?? [b.properties!['type']!.const])[0] === 'cash')!;
    expect(cash.properties!['amount']).toMatchObject({ maximum: 1000, multipleOf: 0.01 });
    const contact = deref(op('POST', '/contact').body!['application/json']!);
    const email = JSON.stringify(contact.properties!['email']);
    expect(email).toContain('@');
    const register = deref(op('POST', '/auth/register').body!['application/json']!);
    expect(register.properties!['password']).toMatchObject({ minLength: 6, maxLength: 1024 });
    const job = deref(op('POST', '/jobs/assemble').body!['application/json']!);
    expect(deref(job.properties!['media_files']!).items).toMatchObject({ minLength: 1, maxLength: 600 });
  });

  it("answers a request the schema refuses for a service's rule with that service's detail and code", async () => {
    const post = async (url: string, body: unknown) => {
      const res = await fetch(`${base}/api/v1${url}`, {
        method: 'POST',
        headers: { authorization: 'Bearer admin', 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: res.status, body: await res.json() };
    };
    const cases: Array<[string, unknown, string, string]> = [
      ['/uploads/tempo', { key: 'k', action: 'tap', taps: [1, 1.5, 2] }, 'Tap at least 4 times along with the music.', 'too_few_taps'],
      ['/uploads/tempo', { key: 'k', action: 'tap' }, 'Send the times you tapped (taps, seconds into the track).', 'too_few_taps'],
      ['/uploads/tempo', { key: 'k', action: 'halve', taps: [1, 2, 3, 4] }, 'Only the tap action takes taps.', 'invalid_correction'],
      ['/auth/register', { email: 'a@example.com', password: '12345' }, 'Password must be at least 6 characters', 'password_too_short'],
      ['/auth/verify-email', { email: 'a@example.com' }, 'Email and code are required', 'code_required'],
      ['/auth/register', { email: 'not-an-email', password: '123456' }, 'Please enter a valid email address.', 'invalid_email'],
      [
        '/contact',
        { name: ' ', email: 'a@example.com', topic: 'Billing', message: 'long enough text' },
        'Please enter your name (up to 100 characters).',
        'invalid_name',
      ],
      [
        '/contact',
        { name: 'Ada', email: 'a@example.com', topic: 'Billing', message: '  short  ' },
        'Please write a message of 10 to 5000 characters.',
        'invalid_message',
      ],
    ];
    for (const [url, body, detail, code] of cases)
      expect([url, await post(url, body)]).toEqual([url, { status: 400, body: { detail, code } }]);
    // What the schema lets through reaches the service (here a stand-in's "not found").
    expect((await post('/uploads/tempo', { key: 'k', action: 'tap', taps: [1, 1.5, 2, 2.5] })).status).toBe(404);
    expect((await post('/uploads/tempo', { key: 'k', action: 'halve' })).status).toBe(404);
  });

  it('documents media answers with their media types, and bodies that are not JSON', () => {
    const mediaOf = (method: string, url: string, status = '200') => op(method, url).responses[status];
    expect(mediaOf('GET', '/showcase/{id}/video')).toEqual(['video/mp4']);
    expect(mediaOf('GET', '/showcase/{id}/video', '206')).toEqual(['video/mp4']);
    expect(mediaOf('GET', '/showcase/{id}/video', '302')).toEqual([]);
    expect(mediaOf('GET', '/showcase/{id}/thumbnail')).toEqual(['image/jpeg']);
    expect(mediaOf('GET', '/showcase/{id}/frames/{n}')).toEqual(['image/jpeg']);
    expect(mediaOf('GET', '/video-library/thumbnail/{key}')).toEqual(['image/jpeg']);
    expect(mediaOf('GET', '/video-library/frame/{key}/{n}')).toEqual(['image/jpeg']);
    expect(mediaOf('GET', '/video-library/file/{key}')).toContain('video/mp4');
    expect(mediaOf('GET', '/music-library/preview/{key}')).toContain('audio/mpeg');
    expect(mediaOf('GET', '/files/{*}')).toContain('video/mp4');
    expect(mediaOf('GET', '/admin/footage-marketplace/{id}/stream')).toContain('video/mp4');
    for (const o of ops)
      for (const [status, types] of Object.entries(o.responses)) if (+status >= 400) expect(types).toEqual(['application/json']);

    expect(Object.keys(op('POST', '/uploads/file').body!)).toEqual(['multipart/form-data']);
    expect(op('POST', '/uploads/file').body!['multipart/form-data']!.required).toEqual(['file']);
    expect(Object.keys(op('POST', '/admin/library').body!)).toEqual(['multipart/form-data']);
    expect(Object.keys(op('POST', '/payments/webhooks/stripe').body!)).toEqual(['application/json']);
    expect(Object.keys(op('POST', '/payments/webhooks/paypal').body!)).toEqual(['application/json']);
  });

  it('lists every status a route can answer: 400 and 414 with path parameters, 429 when rate limited, 5xx always', () => {
    const missing: string[] = [];
    for (const o of ops) {
      const has = (s: number) => String(s) in o.responses || missing.push(`${o.method} ${o.url} ${s}`);
      [500, 503, 504].forEach(has);
      if (o.url.includes('{')) [400, 414].forEach(has);
      if (o.security) has(401);
      if (o.body) [400, 413].forEach(has);
    }
    expect(missing).toEqual([]);
    expect(op('POST', '/jobs/{id}/cancel').responses).toHaveProperty('429');
    expect(op('POST', '/contact').responses).toHaveProperty('429');
    // The web app's files and pages are not the API.
    expect(Object.keys(doc.paths).filter((p) => !p.startsWith('/api/v1/'))).toEqual([]);
  });

  it('answers a 16 KB query string with 431 in the {detail, code} shape', async () => {
    const { port } = app.server.address() as AddressInfo;
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1', () =>
        socket.write(`GET /api/v1/video-library-detailed?q=${'x'.repeat(17_000)} HTTP/1.1\r\nHost: x\r\n\r\n`),
      );
      let text = '';
      socket.on('data', (d) => (text += d.toString()));
      socket.on('close', () => resolve(text));
      socket.on('error', reject);
    });
    expect(raw).toMatch(/^HTTP\/1\.1 431 /);
    expect(raw).toMatch(/content-type: application\/json/i);
    expect(JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4))).toEqual({
      detail: 'The request head (address and headers) is too large.',
      code: 'header_too_large',
    });
  });
});
