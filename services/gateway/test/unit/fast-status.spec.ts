import type { IncomingMessage, ServerResponse } from 'node:http';
import type { CachedStatus } from '../../src/domain/finished-jobs';
import type { Caller } from '../../src/domain/sessions';
import { finishedStatusFastPath } from '../../src/transport/http/fast-status';

const JOB = '5f73608b-1ae2-4a84-8368-80614571c22d';
const URL = `/api/v1/jobs/${JOB}/status`;
const VIEW: CachedStatus = {
  view: { job_id: JOB, status: 'completed' } as CachedStatus['view'],
  json: '{"job_id":"5f73608b-1ae2-4a84-8368-80614571c22d","status":"completed","download_url":"https://x/é"}',
  etag: '"abc"',
  maxAgeSec: 0,
};

/** A fast path over one session ('token': user u1, 'key': an API key of u1) and u1's one finished job. */
function setup() {
  const observed: Array<[number, number]> = [];
  let open = true;
  const callers: Record<string, Caller> = {
    token: { id: 'u1', email: 'u1@example.com', isAdmin: false, isGuest: false, unlimited: false } as Caller,
    key: { id: 'u1', email: 'u1@example.com', isAdmin: false, isGuest: false, unlimited: false, apiKey: { id: 'k1' } } as unknown as Caller,
  };
  const hits = { counted: 0, lookups: [] as boolean[] };
  const fast = finishedStatusFastPath({
    sessions: {
      cached: (t, count) => {
        hits.lookups.push(count ?? true);
        return callers[t];
      },
      countHit: () => void hits.counted++,
    },
    finished: { get: (id, owner) => (id === JOB && owner === 'u1' ? VIEW : undefined), holds: (id) => id === JOB },
    securityHeaders: [
      ['content-security-policy', "default-src 'none'"],
      ['x-frame-options', 'DENY'],
    ],
    requestId: (req) => (req.headers['x-request-id'] as string | undefined) ?? 'generated-id',
    observe: (status, ms) => observed.push([status, ms]),
    open: () => open,
  });
  const call = (method: string, url: string, headers: Record<string, string>) => {
    const sent: { status?: number; headers?: string[]; body?: string } = {};
    const res = {
      writeHead: (status: number, h: string[]) => Object.assign(sent, { status, headers: h }),
      end: (body?: string) => Object.assign(sent, { body: body ?? '' }),
    } as unknown as ServerResponse;
    const answered = fast({ method, url, headers } as IncomingMessage, res);
    const h = new Map<string, string>();
    for (let i = 0; sent.headers && i < sent.headers.length; i += 2) h.set(sent.headers[i]!, sent.headers[i + 1]!);
    return { answered, status: sent.status, headers: h, body: sent.body };
  };
  return { call, observed, hits, close: () => (open = false) };
}

describe('the poll of a finished job answered before the routing (fast-status.ts)', () => {
  it("answers the owner's cached view with its ETag, the security headers and the request id, and counts it", () => {
    const { call, observed, hits } = setup();
    const r = call('GET', URL, { authorization: 'Bearer token', 'x-request-id': 'abc-123' });
    expect(r.answered).toBe(true);
    expect(r.status).toBe(200);
    expect(r.body).toBe(VIEW.json);
    expect(r.headers.get('content-length')).toBe(String(Buffer.byteLength(VIEW.json))); // bytes, not characters
    expect(r.headers.get('etag')).toBe('"abc"');
    expect(r.headers.get('cache-control')).toBe('private, max-age=0');
    expect(r.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(r.headers.get('x-frame-options')).toBe('DENY');
    expect(r.headers.get('x-request-id')).toBe('abc-123');
    expect(r.headers.get('x-trace-id')).toMatch(/^[0-9a-f]{32}$/);
    expect(observed.map(([s]) => s)).toEqual([200]);
    // The session cache's hit is counted once, by the fast path (its lookup was not counted).
    expect(hits).toEqual({ counted: 1, lookups: [false] });
  });

  it('answers 304 with no body to a matching If-None-Match', () => {
    const { call, observed } = setup();
    const r = call('GET', URL, { authorization: 'Bearer token', 'if-none-match': 'W/"abc"' });
    expect(r.answered).toBe(true);
    expect(r.status).toBe(304);
    expect(r.body).toBe('');
    expect(r.headers.has('content-length')).toBe(false);
    expect(r.headers.get('etag')).toBe('"abc"');
    expect(observed.map(([s]) => s)).toEqual([304]);
  });

  it.each([
    ['HEAD', 'GET only', 'HEAD', URL, { authorization: 'Bearer token' }],
    ['a query string', 'the route parses it', 'GET', `${URL}?x=1`, { authorization: 'Bearer token' }],
    ['a trailing slash', 'the router decides', 'GET', `${URL}/`, { authorization: 'Bearer token' }],
    ['another route', 'same length', 'GET', `/api/v1/jobs/${JOB}/statuz`, { authorization: 'Bearer token' }],
    ['no session', 'the route answers 401', 'GET', URL, {}],
    ['a session this replica has not verified', 'identity is asked', 'GET', URL, { authorization: 'Bearer unknown' }],
    ['an API key', 'its scope and rate limit are checked by the app', 'GET', URL, { authorization: 'Bearer key' }],
    [
      "another user's job",
      'not in the cache for this owner',
      'GET',
      `/api/v1/jobs/${JOB.replace('5', '6')}/status`,
      { authorization: 'Bearer token' },
    ],
  ])('leaves %s to the app (%s)', (_what, _why, method, url, headers) => {
    const { call, observed, hits } = setup();
    const r = call(method as string, url as string, headers as Record<string, string>);
    expect(r.answered).toBe(false);
    expect(r.status).toBeUndefined();
    expect(observed).toEqual([]);
    // The auth hook counts its own lookup of the session: none is counted here.
    expect(hits.counted).toBe(0);
    expect(hits.lookups.every((counted) => !counted)).toBe(true);
  });

  it("leaves a live job's poll to the app without looking the session up", () => {
    const { call, hits } = setup();
    const live = JOB.replace('5f', '7a');
    expect(call('GET', `/api/v1/jobs/${live}/status`, { authorization: 'Bearer token' }).answered).toBe(false);
    expect(hits.lookups).toEqual([]);
  });

  it('leaves every request to the app once the app is closing (it answers 503 then)', () => {
    const { call, close } = setup();
    expect(call('GET', URL, { authorization: 'Bearer token' }).answered).toBe(true);
    close();
    expect(call('GET', URL, { authorization: 'Bearer token' }).answered).toBe(false);
  });
});
