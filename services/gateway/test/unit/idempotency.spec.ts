import { Idempotency, canonicalJson, fingerprint, type IdempotencyRecord, type IdempotencyStore } from '../../src/domain/idempotency';

/** The table as the SQL keeps it: one row per (owner, key). */
class MemoryStore implements IdempotencyStore {
  rows = new Map<string, IdempotencyRecord>();
  async claim(owner: string, key: string, print: string, now: Date, expiredBefore: Date, staleBefore: Date) {
    const r = this.rows.get(`${owner}/${key}`);
    if (r && r.createdAt >= expiredBefore && !(r.status === null && r.createdAt < staleBefore)) return false;
    this.rows.set(`${owner}/${key}`, { fingerprint: print, status: null, body: null, createdAt: now });
    return true;
  }
  async read(owner: string, key: string) {
    return this.rows.get(`${owner}/${key}`) ?? null;
  }
  async complete(owner: string, key: string, status: number, body: string) {
    Object.assign(this.rows.get(`${owner}/${key}`)!, { status, body });
  }
  async release(owner: string, key: string) {
    if (this.rows.get(`${owner}/${key}`)?.status === null) this.rows.delete(`${owner}/${key}`);
  }
  async sweep(before: Date) {
    let n = 0;
    for (const [k, r] of this.rows) if (r.createdAt < before && this.rows.delete(k)) n++;
    return n;
  }
}

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
    expect(await idem.begin('u1', 'k', 'p1')).toEqual({ run: true });
    await idem.complete('u1', 'k', 200, '{"job_id":"j1"}');
    expect(await idem.begin('u1', 'k', 'p1')).toEqual({ run: false, status: 200, body: '{"job_id":"j1"}' });
    expect(await idem.begin('u2', 'k', 'p1')).toEqual({ run: true }); // another account's key
  });

  it('answers 409 for the same key with a different request', async () => {
    await idem.begin('u1', 'k', 'p1');
    await idem.complete('u1', 'k', 200, '{}');
    await expect(idem.begin('u1', 'k', 'p2')).rejects.toMatchObject({ code: 'ALREADY_EXISTS', reason: 'idempotency_key_reused' });
  });

  it('a retry waits for the running request and gets its answer; past the wait, 409 "still running"', async () => {
    await idem.begin('u1', 'k', 'p1');
    const retry = idem.begin('u1', 'k', 'p1');
    setTimeout(() => void idem.complete('u1', 'k', 201, '{"a":1}'), 30);
    expect(await retry).toEqual({ run: false, status: 201, body: '{"a":1}' });

    await idem.begin('u1', 'slow', 'p1');
    const started = Date.now();
    const slow = new Idempotency(store, { clock: () => new Date(), waitMs: 60, pollMs: 5 });
    store.rows.get('u1/slow')!.createdAt = new Date();
    await expect(slow.begin('u1', 'slow', 'p1')).rejects.toMatchObject({ code: 'FAILED_PRECONDITION', reason: 'idempotency_in_progress' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(55);
  });

  it('a failed request frees its key; a key is forgotten after 24 hours; one left running by a dead request is taken over', async () => {
    await idem.begin('u1', 'k', 'p1');
    await idem.release('u1', 'k');
    expect(await idem.begin('u1', 'k', 'p2')).toEqual({ run: true });
    await idem.complete('u1', 'k', 200, '{}');
    t += 24 * 3600_000 - 1;
    await expect(idem.begin('u1', 'k', 'p3')).rejects.toMatchObject({ reason: 'idempotency_key_reused' });
    t += 2;
    expect(await idem.begin('u1', 'k', 'p3')).toEqual({ run: true });

    t += 15 * 60_000 + 1; // the p3 request never finished
    expect(await idem.begin('u1', 'k', 'p3')).toEqual({ run: true });
    t += 24 * 3600_000 + 1;
    expect(await idem.sweep()).toBe(1);
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
