import path from 'node:path';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { DomainError, ErrorCode, LocalObjectStore, createMetrics } from '@reelsmith/kit';
import { quietLogger, tempDir } from '@reelsmith/kit/testing';
import type { Peers } from '../../src/repositories/clients';
import { buildHttpApp } from '../../src/transport/http/server';

const REEL = '11111111-2222-4333-8444-555555555555';
const OTHER = '11111111-2222-4333-8444-666666666666';

/** The public routes over a fake media-library and identity: what a browser gets from the showcase. */
describe('public showcase routes', () => {
  const objects = tempDir('objects');
  const store = new LocalObjectStore({ root: objects.dir, signingSecret: 'k'.repeat(32), publicUrl: 'http://localhost:8080' });
  const video = Buffer.from(Array.from({ length: 1000 }, (_, i) => i % 256));
  let views = 0;
  const viewers: string[] = [];
  const contacts: unknown[] = [];
  let app: FastifyInstance;
  let base = '';

  const entry = () => ({
    reel: {
      id: REEL,
      ownerId: 'o',
      title: 'Surf',
      description: 'Waves',
      objectKey: 'reels/o/r.mp4',
      thumbnailKey: '',
      durationSec: 12.34,
      createdAtUnixMs: 0n,
    },
    category: 'Travel',
    views: BigInt(views),
    featuredAtUnixMs: 1_700_000_000_000n,
    previewKeys: ['showcase/r/frame-1.jpg', 'showcase/r/frame-2.jpg', 'showcase/r/frame-3.jpg'],
  });
  const ratings = new Map<string, number>();
  const rating = (reelId: string, userId: string) => {
    const all = reelId === REEL ? [...ratings.values()] : [];
    return {
      reelId,
      average: all.length ? all.reduce((a, n) => a + n, 0) / all.length : 0,
      count: BigInt(all.length),
      mine: reelId === REEL ? (ratings.get(userId) ?? 0) : 0,
    };
  };
  /** Identity's stored public names (what SetDisplayName keeps, trimmed), by user id. */
  const names = new Map<string, string>([['sys', 'Reelsmith']]);
  const nameCalls: unknown[] = [];
  /** What media-library answers for the creators, most viewed first. */
  let creators: Array<{ ownerId: string; reels: bigint; featuredReels: bigint; featuredViews: bigint }> = [];
  const notFeatured = () => new DomainError(ErrorCode.NOT_FOUND, 'This reel is not in the showcase.', 'not_featured');
  const peers = {
    identity: {
      authenticate: async ({ sessionToken }: { sessionToken: string }) => {
        if (sessionToken !== 'user') throw new DomainError(ErrorCode.UNAUTHENTICATED, 'no', 'unauthenticated');
        return {
          user: { id: 'u', email: 'u@example.com', isAdmin: false, isGuest: false, unlimited: false, displayName: names.get('u') ?? '' },
        };
      },
      setDisplayName: async ({ userId, displayName }: { userId: string; displayName: string }) => {
        nameCalls.push({ userId, displayName });
        if (displayName.trim()) names.set(userId, displayName.trim());
        else names.delete(userId);
        return {
          user: {
            id: userId,
            email: 'u@example.com',
            isAdmin: false,
            isGuest: false,
            unlimited: false,
            emailVerified: true,
            displayName: names.get(userId) ?? '',
          },
        };
      },
      getPublicNames: async ({ userIds }: { userIds: string[] }) => ({
        names: userIds.filter((id) => names.has(id)).map((userId) => ({ userId, displayName: names.get(userId)! })),
      }),
      submitContact: async (req: unknown) => (contacts.push(req), {}),
    },
    media: {
      listShowcase: async ({ category }: { category: string }) => ({
        entries: category && category !== 'Travel' ? [] : [entry()],
        categories: ['Travel'],
      }),
      getShowcaseEntry: async ({ reelId }: { reelId: string }) => {
        if (reelId !== REEL) throw notFeatured();
        return entry();
      },
      // Counts once per viewer, as media-library does within its hour: what matters here is who the gateway says played.
      countShowcaseView: async ({ viewer }: { viewer: string }) => {
        const counted = !viewers.includes(viewer);
        viewers.push(viewer);
        return { views: BigInt(counted ? ++views : views), counted };
      },
      getShowcaseStats: async () => ({ totalReels: 7n, activeCreators30d: 3n }),
      listShowcaseCreators: async () => ({ creators }),
      // One rating per user, as media-library keeps them: rating again replaces.
      rateShowcaseReel: async ({ reelId, userId, stars }: { reelId: string; userId: string; stars: number }) => {
        if (reelId !== REEL) throw notFeatured();
        ratings.set(userId, stars);
        return rating(reelId, userId);
      },
      getShowcaseRatings: async ({ reelIds, userId }: { reelIds: string[]; userId: string }) => ({
        ratings: reelIds.map((id) => rating(id, userId)),
      }),
    },
    billing: { getAccount: async () => ({}) },
    close: () => undefined,
  } as unknown as Peers;

  beforeAll(async () => {
    await store.put('reels/o/r.mp4', video);
    await store.put('showcase/r/frame-2.jpg', Buffer.from('jpeg'));
    app = await buildHttpApp({
      log: quietLogger(),
      metrics: createMetrics('gateway'),
      webDist: path.join(objects.dir, 'none'),
      health: { report: async () => ({}) as never },
      peers,
      store,
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  });

  /** A real HTTP request (light-my-request's inject cannot load under jest). */
  const call = async (o: string | { method?: string; url: string; headers?: Record<string, string>; payload?: unknown }) => {
    const r = typeof o === 'string' ? { url: o } : o;
    const res = await fetch(base + r.url, {
      method: r.method ?? 'GET',
      headers: { ...(r.payload ? { 'content-type': 'application/json' } : {}), ...r.headers },
      body: r.payload ? JSON.stringify(r.payload) : undefined,
      redirect: 'manual',
    });
    const raw = Buffer.from(await res.arrayBuffer());
    return {
      statusCode: res.status,
      headers: Object.fromEntries([...(res.headers as unknown as Iterable<[string, string]>)]),
      rawPayload: raw,
      body: raw.toString(),
      json: () => JSON.parse(raw.toString()) as Record<string, unknown> & { videos: unknown[] },
    };
  };
  afterAll(async () => {
    await app.close();
    objects.remove();
  });

  it('lists the showcase as demos and featured videos, with the stats', async () => {
    const demos = await call('/api/v1/demos');
    expect(demos.statusCode).toBe(200);
    expect(demos.json()).toEqual({
      source: 'showcase',
      categories: ['Travel'],
      videos: [
        {
          id: REEL,
          videoId: REEL,
          title: 'Surf',
          description: 'Waves',
          category: 'Travel',
          duration: 12.3,
          views: 0,
          thumbnail: `/api/v1/showcase/${REEL}/frames/2`,
          preview_frames: [1, 2, 3].map((n) => `/api/v1/showcase/${REEL}/frames/${n}`),
          videoUrl: `/api/v1/showcase/${REEL}/video`,
          publishedAt: new Date(1_700_000_000_000).toISOString(),
        },
      ],
    });
    expect((await call('/api/v1/demos?category=Sports')).json().videos).toEqual([]);
    expect((await call('/api/v1/featured?limit=15')).json().videos).toHaveLength(1);
    expect((await call('/api/v1/featured?limit=0')).statusCode).toBe(400);
    expect((await call('/api/v1/showcase/stats')).json()).toEqual({ total_reels: 7, active_creators: 3 });
  });

  it('streams a featured reel without sign-in, whole or by range, and counts plays', async () => {
    const whole = await call(`/api/v1/showcase/${REEL}/video`);
    expect(whole.statusCode).toBe(200);
    expect(whole.headers['accept-ranges']).toBe('bytes');
    expect(whole.headers['content-type']).toBe('video/mp4');
    expect(whole.headers['cache-control']).toBe('public, max-age=300');
    expect(whole.rawPayload.equals(video)).toBe(true);

    const part = await call({ url: `/api/v1/showcase/${REEL}/video`, headers: { range: 'bytes=100-199' } });
    expect(part.statusCode).toBe(206);
    expect(part.headers['content-range']).toBe('bytes 100-199/1000');
    expect(part.rawPayload.equals(video.subarray(100, 200))).toBe(true);
    const bad = await call({ url: `/api/v1/showcase/${REEL}/video`, headers: { range: 'bytes=5000-' } });
    expect(bad.statusCode).toBe(416);
    expect(bad.headers['content-range']).toBe('bytes */1000');
    expect(bad.json()).toMatchObject({ code: 'range_not_satisfiable' });

    expect((await call(`/api/v1/showcase/${OTHER}/video`)).statusCode).toBe(404);
    expect((await call(`/api/v1/showcase/${REEL}/frames/2`)).body).toBe('jpeg');
    expect((await call(`/api/v1/showcase/${REEL}/frames/4`)).statusCode).toBe(400);

    const play = (headers: Record<string, string> = {}) => call({ method: 'POST', url: `/api/v1/showcase/${REEL}/play`, headers });
    const firefox = { 'user-agent': 'Firefox' };
    expect((await play(firefox)).json()).toEqual({ views: 1, counted: true });
    expect((await play(firefox)).json()).toEqual({ views: 1, counted: false });
    expect((await play({ 'user-agent': 'Safari' })).json()).toEqual({ views: 2, counted: true });
    expect((await play({ ...firefox, authorization: 'Bearer user' })).json()).toEqual({ views: 3, counted: true });
    expect((await play({ 'user-agent': 'Chrome', authorization: 'Bearer user' })).json()).toEqual({ views: 3, counted: false });
    // Anonymous viewers are a hash of address and browser, never the raw address; a signed-in one is the account.
    expect(viewers[0]).toMatch(/^anon:[0-9a-f]{64}$/);
    expect(viewers[0]).toBe(viewers[1]);
    expect(viewers[2]).not.toBe(viewers[0]);
    expect(viewers.slice(3)).toEqual(['user:u', 'user:u']);
    expect(viewers.join()).not.toContain('127.0.0.1');
  });

  it('keeps sharing, featuring and the inbox behind sign-in and admin rights; contact passes the honeypot on', async () => {
    expect((await call({ method: 'PUT', url: `/api/v1/library/${REEL}/showcase`, payload: { shared: true } })).statusCode).toBe(401);
    const asUser = { authorization: 'Bearer user' };
    expect(
      (await call({ method: 'PUT', url: `/api/v1/admin/showcase/${REEL}`, headers: asUser, payload: { category: 'Travel' } })).statusCode,
    ).toBe(403);
    expect((await call({ url: '/api/v1/admin/contact', headers: asUser })).statusCode).toBe(403);
    for (const url of ['/api/v1/admin/showcase', '/api/v1/admin/showcase/:id', '/api/v1/admin/contact'])
      expect(app.adminRoutes.some((r) => r.url === url)).toBe(true);

    const sent = await call({
      method: 'POST',
      url: '/api/v1/contact',
      payload: { name: 'Ada', email: 'ada@example.com', topic: 'Billing', message: 'A question about packs', website: 'spam' },
    });
    expect(sent.statusCode).toBe(200);
    expect(contacts).toEqual([expect.objectContaining({ email: 'ada@example.com', honeypot: 'spam', topic: 'Billing' })]);
    expect(
      (await call({ method: 'POST', url: '/api/v1/contact', payload: { name: 'A', email: 'a@b.co', topic: 'Other', message: 'x' } }))
        .statusCode,
    ).toBe(400);
  });

  it("rates a featured reel only when signed in, 1 to 5 stars, and answers the ratings with the caller's own", async () => {
    const asUser = { authorization: 'Bearer user' };
    const rate = (stars: unknown, headers: Record<string, string> = asUser, id = REEL) =>
      call({ method: 'PUT', url: `/api/v1/showcase/${id}/rating`, headers, payload: { stars } });
    expect((await rate(4, {})).statusCode).toBe(401);
    for (const bad of [0, 6, 2.5, '5']) expect((await rate(bad)).statusCode).toBe(400);
    expect((await rate(3, asUser, '00000000-0000-4000-8000-000000000000')).statusCode).toBe(404);
    const first = await rate(5);
    expect(first.statusCode).toBe(200);
    expect(first.json()).toEqual({ reel_id: REEL, average: 5, count: 1, mine: 5 });
    expect((await rate(2)).json()).toEqual({ reel_id: REEL, average: 2, count: 1, mine: 2 });
    // Anyone reads the figures; only a signed-in caller gets their own stars.
    expect((await call(`/api/v1/showcase/ratings?ids=${REEL}`)).json()).toEqual({
      ratings: [{ reel_id: REEL, average: 2, count: 1, mine: 0 }],
    });
    expect((await call({ url: `/api/v1/showcase/ratings?ids=${REEL}`, headers: asUser })).json()).toEqual({
      ratings: [{ reel_id: REEL, average: 2, count: 1, mine: 2 }],
    });
  });

  it('creator cards: accounts behind the showcase that chose a public name, most viewed first, at most three; never an e-mail or an id', async () => {
    const c = (ownerId: string, reels: number, featuredReels: number, featuredViews: number) => ({
      ownerId,
      reels: BigInt(reels),
      featuredReels: BigInt(featuredReels),
      featuredViews: BigInt(featuredViews),
    });
    creators = [];
    const none = await call('/api/v1/showcase/creators');
    expect(none.statusCode).toBe(200);
    expect(none.json()).toEqual({ creators: [] });

    names.set('ann', 'Ann Lee');
    names.set('cat', 'Cat');
    names.set('dan', 'Dan');
    // "anon" chose no name: left out, and the next named account takes its place.
    creators = [c('ann', 9, 2, 40), c('anon', 3, 1, 30), c('sys', 12, 6, 25), c('cat', 1, 1, 4), c('dan', 5, 1, 2)];
    const r = await call('/api/v1/showcase/creators');
    expect(r.statusCode).toBe(200);
    expect(r.headers['cache-control']).toBe('public, max-age=60');
    expect(r.json()).toEqual({
      creators: [
        { display_name: 'Ann Lee', reels: 9, featured_reels: 2, views: 40 },
        { display_name: 'Reelsmith', reels: 12, featured_reels: 6, views: 25 },
        { display_name: 'Cat', reels: 1, featured_reels: 1, views: 4 },
      ],
    });
    expect(r.body).not.toMatch(/@|anon|ownerId|owner_id/);
    expect((await call('/api/v1/showcase/creators?limit=1')).json()).toEqual({
      creators: [{ display_name: 'Ann Lee', reels: 9, featured_reels: 2, views: 40 }],
    });
    expect((await call('/api/v1/showcase/creators?limit=0')).statusCode).toBe(400);
    creators = [];
    names.delete('ann');
    names.delete('cat');
    names.delete('dan');
  });

  it('a signed-in user sets and clears their public name; /auth/me shows it at once', async () => {
    const asUser = { authorization: 'Bearer user' };
    const patch = (payload: unknown, headers: Record<string, string> = asUser) =>
      call({ method: 'PATCH', url: '/api/v1/auth/me', headers, payload });
    const me = async () =>
      ((await call({ url: '/api/v1/auth/me', headers: asUser })).json().user as { display_name: string | null }).display_name;
    expect((await patch({ display_name: 'Ann' }, {})).statusCode).toBe(401);
    expect(await me()).toBeNull();

    // The text rule normalises to NFC; identity trims.
    const set = await patch({ display_name: '  Zoe\u0308 Lee ' });
    expect(set.statusCode).toBe(200);
    expect((set.json().user as { display_name: string }).display_name).toBe('Zo\u00eb Lee');
    expect(nameCalls.at(-1)).toEqual({ userId: 'u', displayName: '  Zo\u00eb Lee ' });
    expect(await me()).toBe('Zo\u00eb Lee');
    expect((await patch({ display_name: '\u{1F3AC}'.repeat(40) })).statusCode).toBe(200);

    const cleared = await patch({ display_name: null });
    expect(cleared.statusCode).toBe(200);
    expect((cleared.json().user as { display_name: null }).display_name).toBeNull();
    expect(nameCalls.at(-1)).toEqual({ userId: 'u', displayName: '' });
    expect(await me()).toBeNull();
  });

  it.each([
    ['empty', { display_name: '' }, 'must not be empty'],
    ['only spaces', { display_name: '   ' }, 'must not be empty'],
    ['41 characters', { display_name: 'x'.repeat(41) }, 'at most 40 characters'],
    ['a very long string', { display_name: 'x'.repeat(100_000) }, 'at most 40 characters'],
    ['a NUL', { display_name: 'Ann\u0000' }, 'control characters'],
    ['a line break', { display_name: 'Ann\nLee' }, 'control characters'],
    ['an escape sequence', { display_name: '\u001b[31mAnn' }, 'control characters'],
    ['a right-to-left override', { display_name: 'Ann\u202egpj.exe' }, 'direction-changing'],
    ['a zero-width joiner', { display_name: 'A\u200dnn' }, 'invisible'],
    ['a lone surrogate', { display_name: 'Ann\ud800' }, 'valid Unicode'],
    ['a number', { display_name: 42 }, ''],
    ['an object', { display_name: { $ne: null } }, ''],
    ['a missing field', {}, ''],
    ['an extra field', { display_name: 'Ann', email: 'x@example.com' }, ''],
  ])('refuses a public name with %s: 400 {detail, code}, identity never asked', async (_what, payload, why) => {
    const before = nameCalls.length;
    const r = await call({ method: 'PATCH', url: '/api/v1/auth/me', headers: { authorization: 'Bearer user' }, payload });
    expect(r.statusCode).toBe(400);
    const body = r.json();
    expect(Object.keys(body).sort()).toEqual(['code', 'detail']);
    expect(['invalid_text', 'invalid_request']).toContain(body.code);
    expect(body.detail).toContain(why);
    expect(nameCalls.length).toBe(before);
  });
});
