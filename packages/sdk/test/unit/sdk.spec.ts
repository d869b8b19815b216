import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ReelsmithClient, ReelsmithError, constructWebhookEvent, makeReel, verifyWebhookSignature } from '../../src/index';

const sign = (secret: string, t: number, body: string) =>
  `t=${t},v1=${crypto.createHmac('sha256', secret).update(`${t}.${body}`).digest('hex')}`;

describe('webhook verifier', () => {
  const secret = 'whsec_abc';
  const body = JSON.stringify({ id: 'evt_1', type: 'job.completed', created: 1, data: { job_id: 'j' } });
  const now = Math.floor(Date.now() / 1000);

  it('accepts a genuine delivery and refuses a changed body, another secret, a bad header or an old one', () => {
    expect(verifyWebhookSignature(secret, sign(secret, now, body), body)).toBe(true);
    expect(verifyWebhookSignature(secret, sign(secret, now, body), Buffer.from(body))).toBe(true);
    expect(verifyWebhookSignature(secret, sign(secret, now, body), body + ' ')).toBe(false);
    expect(verifyWebhookSignature('whsec_other', sign(secret, now, body), body)).toBe(false);
    expect(verifyWebhookSignature(secret, undefined, body)).toBe(false);
    expect(verifyWebhookSignature(secret, 't=abc,v1=00', body)).toBe(false);
    expect(verifyWebhookSignature(secret, sign(secret, now - 301, body), body)).toBe(false);
    expect(verifyWebhookSignature(secret, sign(secret, now - 301, body), body, { toleranceSeconds: 600 })).toBe(true);
    expect(constructWebhookEvent(secret, sign(secret, now, body), body)).toMatchObject({ type: 'job.completed' });
    expect(() => constructWebhookEvent(secret, sign(secret, now, body), '{}')).toThrow(/Invalid Reelsmith-Signature/);
  });
});

describe('typed client', () => {
  let server: http.Server;
  let base: string;
  const seen: Array<{ method: string; url: string; headers: http.IncomingHttpHeaders; body: string }> = [];
  const script: Array<{ status: number; body: unknown; headers?: Record<string, string> }> = [];
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
        const a = script.shift() ?? { status: 404, body: { detail: 'Not found', code: 'not_found' } };
        res.writeHead(a.status, { 'content-type': 'application/json', ...a.headers }).end(JSON.stringify(a.body));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => server.close());
  beforeEach(() => (seen.length = 0));

  it('sends the key and the Idempotency-Key, waits out a 429 with Retry-After, and polls a job to its end', async () => {
    const client = new ReelsmithClient({ baseUrl: base, apiKey: 'rs_live_x' });
    script.push(
      {
        status: 429,
        body: { detail: 'Too many requests. Please wait 1 second and try again.', code: 'rate_limited' },
        headers: { 'retry-after': '1' },
      },
      { status: 200, body: { job_id: 'j1' } },
      { status: 200, body: { status: 'processing', progress: 40, message: 'Processing' } },
      { status: 200, body: { status: 'completed', progress: 100, message: 'Complete' } },
    );
    const started = Date.now();
    const r = await makeReel(client, { media_files: ['uploads/a.mp4'] }, { idempotencyKey: 'k-1', intervalMs: 10 });
    expect(r.jobId).toBe('j1');
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(seen.map((s) => `${s.method} ${s.url}`)).toEqual([
      'POST /api/v1/jobs/assemble',
      'POST /api/v1/jobs/assemble',
      'GET /api/v1/jobs/j1/status',
      'GET /api/v1/jobs/j1/status',
    ]);
    expect(seen[0]!.headers['authorization']).toBe('Bearer rs_live_x');
    expect(seen.slice(0, 2).map((s) => s.headers['idempotency-key'])).toEqual(['k-1', 'k-1']);
    expect(JSON.parse(seen[1]!.body)).toEqual({ media_files: ['uploads/a.mp4'] });
  });

  it('turns an error answer into a ReelsmithError with its status, code and detail', async () => {
    const client = new ReelsmithClient({ baseUrl: base, apiKey: 'rs_live_revoked' });
    script.push({ status: 401, body: { detail: 'This API key is not valid or was revoked.', code: 'invalid_api_key' } });
    const e = await client.get('/api/v1/jobs', { query: { active: '1' } }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ReelsmithError);
    expect(e).toMatchObject({ status: 401, code: 'invalid_api_key', detail: 'This API key is not valid or was revoked.' });
    expect(seen[0]!.url).toBe('/api/v1/jobs?active=1');
  });
});
