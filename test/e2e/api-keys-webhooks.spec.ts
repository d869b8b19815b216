import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { downloadReel, ReelsmithClient, ReelsmithError, uploadFile, verifyWebhookSignature, waitForJob } from '../../packages/sdk/src';
import { makeReelFromClips } from '../../packages/sdk/examples/make-reel';
import { Api } from '../support/api';
import { sharedSystem, SHARED_START_MS, type SharedSystem } from '../support/shared-system';

const MEDIA = path.resolve(__dirname, '..', '..', '..', 'shared', 'media');
const CLIPS = ['walk.mkv', 'counter.mp4', 'again.mkv'].map((f) => path.join(MEDIA, f));

/** A local webhook receiver: answers from `script` (then 200), keeping each request's headers and raw body. */
async function receiver(script: number[] = []) {
  const got: Array<{ signature: string; body: string; status: number; at: number }> = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const status = script.shift() ?? 200;
      got.push({ signature: String(req.headers['reelsmith-signature']), body, status, at: Date.now() });
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, got, close: () => server.close() };
}

const waitUntil = async (what: string, ok: () => boolean, timeoutMs: number) => {
  const end = Date.now() + timeoutMs;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
};

/**
 * Reelsmith as an API on the product as `npm start` runs it (issue 45): a Corporate user makes a
 * key; with it, uploads, makes a reel with an Idempotency-Key sent twice (one job), hears
 * job.completed on two local receivers (one answering 500 twice first), downloads the reel; the
 * SDK's example makes a reel from three clips; the revoked key then answers 401.
 */
describe('API keys, idempotent reels and signed webhooks end to end', () => {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'reelsmith-api-work-'));
  let sys: SharedSystem;

  beforeAll(async () => {
    sys = await sharedSystem();
  }, SHARED_START_MS + 60_000);
  afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

  it('key, upload, one job for two requests, verified webhooks (the third try after two 500s), download, example, revocation', async () => {
    const api = new Api(sys.baseUrl, sys.dataDir);
    await api.signUp(`api.${Date.now()}@example.com`);

    // Without the plan: refused, naming it. Then Corporate, through the sandbox's checkout.
    const refused = await api.call('POST', '/api-keys', { name: 'ci', scopes: ['jobs:read'] });
    expect(refused.status).toBe(403);
    expect(refused.body['detail']).toContain('Corporate');
    const intent = await api.call<{ payment_intent_id: string }>('POST', '/auth/upgrade-subscription', { plan: 'corporate' });
    expect(intent.status).toBe(200);
    const card = { test_card: '4242 4242 4242 4242', test_expiry: '12/34', test_cvc: '123' };
    expect((await api.call('POST', '/payments/confirm', { payment_intent_id: intent.body.payment_intent_id, ...card })).status).toBe(200);

    const made = await api.call<{ id: string; secret: string }>('POST', '/api-keys', {
      name: 'e2e',
      scopes: ['uploads:write', 'jobs:write', 'jobs:read'],
    });
    expect(made.status).toBe(201);
    const key = made.body.secret;
    expect(key).toMatch(/^rs_live_/);

    const ok = await receiver();
    const flaky = await receiver([500, 500]);
    try {
      const secrets: string[] = [];
      for (const r of [ok, flaky]) {
        const e = await api.call<{ secret: string }>('POST', '/webhook-endpoints', { url: r.url, events: ['job.completed'] });
        expect(e.status).toBe(201);
        secrets.push(e.body.secret);
      }

      const client = new ReelsmithClient({ baseUrl: sys.baseUrl, apiKey: key });
      const keys: string[] = [];
      for (const clip of CLIPS) keys.push((await uploadFile(client, clip)).object_key);
      // A key cannot manage keys or the account.
      const denied = await client.get('/api/v1/api-keys').catch((e: unknown) => e);
      expect(denied).toMatchObject({ status: 403, code: 'api_key_not_allowed' });

      // The same request twice with one Idempotency-Key: one job, the first answer again.
      const body = { media_files: keys, title_config: { text: 'Built on Reelsmith' } };
      const post = () =>
        fetch(`${sys.baseUrl}/api/v1/jobs/assemble`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': 'e2e-reel-1' },
          body: JSON.stringify(body),
        });
      const first = await post();
      const second = await post();
      expect([first.status, second.status]).toEqual([200, 200]);
      const jobId = ((await first.json()) as { job_id: string }).job_id;
      expect(((await second.json()) as { job_id: string }).job_id).toBe(jobId);
      expect(second.headers.get('idempotent-replayed')).toBe('true');
      expect((await client.get('/api/v1/jobs')).jobs.map((j) => j.job_id)).toEqual([jobId]);

      expect((await waitForJob(client, jobId, { timeoutMs: 180_000, intervalMs: 500 })).status).toBe('completed');

      // Both receivers get job.completed, signed; the flaky one on its third try, after back-off.
      await waitUntil('the webhooks', () => ok.got.length >= 1 && flaky.got.length >= 3, 30_000);
      const hit = ok.got[0]!;
      expect(verifyWebhookSignature(secrets[0]!, hit.signature, hit.body)).toBe(true);
      expect(verifyWebhookSignature(secrets[1]!, hit.signature, hit.body)).toBe(false);
      const event = JSON.parse(hit.body) as { type: string; data: { job_id: string; reel_id: string; download_url: string } };
      expect(event).toMatchObject({ type: 'job.completed', data: { job_id: jobId, reel_id: jobId } });
      expect(event.data.download_url).toMatch(new RegExp(`/api/v1/downloads/${jobId}$`));
      expect(flaky.got.map((g) => g.status)).toEqual([500, 500, 200]);
      expect(verifyWebhookSignature(secrets[1]!, flaky.got[2]!.signature, flaky.got[2]!.body)).toBe(true);
      expect(flaky.got[2]!.at - flaky.got[0]!.at).toBeGreaterThanOrEqual(2500); // 1 s, then 2 s
      const log = await api.call<{ deliveries: Array<{ url: string; status: string; attempts: number }> }>('GET', '/webhook-deliveries');
      expect(log.body.deliveries.find((d) => d.url === flaky.url)).toMatchObject({ status: 'delivered', attempts: 3 });

      const out = path.join(work, 'reel.mp4');
      expect(await downloadReel(client, jobId, out)).toBeGreaterThan(10_000);
      expect(fs.readFileSync(out).subarray(4, 8).toString()).toBe('ftyp');

      // The SDK's example, as a user runs it: three clips to a downloaded reel.
      const example = await makeReelFromClips(
        { baseUrl: sys.baseUrl, apiKey: key, clips: CLIPS, out: path.join(work, 'example.mp4') },
        () => undefined,
      );
      expect(example.bytes).toBeGreaterThan(10_000);

      // Revoked: 401 at once.
      expect((await api.call('DELETE', `/api-keys/${made.body.id}`)).status).toBe(200);
      const after = await client.get('/api/v1/jobs').catch((e: unknown) => e);
      expect(after).toBeInstanceOf(ReelsmithError);
      expect(after).toMatchObject({ status: 401, code: 'invalid_api_key' });
    } finally {
      ok.close();
      flaky.close();
    }
  }, 600_000);
});
