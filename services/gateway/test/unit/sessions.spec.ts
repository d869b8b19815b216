import { DomainError, ErrorCode } from '@reelsmith/kit';
import { Admission } from '../../src/domain/admission';
import { LiveJobs } from '../../src/domain/live-jobs';
import { SessionVerifier, tokenHash, type Caller } from '../../src/domain/sessions';
import { ShortCache } from '../../src/domain/short-cache';

const caller = (id: string): Caller => ({ id, email: `${id}@example.com`, isAdmin: false, isGuest: false, unlimited: false });

/** An identity that answers when told to, counting calls. */
function identity() {
  const pending: Array<{ token: string; resolve: (c: Caller) => void; reject: (e: unknown) => void }> = [];
  const calls: string[] = [];
  return {
    calls,
    pending,
    verify: (token: string) =>
      new Promise<Caller>((resolve, reject) => {
        calls.push(token);
        pending.push({ token, resolve, reject });
      }),
    answer: (c: Caller) => pending.shift()!.resolve(c),
    refuse: () => pending.shift()!.reject(new DomainError(ErrorCode.UNAUTHENTICATED, 'expired', 'session_expired')),
    fail: () => pending.shift()!.reject(new DomainError(ErrorCode.DEADLINE_EXCEEDED, 'deadline')),
  };
}
const tick = () => new Promise((r) => setImmediate(r));

describe('session verification in the gateway', () => {
  it('single-flight: concurrent verifications of one token make one call, and all get its answer', async () => {
    const id = identity();
    const v = new SessionVerifier(id.verify, { maxEntries: 10, ttlMs: 1000 });
    const all = Promise.all(Array.from({ length: 100 }, () => v.verify('t1')));
    await tick();
    expect(id.calls).toEqual(['t1']);
    id.answer(caller('u1'));
    expect((await all).every((c) => c?.id === 'u1')).toBe(true);
  });

  it('answers a cached session at once, and nothing once it expired or was revoked', async () => {
    let now = 0;
    const id = identity();
    const v = new SessionVerifier(id.verify, { maxEntries: 10, ttlMs: 1000 }, undefined, () => now);
    expect(v.cached('t1')).toBeUndefined();
    const first = v.verify('t1');
    await tick();
    id.answer(caller('u1'));
    await first;
    expect(v.cached('t1')?.id).toBe('u1');
    expect(v.cached('t2')).toBeUndefined();
    now = 1001;
    expect(v.cached('t1')).toBeUndefined();
    const again = v.verify('t1');
    await tick();
    id.answer(caller('u1'));
    await again;
    v.revoke([tokenHash('t1')]);
    expect(v.cached('t1')).toBeUndefined();
    expect(id.calls).toEqual(['t1', 't1']);
  });

  it('caches for the TTL, then asks again', async () => {
    let now = 0;
    const id = identity();
    const v = new SessionVerifier(id.verify, { maxEntries: 10, ttlMs: 1000 }, undefined, () => now);
    const first = v.verify('t');
    await tick();
    id.answer(caller('u'));
    await first;
    now = 999;
    expect(await v.verify('t')).toMatchObject({ id: 'u' });
    expect(id.calls).toHaveLength(1);
    now = 1000;
    const again = v.verify('t');
    await tick();
    expect(id.calls).toHaveLength(2);
    id.answer(caller('u'));
    await again;
  });

  it('is bounded: the least recently used session goes first', async () => {
    const id = identity();
    const v = new SessionVerifier(id.verify, { maxEntries: 2, ttlMs: 60_000 });
    for (const t of ['a', 'b']) {
      const p = v.verify(t);
      await tick();
      id.answer(caller(t));
      await p;
    }
    await v.verify('a'); // a is now the most recent
    const c = v.verify('c');
    await tick();
    id.answer(caller('c'));
    await c;
    expect(v.size).toBe(2);
    await v.verify('a'); // still cached
    expect(id.calls).toEqual(['a', 'b', 'c']);
    const b = v.verify('b'); // evicted: asks again
    await tick();
    expect(id.calls).toEqual(['a', 'b', 'c', 'b']);
    id.answer(caller('b'));
    await b;
  });

  it('null only when identity refused the token; any other failure is UNAVAILABLE, never "signed out"', async () => {
    const id = identity();
    const v = new SessionVerifier(id.verify, { maxEntries: 10, ttlMs: 1000 });
    const refused = v.verify('bad');
    await tick();
    id.refuse();
    expect(await refused).toBeNull();
    const slow = v.verify('good');
    await tick();
    id.fail();
    await expect(slow).rejects.toMatchObject({ code: 'UNAVAILABLE', message: 'Service temporarily unavailable, please retry' });
  });

  it('revocation by token or by user takes effect at once, and an answer that raced it is not cached', async () => {
    const id = identity();
    const v = new SessionVerifier(id.verify, { maxEntries: 10, ttlMs: 60_000 });
    for (const t of ['t1', 't2', 't3']) {
      const p = v.verify(t);
      await tick();
      id.answer(caller(t === 't3' ? 'other' : 'u'));
      await p;
    }
    v.revoke([tokenHash('t1')]);
    const p1 = v.verify('t1');
    await tick();
    expect(id.calls.filter((t) => t === 't1')).toHaveLength(2);
    id.refuse();
    expect(await p1).toBeNull();

    v.revoke([], 'u'); // every session of u: t2
    const p2 = v.verify('t2');
    await tick();
    expect(id.calls.filter((t) => t === 't2')).toHaveLength(2);
    // A revocation arrives while identity is answering: the (older) answer is not cached.
    v.revoke([], 'u');
    id.answer(caller('u'));
    await p2;
    const p3 = v.verify('t2');
    await tick();
    expect(id.calls.filter((t) => t === 't2')).toHaveLength(3);
    id.refuse();
    expect(await p3).toBeNull();
    expect(await v.verify('t3')).toMatchObject({ id: 'other' }); // others untouched
  });
});

describe('admission control', () => {
  it('runs up to the limit, queues up to the queue bound in order, and sheds the rest at once', async () => {
    const shed: string[] = [];
    const gate = new Admission(
      'identity',
      { maxInFlight: 2, maxQueue: 2, maxWaitMs: 10_000 },
      { shed: (_g, why) => shed.push(why), depth: () => {} },
    );
    const releases: Array<() => void> = [];
    const started: number[] = [];
    const results = Array.from({ length: 6 }, (_, i) =>
      gate
        .run(
          () =>
            new Promise<number>((r) => {
              started.push(i);
              releases.push(() => r(i));
            }),
        )
        .then(
          (v) => `ok ${v}`,
          (e: DomainError) => `${e.code} ${e.reason}`,
        ),
    );
    await tick();
    expect(started).toEqual([0, 1]);
    expect(gate.depth).toEqual({ inFlight: 2, queued: 2 });
    expect(await results[4]).toBe('UNAVAILABLE overloaded');
    expect(await results[5]).toBe('UNAVAILABLE overloaded');
    expect(shed).toEqual(['queue_full', 'queue_full']);
    releases.shift()!();
    await tick();
    expect(started).toEqual([0, 1, 2]);
    while (releases.length) {
      releases.shift()!();
      await tick();
    }
    expect(await Promise.all(results.slice(0, 4))).toEqual(['ok 0', 'ok 1', 'ok 2', 'ok 3']);
    expect(gate.depth).toEqual({ inFlight: 0, queued: 0 });
  });

  it('sheds a queued call that waited too long', async () => {
    jest.useFakeTimers();
    try {
      const gate = new Admission('x', { maxInFlight: 1, maxQueue: 5, maxWaitMs: 100 });
      let release!: () => void;
      const first = gate.run(() => new Promise<void>((r) => (release = r)));
      const second = gate.run(async () => 'ran');
      jest.advanceTimersByTime(100);
      await expect(second).rejects.toMatchObject({ code: 'UNAVAILABLE', reason: 'overloaded' });
      release();
      await first;
      expect(gate.depth).toEqual({ inFlight: 0, queued: 0 });
    } finally {
      jest.useRealTimers();
    }
  });
});

describe('live job status', () => {
  const facts = (jobId: string, status: string, progress: number) => ({
    jobId,
    status,
    progress,
    message: '',
    outputKey: '',
    outputFilename: '',
    createdAtMs: 0,
  });

  it("serves a live job's newest status to its owner only; a finished one briefly; an older fetched answer never overrides news", () => {
    let now = 0;
    const live = new LiveJobs({ maxEntries: 100, activeTtlMs: 60_000, finishedTtlMs: 5000 }, () => now);
    live.heard('owner', facts('j', 'processing', 40));
    expect(live.get('j', 'owner')?.progress).toBe(40);
    expect(live.get('j', 'someone-else')).toBeUndefined();
    live.fetched('owner', facts('j', 'processing', 10));
    expect(live.get('j', 'owner')?.progress).toBe(40);
    live.heard('owner', facts('j', 'completed', 100));
    now = 4999;
    expect(live.get('j', 'owner')?.status).toBe('completed');
    now = 5000;
    expect(live.get('j', 'owner')).toBeUndefined();
  });

  it('never moves a job back: a late queued message after processing, or processing after the end, is old news', () => {
    const live = new LiveJobs({ maxEntries: 100, activeTtlMs: 60_000, finishedTtlMs: 5000 }, () => 0);
    live.heard('owner', facts('j', 'processing', 40));
    live.heard('owner', facts('j', 'queued', 0));
    expect(live.get('j', 'owner')?.status).toBe('processing');
    live.heard('owner', facts('j', 'processing', 55));
    expect(live.get('j', 'owner')?.progress).toBe(55);
    live.heard('owner', facts('j', 'failed', 55));
    live.heard('owner', facts('j', 'processing', 60));
    expect(live.get('j', 'owner')?.status).toBe('failed');
  });
});

describe('short cache (GET /auth/me)', () => {
  it('loads once for concurrent callers, reuses for its TTL, and an invalidation beats a load in flight', async () => {
    let now = 0;
    const cache = new ShortCache<number>(1000, 10, () => now);
    let loads = 0;
    let release!: (v: number) => void;
    const load = () => {
      loads++;
      return new Promise<number>((r) => (release = r));
    };
    const both = Promise.all([cache.get('u', load), cache.get('u', load)]);
    expect(loads).toBe(1);
    release(1);
    expect(await both).toEqual([1, 1]);
    now = 999;
    expect(await cache.get('u', load)).toBe(1);
    now = 1000;
    const next = cache.get('u', load);
    expect(loads).toBe(2);
    cache.invalidate('u'); // the credits changed while billing was answering
    release(2);
    expect(await next).toBe(2);
    const fresh = cache.get('u', load);
    expect(loads).toBe(3);
    release(3);
    expect(await fresh).toBe(3);
  });
});
