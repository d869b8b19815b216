import Fastify from 'fastify';
import { errorHandler } from '../../src/transport/http/errors';
import { idempotencyPlugin } from '../../src/transport/http/idempotency';
import {
  Idempotency,
  canonicalJson,
  type Begin,
  fingerprint,
  type IdempotencyRecord,
  type IdempotencyStore,
} from '../../src/domain/idempotency';

/** The table as the SQL keeps it: one row per (owner, key). */
class MemoryStore implements IdempotencyStore {
  rows = new Map<string, IdempotencyRecord & { claim: string }>();
  async claim(owner: string, key: string, print: string, claim: string, now: Date, expiredBefore: Date, staleBefore: Date) {
    const r = this.rows.get(`${owner}/${key}`);
    if (r && r.createdAt >= expiredBefore && !(r.status === null && r.createdAt < staleBefore)) return false;
    this.rows.set(`${owner}/${key}`, { fingerprint: print, claim, status: null, body: null, createdAt: now });
    return true;
  }
  async read(owner: string, key: string) {
    return this.rows.get(`${owner}/${key}`) ?? null;
  }
  async complete(owner: string, key: string, claim: string, status: number, body: string) {
    const r = this.rows.get(`${owner}/${key}`);
    if (r?.claim === claim) Object.assign(r, { status, body });
  }
  async release(owner: string, key: string, claim: string) {
    const r = this.rows.get(`${owner}/${key}`);
    if (r?.status === null && r.claim === claim) this.rows.delete(`${owner}/${key}`);
  }
  async sweep(before: Date) {
    let n = 0;
    for (const [k, r] of this.rows) if (r.createdAt < before && this.rows.delete(k)) n++;
    return n;
  }
}

const claimOf = (b: Begin) => {
  if (!b.run) throw new Error('expected to run');
  return b.claim;
};

describe('Idempotency-Key', () => {
  let t: number;
  let store: MemoryStore;
  let idem: Idempotency;
  beforeEach(() => {
    t = Date.parse('2026-11-29T04:00:00Z');
    store = new MemoryStore();
    idem = new Idempotency(store, { clock: () => new Date(t), waitMs: 200, pollMs: 5 });
  });

  it('runs the first request, answers the same one again afterwards, and per account', async () => {
    const first = await idem.begin('u1', 'k', 'p1');
    expect(first).toMatchObject({ run: true });
    await idem.complete('u1', 'k', (first as { claim: string }).claim, 200, '{"job_id":"j1"}');
    expect(await idem.begin('u1', 'k', 'p1')).toEqual({ run: false, status: 200, body: '{"job_id":"j1"}' });
    expect(await idem.begin('u2', 'k', 'p1')).toMatchObject({ run: true }); // another account's key
  });

  it('answers 409 for the same key with a different request', async () => {
    await idem.complete('u1', 'k', claimOf(await idem.begin('u1', 'k', 'p1')), 200, '{}');
    await expect(idem.begin('u1', 'k', 'p2')).rejects.toMatchObject({ code: 'ALREADY_EXISTS', reason: 'idempotency_key_reused' });
  });

  it('a retry waits for the running request and gets its answer; past the wait, 409 "still running"', async () => {
    const claim = claimOf(await idem.begin('u1', 'k', 'p1'));
    const retry = idem.begin('u1', 'k', 'p1');
    setTimeout(() => void idem.complete('u1', 'k', claim, 201, '{"a":1}'), 30);
    expect(await retry).toEqual({ run: false, status: 201, body: '{"a":1}' });

    await idem.begin('u1', 'slow', 'p1');
    const started = Date.now();
    const slow = new Idempotency(store, { clock: () => new Date(), waitMs: 60, pollMs: 5 });
    store.rows.get('u1/slow')!.createdAt = new Date();
    await expect(slow.begin('u1', 'slow', 'p1')).rejects.toMatchObject({ code: 'FAILED_PRECONDITION', reason: 'idempotency_in_progress' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(55);
  });

  it('a failed request frees its key; a key is forgotten after 24 hours; one left running by a dead request is taken over', async () => {
    await idem.release('u1', 'k', claimOf(await idem.begin('u1', 'k', 'p1')));
    await idem.complete('u1', 'k', claimOf(await idem.begin('u1', 'k', 'p2')), 200, '{}');
    t += 24 * 3600_000 - 1;
    await expect(idem.begin('u1', 'k', 'p3')).rejects.toMatchObject({ reason: 'idempotency_key_reused' });
    t += 2;
    expect(await idem.begin('u1', 'k', 'p3')).toMatchObject({ run: true });

    t += 2 * 3600_000 + 1; // the p3 request never finished
    expect(await idem.begin('u1', 'k', 'p3')).toMatchObject({ run: true });
    t += 24 * 3600_000 + 1;
    expect(await idem.sweep()).toBe(1);
  });

  it("a request still running after 15 minutes (a slow upload) keeps its key; taken over, it neither saves nor frees the new holder's key", async () => {
    const slow = claimOf(await idem.begin('u1', 'k', 'p1'));
    t += 60 * 60_000; // an hour-long upload is still running: a retry waits, it does not run again
    const retry = new Idempotency(store, { clock: () => new Date(t), waitMs: 0, pollMs: 1 });
    await expect(retry.begin('u1', 'k', 'p1')).rejects.toMatchObject({ reason: 'idempotency_in_progress' });
    t += 60 * 60_000 + 1; // past the stale limit: the next request takes the key
    const second = claimOf(await idem.begin('u1', 'k', 'p1'));
    await idem.release('u1', 'k', slow); // the first one fails late: the second's key stays held
    expect(store.rows.get('u1/k')).toMatchObject({ status: null });
    await idem.complete('u1', 'k', slow, 200, '{"job_id":"stale"}'); // or finishes late: nothing saved
    expect(store.rows.get('u1/k')).toMatchObject({ status: null, body: null });
    await idem.complete('u1', 'k', second, 200, '{"job_id":"j2"}');
    expect(await idem.begin('u1', 'k', 'p1')).toEqual({ run: false, status: 200, body: '{"job_id":"j2"}' });
  });

  it('refuses keys that are empty, too long or not visible ASCII', async () => {
    for (const k of ['', 'a'.repeat(256), 'with space', 'é'])
      await expect(idem.begin('u1', k, 'p')).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', reason: 'invalid_idempotency_key' });
  });

  it('fingerprints JSON whatever the order of its keys, and tells routes apart', () => {
    expect(canonicalJson({ b: [1, { y: 2, x: 1 }], a: 'z', u: undefined })).toBe('{"a":"z","b":[1,{"x":1,"y":2}]}');
    expect(fingerprint('POST /a', canonicalJson({ a: 1, b: 2 }))).toBe(fingerprint('POST /a', canonicalJson({ b: 2, a: 1 })));
    expect(fingerprint('POST /a', '{}')).not.toBe(fingerprint('POST /b', '{}'));
  });
});

describe('Idempotency-Key on a route', () => {
  it('a retry while the first request still runs answers 409 with Retry-After', async () => {
    const store = new MemoryStore();
    const app = Fastify();
    app.setErrorHandler(errorHandler);
    app.decorateRequest('caller', null);
    app.addHook('onRequest', async (req) => {
      (req as unknown as { caller: unknown }).caller = { id: 'u1' };
    });
    await app.register(idempotencyPlugin, { idempotency: new Idempotency(store, { waitMs: 0, pollMs: 1 }) });
    app.post('/api/v1/jobs/plan', async () => new Promise(() => {})); // never answers: still running
    const url = `${await app.listen({ port: 0, host: '127.0.0.1' })}/api/v1/jobs/plan`;
    const post = (signal?: AbortSignal) =>
      fetch(url, { method: 'POST', signal, headers: { 'idempotency-key': 'k', 'content-type': 'application/json' }, body: '{}' });
    const first = new AbortController();
    void post(first.signal).catch(() => {});
    while (!store.rows.size) await new Promise((r) => setTimeout(r, 5));
    const res = await post();
    expect(res.status).toBe(409);
    expect(await res.json()).toMatchObject({ code: 'idempotency_in_progress' });
    expect(res.headers.get('retry-after')).toBe('2');
    first.abort();
    app.server.closeAllConnections();
    await app.close();
  });
});
