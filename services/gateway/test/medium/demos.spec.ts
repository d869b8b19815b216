import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { migrate, openDatabase, readMigrations, type Database } from '@reelsmith/kit';
import { createTestDatabase, type TestDatabase } from '@reelsmith/kit/testing';
import { DEMO_CACHE_MS, DemosService, type DemoVideo, type ShowcaseSource } from '../../src/domain/demos.service';
import { DbDemoCache } from '../../src/repositories/demo-cache.repository';
import { YouTubeDataApi, isoSeconds } from '../../src/repositories/youtube';

const CHANNEL_ID = 'UCabcdefghijklmnopqrstuv';

/**
 * A local stand-in for the YouTube Data API v3 answering the documented shapes: channels (by id
 * or handle), playlistItems, videos, and the documented error body; it can be told to fail.
 */
function standIn() {
  const state = { mode: 'ok' as 'ok' | 'quota' | 'slow' | 'no_channel' | 'bad_key', requests: [] as string[] };
  const server = http.createServer((req, res) => {
    const url = new URL(req.url!, 'http://x');
    state.requests.push(url.pathname);
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (state.mode === 'slow') {
      // Answers after 4 s, unless the client gave up first.
      const late = setTimeout(() => json(200, { items: [] }), 4000);
      return void res.on('close', () => clearTimeout(late));
    }
    if (state.mode === 'quota')
      return json(403, {
        error: {
          code: 403,
          message: 'The request cannot be completed because you have exceeded your quota.',
          errors: [{ message: 'quota', domain: 'youtube.quota', reason: 'quotaExceeded' }],
        },
      });
    if (state.mode === 'bad_key')
      return json(400, {
        error: { code: 400, message: 'API key not valid. Please pass a valid API key.', errors: [{ reason: 'badRequest' }] },
      });
    if (url.searchParams.get('key') !== 'test-key')
      return json(403, { error: { code: 403, message: 'forbidden', errors: [{ reason: 'forbidden' }] } });
    if (url.pathname === '/youtube/v3/channels') {
      const found =
        state.mode !== 'no_channel' && (url.searchParams.get('id') === CHANNEL_ID || url.searchParams.get('forHandle') === '@reelsmith');
      return json(200, {
        kind: 'youtube#channelListResponse',
        pageInfo: { totalResults: found ? 1 : 0 },
        ...(found ? { items: [{ id: CHANNEL_ID, contentDetails: { relatedPlaylists: { uploads: 'UUuploads' } } }] } : {}),
      });
    }
    if (url.pathname === '/youtube/v3/playlistItems') {
      expect(url.searchParams.get('playlistId')).toBe('UUuploads');
      expect(url.searchParams.get('maxResults')).toBe('20');
      return json(200, { items: ['v1', 'v2', 'v3'].map((id) => ({ contentDetails: { videoId: id } })) });
    }
    if (url.pathname === '/youtube/v3/videos') {
      const details: Record<string, [string, string, string]> = {
        v1: ['Surf day', 'Waves at dawn {Travel}', 'PT1M5S'],
        v2: ['Final whistle', 'The last minute {Sports}', 'PT45S'],
        v3: ['Untitled', 'No braces here', 'PT1H2M3S'],
      };
      const ids = url.searchParams.get('id')!.split(',');
      return json(200, {
        items: ids.map((id, i) => ({
          id,
          snippet: {
            title: details[id]![0],
            description: details[id]![1],
            publishedAt: `2026-0${i + 1}-01T00:00:00Z`,
            thumbnails: { high: { url: `https://i.ytimg.com/vi/${id}/hqdefault.jpg` } },
          },
          contentDetails: { duration: details[id]![2] },
          statistics: { viewCount: String((i + 1) * 100) },
        })),
      });
    }
    json(404, { error: { code: 404, message: 'not found' } });
  });
  return { server, state };
}

const showcaseVideo: DemoVideo = {
  id: 'r1',
  title: 'A showcase reel',
  description: '',
  thumbnail: '/api/v1/showcase/r1/thumbnail',
  preview_frames: [],
  videoId: 'r1',
  videoUrl: '/api/v1/showcase/r1/video',
  duration: 12,
  views: 3,
  category: 'Demo',
  publishedAt: '2026-01-01T00:00:00.000Z',
};
const showcase: ShowcaseSource = { list: async () => ({ videos: [showcaseVideo], categories: ['Demo'] }) };

describe('demo gallery: YouTube mode against a local stand-in, cached in the gateway database', () => {
  let pg: TestDatabase;
  let db: Database;
  let yt: ReturnType<typeof standIn>;
  let base: string;
  let now: Date;

  beforeAll(async () => {
    pg = await createTestDatabase('demos');
    db = await openDatabase({ url: pg.url, pgliteDir: '', poolSize: 4 });
    await migrate(db, readMigrations(path.join(__dirname, '..', '..', 'migrations')));
    yt = standIn();
    await new Promise<void>((r) => yt.server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(yt.server.address() as AddressInfo).port}/youtube/v3`;
  });
  afterAll(async () => {
    yt.server.closeAllConnections();
    await new Promise((r) => yt.server.close(r));
    await db?.close();
    await pg?.drop();
  });

  /** A gateway replica: its own service object, the shared database cache. */
  const replica = (channel: string, timeoutMs = 2000) =>
    new DemosService({
      youtube: new YouTubeDataApi({ apiKey: 'test-key', channel, baseUrl: base, timeoutMs }),
      cache: new DbDemoCache(db),
      showcase,
      now: () => now,
    });

  it('fetches the channel once an hour for every replica, and falls back to the last good copy on quota errors and timeouts', async () => {
    now = new Date('2026-11-23T10:00:00Z');
    yt.state.mode = 'ok';
    const a = await replica('@reelsmith').demos('');
    expect(a.source).toBe('youtube');
    expect(a.fallback_reason).toBeUndefined();
    expect(a.categories).toEqual(['Sports', 'Travel', 'Uncategorized']);
    const surf = a.videos.find((v) => v.id === 'v1')!;
    expect(surf).toMatchObject({ title: 'Surf day', description: 'Waves at dawn', category: 'Travel', duration: 65, views: 100 });
    expect(surf.videoUrl).toBe('https://www.youtube-nocookie.com/embed/v1');
    expect(surf.preview_frames).toHaveLength(3);
    expect(yt.state.requests).toEqual(['/youtube/v3/channels', '/youtube/v3/playlistItems', '/youtube/v3/videos']);

    // Another replica within the hour: served from the shared cache, no request to YouTube.
    now = new Date(now.getTime() + DEMO_CACHE_MS - 1000);
    const b = replica('@reelsmith');
    expect((await b.demos('Sports')).videos.map((v) => v.title)).toEqual(['Final whistle']);
    expect((await b.featured(2)).videos.map((v) => v.views)).toEqual([300, 200]);
    expect(yt.state.requests).toHaveLength(3);

    // An hour later YouTube's quota is spent: the last good copy, and the page is told why.
    now = new Date(now.getTime() + 2000);
    yt.state.mode = 'quota';
    const c = await b.demos('');
    expect(c.source).toBe('youtube');
    expect(c.videos).toHaveLength(3);
    expect(c.fallback_reason).toMatch(/^YouTube API quota exceeded\. Showing the videos fetched at 2026-11-23T10:00:00/);
    expect(yt.state.requests).toHaveLength(4);

    // A timeout (the stand-in answers after 4 s; the limit is 2 s here, 10 s by default: 0.4 s
    // was once too short for the first answer of the stand-in on a busy machine).
    yt.state.mode = 'slow';
    const started = Date.now();
    const d = await b.featured(15);
    expect(Date.now() - started).toBeLessThan(3800);
    expect(d).toMatchObject({ source: 'youtube', fallback_reason: expect.stringMatching(/^Request timeout after 2 s\./) });

    // YouTube answers again: a fresh copy replaces the cached one.
    yt.state.mode = 'ok';
    const e = await b.demos('');
    expect(e.fallback_reason).toBeUndefined();
    expect(e.fetched_at).toBe(now.toISOString());
  });

  it('without any good copy, a missing channel or an API error serves the showcase and says so', async () => {
    yt.state.mode = 'no_channel';
    const a = await replica(CHANNEL_ID).demos('');
    expect(a).toMatchObject({ source: 'showcase', videos: [showcaseVideo], categories: ['Demo'] });
    expect(a.fallback_reason).toBe("Channel not found. Showing Reelsmith's own showcase.");
    yt.state.mode = 'bad_key';
    const b = await replica('@someone-else').featured(15);
    expect(b.source).toBe('showcase');
    expect(b.fallback_reason).toBe("YouTube API error: API key not valid. Please pass a valid API key.. Showing Reelsmith's own showcase.");
  });

  it('without a key the showcase alone is served, filtered by category', async () => {
    const calls: string[] = [];
    const svc = new DemosService({
      youtube: null,
      cache: new DbDemoCache(db),
      showcase: { list: async (c, limit, order) => (calls.push(`${c}|${limit}|${order}`), { videos: [], categories: ['Demo'] }) },
    });
    expect(await svc.demos('Demo')).toEqual({ videos: [], categories: ['Demo'], source: 'showcase' });
    expect(await svc.featured(15)).toEqual({ videos: [], source: 'showcase' });
    expect(calls).toEqual(['|20|recent', 'Demo|20|recent', '|15|views']);
  });

  it('reads YouTube durations', () => {
    expect(isoSeconds('PT1H2M3S')).toBe(3723);
    expect(isoSeconds('P1DT1S')).toBe(86401);
    expect(isoSeconds('bogus')).toBe(0);
  });
});
