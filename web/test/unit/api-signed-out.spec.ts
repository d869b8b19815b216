import { configureStore } from '@reduxjs/toolkit';
import { api } from '../../src/base/api';
import { session, signedIn } from '../../src/base/session';

// A 401 signs the user out and drops every cached answer, as the user menu's Sign out does.
describe('a 401 from the API', () => {
  const keys = api.injectEndpoints({
    endpoints: (b) => ({
      testApiKeys: b.query<{ keys: string[] }, void>({ query: () => '/api-keys' }),
      testMe: b.query<unknown, void>({ query: () => '/me' }),
    }),
  });
  const realFetch = globalThis.fetch;
  const RealRequest = globalThis.Request;
  let status = 200;

  beforeAll(() => {
    const items = new Map<string, string>();
    (globalThis as { localStorage?: unknown }).localStorage = {
      getItem: (k: string) => items.get(k) ?? null,
      setItem: (k: string, v: string) => void items.set(k, v),
      removeItem: (k: string) => void items.delete(k),
    };
    // The client's URLs are relative to the page; in the test they are relative to a made-up origin.
    globalThis.Request = class extends RealRequest {
      constructor(input: RequestInfo | URL, init?: RequestInit) {
        super(typeof input === 'string' ? new URL(input, 'http://reelsmith.test') : input, init);
      }
    } as typeof Request;
    globalThis.fetch = (async () =>
      status === 200
        ? new Response(JSON.stringify({ keys: ['rs_live_previous_user'] }), {
            status: 200,
            headers: { 'content-type': 'application/json' },
          })
        : new Response(JSON.stringify({ code: 'unauthenticated', detail: 'Sign in again.' }), {
            status: 401,
            headers: { 'content-type': 'application/json' },
          })) as typeof fetch;
  });
  afterAll(() => {
    globalThis.fetch = realFetch;
    globalThis.Request = RealRequest;
    delete (globalThis as { localStorage?: unknown }).localStorage;
  });

  it("clears the session token and the cache, so the previous user's API keys are gone", async () => {
    const store = configureStore({
      reducer: { [api.reducerPath]: api.reducer, session: session.reducer },
      middleware: (getDefault) => getDefault().concat(api.middleware),
    });
    store.dispatch(signedIn('token-of-user-a'));
    await store.dispatch(keys.endpoints.testApiKeys.initiate());
    expect(keys.endpoints.testApiKeys.select()(store.getState()).data).toEqual({ keys: ['rs_live_previous_user'] });

    status = 401;
    await store.dispatch(keys.endpoints.testMe.initiate());
    expect(store.getState().session.token).toBeNull();
    expect(keys.endpoints.testApiKeys.select()(store.getState()).data).toBeUndefined();
    expect(JSON.stringify(store.getState().api)).not.toContain('rs_live_previous_user');
  });
});
