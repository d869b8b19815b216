import crypto from 'node:crypto';
import { retryDelayMs, retrySpanMs, WEBHOOK_BACKOFF } from '../../src/domain/webhooks/backoff';
import { signHeader, verifySignature } from '../../src/domain/webhooks/signature';
import { checkWebhookUrl, isForbiddenAddress } from '../../src/domain/webhooks/ssrf';
import {
  WebhooksService,
  type DeliveryRecord,
  type EndpointRecord,
  type SendResult,
  type WebhookRepository,
} from '../../src/domain/webhooks/webhooks.service';

describe('webhook signatures', () => {
  const secret = 'whsec_test';
  const body = '{"id":"evt_1","type":"job.completed"}';
  const t = 1_800_000_000;

  it('signs t.body with HMAC-SHA256 and verifies it; a changed body, secret or signature fails', () => {
    const header = signHeader(secret, t, body);
    expect(header).toBe(`t=${t},v1=${crypto.createHmac('sha256', secret).update(`${t}.${body}`).digest('hex')}`);
    expect(verifySignature(secret, header, body, t)).toBe(true);
    expect(verifySignature(secret, header, body.replace('1', '2'), t)).toBe(false);
    expect(verifySignature('whsec_other', header, body, t)).toBe(false);
    expect(verifySignature(secret, header.replace(/v1=./, 'v1=0'), body, t)).toBe(false);
    expect(verifySignature(secret, 'garbage', body, t)).toBe(false);
  });

  it('refuses a signature older (or newer) than 5 minutes: a replay', () => {
    const header = signHeader(secret, t, body);
    expect(verifySignature(secret, header, body, t + 300)).toBe(true);
    expect(verifySignature(secret, header, body, t + 301)).toBe(false);
    expect(verifySignature(secret, header, body, t - 301)).toBe(false);
  });
});

describe('SSRF guard', () => {
  it('forbids loopback, private, link-local, metadata, CGNAT and reserved addresses, v4, v6 and v4-mapped', () => {
    for (const a of [
      '127.0.0.1',
      '10.1.2.3',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '::1',
      '::',
      'fe80::1',
      'fd00::1',
      '::ffff:127.0.0.1',
      '::ffff:10.0.0.1',
      '224.0.0.1',
    ])
      expect([a, isForbiddenAddress(a)]).toEqual([a, true]);
    for (const a of ['93.184.216.34', '8.8.8.8', '172.32.0.1', '2606:2800:220:1:248:1893:25c8:1946', '::ffff:8.8.8.8'])
      expect([a, isForbiddenAddress(a)]).toEqual([a, false]);
  });

  it('forbids the IPv6 forms that carry an IPv4 address: IPv4-compatible, NAT64, 6to4 and Teredo', () => {
    for (const a of [
      '::7f00:1', // IPv4-compatible 127.0.0.1
      '::127.0.0.1',
      '::a9fe:a9fe', // IPv4-compatible 169.254.169.254
      '::ffff:7f00:1', // IPv4-mapped in hex
      '64:ff9b::7f00:1', // NAT64 well-known prefix, 127.0.0.1
      '64:ff9b::a00:1', // NAT64 well-known prefix, 10.0.0.1
      '64:ff9b:1::a00:1', // NAT64 local use
      '2002:7f00:1::1', // 6to4 for 127.0.0.1
      '2002:a00:1::', // 6to4 for 10.0.0.1
      '2001:0:4136:e378:8000:63bf:3fff:fdd2', // Teredo
    ])
      expect([a, isForbiddenAddress(a)]).toEqual([a, true]);
    for (const url of [
      'http://[::7f00:1]/hook',
      'http://[::127.0.0.1]/hook',
      'http://[2002:a9fe:a9fe::]/',
      'http://[2001::1]/',
      'http://[64:ff9b:1::1]/',
    ])
      expect(() => checkWebhookUrl(url, false)).toThrow(/public address/);
    // Neighbours of those ranges stay public.
    for (const a of ['2001:4860:4860::8888', '2003::1', '64:ff9b:2::1', '1::7f00:1'])
      expect([a, isForbiddenAddress(a)]).toEqual([a, false]);
  });

  it('takes only http(s) URLs without credentials, and no private host unless allowed', () => {
    expect(checkWebhookUrl('https://hooks.example.com/reelsmith', false).hostname).toBe('hooks.example.com');
    for (const [url, why] of [
      ['ftp://example.com/x', /http:\/\/ or https:\/\//],
      ['file:///etc/passwd', /http:\/\/ or https:\/\//],
      ['not a url', /not a valid URL/],
      ['https://user:pw@example.com/', /user name or password/],
      ['http://localhost:3000/hook', /public address/],
      ['http://127.0.0.1/hook', /public address/],
      ['http://[::1]/hook', /public address/],
      ['http://169.254.169.254/latest/meta-data', /public address/],
      ['http://10.0.0.5/hook', /public address/],
      ['http://metadata.google.internal/', /public address/],
    ] as const)
      expect(() => checkWebhookUrl(url, false)).toThrow(why);
    expect(checkWebhookUrl('http://127.0.0.1:4000/hook', true).port).toBe('4000');
    expect(() => checkWebhookUrl('ftp://127.0.0.1/', true)).toThrow(/http/);
  });
});

describe('back-off', () => {
  it('doubles from 30 s up to 3 hours and keeps trying for more than 24 hours', () => {
    expect([1, 2, 3, 4].map((a) => retryDelayMs(a))).toEqual([30_000, 60_000, 120_000, 240_000]);
    expect(retryDelayMs(12)).toBe(3 * 3600_000);
    expect(retrySpanMs()).toBeGreaterThanOrEqual(24 * 3600_000);
    expect(retrySpanMs()).toBeLessThan(48 * 3600_000);
    expect(WEBHOOK_BACKOFF.maxAttempts).toBe(20);
  });
});

/** The tables as the SQL keeps them. */
class MemoryWebhooks implements WebhookRepository {
  endpointsById = new Map<string, EndpointRecord & { deleted?: boolean }>();
  deliveriesById = new Map<string, DeliveryRecord>();
  secrets = new Map<string, string>();
  callbacks = new Map<string, { ownerId: string; url: string }>();
  async insertEndpoint(e: EndpointRecord) {
    this.endpointsById.set(e.id, { ...e });
  }
  async endpoints(ownerId: string) {
    return [...this.endpointsById.values()].filter((e) => e.ownerId === ownerId && !e.deleted);
  }
  async endpoint(ownerId: string, id: string) {
    const e = this.endpointsById.get(id);
    return e && e.ownerId === ownerId && !e.deleted ? e : null;
  }
  async deleteEndpoint(ownerId: string, id: string) {
    const e = await this.endpoint(ownerId, id);
    if (e) (e as { deleted?: boolean }).deleted = true;
    return !!e;
  }
  async callbackSecret(ownerId: string, make: () => string) {
    if (!this.secrets.has(ownerId)) this.secrets.set(ownerId, make());
    return this.secrets.get(ownerId)!;
  }
  async jobCallback(jobId: string) {
    return this.callbacks.get(jobId) ?? null;
  }
  async insertDelivery(d: DeliveryRecord) {
    if (!this.deliveriesById.has(d.id)) this.deliveriesById.set(d.id, { ...d });
  }
  async delivery(id: string) {
    const d = this.deliveriesById.get(id);
    return d ? { ...d } : null;
  }
  async deliveries(ownerId: string, limit: number) {
    return [...this.deliveriesById.values()].filter((d) => d.ownerId === ownerId).slice(0, limit);
  }
  async recordAttempt(id: string, r: Partial<DeliveryRecord>) {
    Object.assign(this.deliveriesById.get(id)!, r);
  }
  async resend(ownerId: string, id: string) {
    const d = this.deliveriesById.get(id);
    if (!d || d.ownerId !== ownerId) return null;
    Object.assign(d, { status: 'pending', attempts: 0, round: d.round + 1 });
    return { ...d };
  }
}

describe('WebhooksService', () => {
  const owner = crypto.randomUUID();
  let repo: MemoryWebhooks;
  let answers: SendResult[];
  let sent: Array<{ url: string; headers: Record<string, string>; body: string }>;
  let queued: Array<[string, number]>;
  let svc: WebhooksService;
  const at = new Date('2026-11-29T05:00:00Z');
  beforeEach(() => {
    repo = new MemoryWebhooks();
    answers = [];
    sent = [];
    queued = [];
    svc = new WebhooksService(
      repo,
      { post: async (url, headers, body) => (sent.push({ url, headers, body }), answers.shift() ?? { status: 200 }) },
      { enqueue: async (id, round) => void queued.push([id, round]) },
      { allowPrivate: false, publicUrl: 'https://reels.example.com', maxAttempts: 3, clock: () => at },
    );
  });

  it('makes one signed delivery per subscribed endpoint and the callback_url, once however often the fact is heard', async () => {
    const { endpoint, secret } = await svc.createEndpoint(owner, 'https://a.example.com/hook', ['job.completed']);
    await svc.createEndpoint(owner, 'https://b.example.com/hook', ['job.failed']);
    repo.callbacks.set('job-1', { ownerId: owner, url: 'https://c.example.com/cb' });
    const fact = {
      type: 'job.completed' as const,
      jobId: 'job-1',
      ownerId: owner,
      at: new Date(at.getTime() + 1),
      durationSec: 31.5,
      sizeBytes: 1234,
    };
    expect(await svc.onJobFact(fact)).toBe(2);
    expect(await svc.onJobFact(fact)).toBe(2); // heard again
    expect(repo.deliveriesById.size).toBe(2);

    for (const [id, round] of queued) await svc.deliver(id, round);
    expect(sent.map((s) => s.url).sort()).toEqual(['https://a.example.com/hook', 'https://c.example.com/cb']);
    const toA = sent.find((s) => s.url.startsWith('https://a'))!;
    expect(verifySignature(secret, toA.headers['reelsmith-signature']!, toA.body, Math.floor(at.getTime() / 1000))).toBe(true);
    const toC = sent.find((s) => s.url.startsWith('https://c'))!;
    expect(verifySignature(repo.secrets.get(owner)!, toC.headers['reelsmith-signature']!, toC.body, Math.floor(at.getTime() / 1000))).toBe(
      true,
    );
    expect(JSON.parse(toA.body)).toEqual({
      id: toA.headers['reelsmith-event-id'],
      type: 'job.completed',
      created: Math.floor(fact.at.getTime() / 1000),
      data: {
        job_id: 'job-1',
        reel_id: 'job-1',
        download_url: 'https://reels.example.com/api/v1/downloads/job-1',
        duration_sec: 31.5,
        size_bytes: 1234,
      },
    });
    expect(toC.headers['reelsmith-event-id']).toBe(toA.headers['reelsmith-event-id']);
    expect(endpoint.events).toEqual(['job.completed']);
  });

  it('skips endpoints made after the fact (a replay of old events on first start sends nothing new)', async () => {
    await svc.createEndpoint(owner, 'https://a.example.com/hook', ['job.cancelled']);
    expect(await svc.onJobFact({ type: 'job.cancelled', jobId: 'j', ownerId: owner, at: new Date(at.getTime() - 1000) })).toBe(0);
  });

  it('a failure is tried again with back-off until a 2xx; past the last try the delivery fails; a resend starts again', async () => {
    await svc.createEndpoint(owner, 'https://a.example.com/hook', ['job.failed']);
    await svc.onJobFact({ type: 'job.failed', jobId: 'j2', ownerId: owner, at, reason: 'The clip could not be read.' });
    const [id] = queued[0]!;
    answers.push({ status: 500 }, { error: 'no answer within 10000 ms' });
    expect(await svc.deliver(id, 0)).toEqual({ done: false, retryInMs: 30_000 });
    expect(await svc.deliver(id, 0)).toEqual({ done: false, retryInMs: 60_000 });
    expect(repo.deliveriesById.get(id)).toMatchObject({
      status: 'pending',
      attempts: 2,
      lastStatusCode: 0,
      lastError: 'no answer within 10000 ms',
    });
    expect(await svc.deliver(id, 0)).toEqual({ done: true });
    expect(repo.deliveriesById.get(id)).toMatchObject({ status: 'delivered', attempts: 3, lastStatusCode: 200 });
    expect(JSON.parse(sent[0]!.body).data).toEqual({ job_id: 'j2', reason: 'The clip could not be read.' });
    expect(await svc.deliver(id, 0)).toEqual({ done: true }); // a redelivered message sends nothing more
    expect(sent).toHaveLength(3);

    answers.push({ status: 500 }, { status: 502 }, { status: 503 });
    await svc.resend(owner, id);
    expect(queued.at(-1)).toEqual([id, 1]);
    expect(await svc.deliver(id, 0)).toEqual({ done: true }); // the old round's message is stale
    await svc.deliver(id, 1);
    await svc.deliver(id, 1);
    expect(await svc.deliver(id, 1)).toEqual({ done: true });
    expect(repo.deliveriesById.get(id)).toMatchObject({ status: 'failed', attempts: 3, lastStatusCode: 503 });
  });

  it('refuses endpoints the SSRF guard refuses, unknown events, and a test event to an unknown endpoint', async () => {
    await expect(svc.createEndpoint(owner, 'http://169.254.169.254/', ['job.completed'])).rejects.toMatchObject({
      reason: 'invalid_webhook_url',
    });
    await expect(svc.createEndpoint(owner, 'https://a.example.com/', ['job.exploded'])).rejects.toMatchObject({
      reason: 'invalid_webhook_events',
    });
    await expect(svc.sendTest(owner, crypto.randomUUID())).rejects.toMatchObject({ code: 'NOT_FOUND' });
    const { endpoint } = await svc.createEndpoint(owner, 'https://a.example.com/', ['job.completed']);
    const d = await svc.sendTest(owner, endpoint.id);
    await svc.deliver(d.id, 0);
    expect(JSON.parse(sent[0]!.body)).toMatchObject({ type: 'test' });
  });
});
