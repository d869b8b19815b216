import { configureStore } from '@reduxjs/toolkit';
import { RECONNECT_ATTEMPTS, handshakeFailure, reconnectDelay } from '../../src/features/assembly/reconnect';

describe('socket reconnection', () => {
  it('waits about 3 s, spread by a random share, so reconnects do not arrive in lockstep', () => {
    expect(reconnectDelay(() => 0)).toBe(2250);
    expect(reconnectDelay(() => 0.5)).toBe(3000);
    expect(reconnectDelay(() => 1)).toBe(3750);
    let seed = 7;
    const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
    const delays = Array.from({ length: 1000 }, () => reconnectDelay(random));
    expect(Math.min(...delays)).toBeGreaterThanOrEqual(2250);
    expect(Math.max(...delays)).toBeLessThanOrEqual(3750);
    // Spread out: no 100 ms window holds more than a fifth of 1,000 clients.
    const buckets = new Map<number, number>();
    for (const d of delays) buckets.set(Math.floor(d / 100), (buckets.get(Math.floor(d / 100)) ?? 0) + 1);
    expect(Math.max(...buckets.values())).toBeLessThan(200);
    expect(new Set(delays).size).toBeGreaterThan(500);
  });

  it("waits at least the server's retry hint after `busy`", () => {
    expect(reconnectDelay(() => 0, 5000)).toBe(5000);
    expect(reconnectDelay(() => 1, 5000)).toBe(7500);
  });

  it('gives up after the spec’s 5 attempts', () => expect(RECONNECT_ATTEMPTS).toBe(5));

  it('only `unauthorized` means signed out; `busy` or anything else keeps the session', () => {
    expect(handshakeFailure('unauthorized')).toBe('signed_out');
    expect(handshakeFailure('busy')).toBe('retry');
    expect(handshakeFailure('websocket error')).toBe('retry');
  });
});

describe('REST answers and the session', () => {
  const stored: Record<string, string> = {};
  beforeAll(() => {
    (globalThis as { localStorage?: unknown }).localStorage = {
      getItem: (k: string) => stored[k] ?? null,
      setItem: (k: string, v: string) => void (stored[k] = v),
      removeItem: (k: string) => void delete stored[k],
    };
  });

  it('keeps the session on 503 (overloaded) and ends it on 401', async () => {
    const { api } = await import('../../src/base/api');
    const { session, signedIn } = await import('../../src/base/session');
    let status = 503;
    (globalThis as { fetch: unknown }).fetch = async () =>
      new Response(JSON.stringify({ detail: 'Service temporarily unavailable, please retry', code: 'unavailable' }), {
        status,
        headers: { 'content-type': 'application/json', 'retry-after': '5' },
      });
    const probe = api.injectEndpoints({ endpoints: (b) => ({ me: b.query<unknown, void>({ query: () => 'http://x/api/v1/auth/me' }) }) });
    const store = configureStore({
      reducer: { [api.reducerPath]: api.reducer, session: session.reducer },
      middleware: (d) => d().concat(api.middleware),
    });
    store.dispatch(signedIn('tok'));
    await store.dispatch(probe.endpoints.me.initiate(undefined, { forceRefetch: true }));
    expect(store.getState().session.token).toBe('tok');
    status = 401;
    await store.dispatch(probe.endpoints.me.initiate(undefined, { forceRefetch: true }));
    expect(store.getState().session.token).toBeNull();
  });
});
