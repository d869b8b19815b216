import { categoryOf, YouTubeError, type DemoVideo, type YouTubeSource } from '../domain/demos.service.js';

export interface YouTubeOptions {
  apiKey: string;
  /** A channel id (UC...) or a handle (@name or name). */
  channel: string;
  baseUrl: string;
  timeoutMs: number;
  fetch?: typeof fetch;
}

interface ApiErrorBody {
  error?: { code?: number; message?: string; errors?: Array<{ reason?: string }> };
}

const QUOTA_REASONS = new Set(['quotaExceeded', 'dailyLimitExceeded', 'rateLimitExceeded', 'userRateLimitExceeded']);

/** ISO 8601 durations as YouTube writes them (PT1H2M3S, P1DT2H) -> seconds. */
export function isoSeconds(d: string): number {
  const m = /^P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?$/.exec(d);
  if (!m) return 0;
  return Number(m[1] ?? 0) * 86400 + Number(m[2] ?? 0) * 3600 + Number(m[3] ?? 0) * 60 + Number(m[4] ?? 0);
}

/**
 * The YouTube Data API v3: the channel (by id or handle) -> its uploads playlist -> the latest
 * uploads -> their details (duration, views). Every request has a timeout.
 * https://developers.google.com/youtube/v3/docs
 */
export class YouTubeDataApi implements YouTubeSource {
  readonly cacheKey: string;
  constructor(private readonly o: YouTubeOptions) {
    this.cacheKey = `youtube:${o.channel}`;
  }

  private async get<T>(resource: string, params: Record<string, string>): Promise<T> {
    const url = new URL(`${this.o.baseUrl.replace(/\/$/, '')}/${resource}`);
    for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
    url.searchParams.set('key', this.o.apiKey);
    let res: Response;
    try {
      res = await (this.o.fetch ?? fetch)(url, { signal: AbortSignal.timeout(this.o.timeoutMs), headers: { accept: 'application/json' } });
    } catch (e) {
      const name = (e as Error).name;
      if (name === 'TimeoutError' || name === 'AbortError')
        throw new YouTubeError('timeout', `Request timeout after ${Math.round(this.o.timeoutMs / 100) / 10} s`);
      throw new YouTubeError('api_error', `YouTube API error: ${(e as Error).message}`);
    }
    let body: unknown;
    try {
      body = await res.json();
    } catch {
      throw new YouTubeError('api_error', `YouTube API error: HTTP ${res.status} without a JSON body`);
    }
    if (!res.ok) {
      const err = (body as ApiErrorBody).error;
      const reasons = (err?.errors ?? []).map((x) => x.reason ?? '');
      if (reasons.some((r) => QUOTA_REASONS.has(r))) throw new YouTubeError('quota', 'YouTube API quota exceeded');
      throw new YouTubeError('api_error', `YouTube API error: ${err?.message ?? `HTTP ${res.status}`}`);
    }
    return body as T;
  }

  async channelVideos(max: number): Promise<DemoVideo[]> {
    const ch = this.o.channel.trim();
    const byId = /^UC[\w-]{22}$/.test(ch);
    const channels = await this.get<{ items?: Array<{ contentDetails?: { relatedPlaylists?: { uploads?: string } } }> }>('channels', {
      part: 'contentDetails',
      ...(byId ? { id: ch } : { forHandle: ch.startsWith('@') ? ch : `@${ch}` }),
    });
    const uploads = channels.items?.[0]?.contentDetails?.relatedPlaylists?.uploads;
    if (!uploads) throw new YouTubeError('channel_not_found', 'Channel not found');

    const list = await this.get<{ items?: Array<{ contentDetails?: { videoId?: string } }> }>('playlistItems', {
      part: 'contentDetails',
      playlistId: uploads,
      maxResults: String(max),
    });
    const ids = (list.items ?? []).map((i) => i.contentDetails?.videoId).filter((x): x is string => !!x);
    if (!ids.length) return [];

    const details = await this.get<{
      items?: Array<{
        id: string;
        snippet?: {
          title?: string;
          description?: string;
          publishedAt?: string;
          thumbnails?: Record<string, { url?: string } | undefined>;
        };
        contentDetails?: { duration?: string };
        statistics?: { viewCount?: string };
      }>;
    }>('videos', { part: 'snippet,contentDetails,statistics', id: ids.join(','), maxResults: String(max) });

    return (details.items ?? []).map((v) => {
      const s = v.snippet ?? {};
      const t = s.thumbnails ?? {};
      const { category, description } = categoryOf(s.description ?? '');
      const id = encodeURIComponent(v.id);
      return {
        id: v.id,
        title: s.title ?? '',
        description,
        thumbnail: t['high']?.url ?? t['medium']?.url ?? t['default']?.url ?? `https://i.ytimg.com/vi/${id}/hqdefault.jpg`,
        // YouTube's three automatic frame captures of every video.
        preview_frames: [1, 2, 3].map((n) => `https://i.ytimg.com/vi/${id}/${n}.jpg`),
        videoId: v.id,
        videoUrl: `https://www.youtube-nocookie.com/embed/${id}`,
        duration: isoSeconds(v.contentDetails?.duration ?? ''),
        views: Number(v.statistics?.viewCount ?? 0),
        category,
        publishedAt: s.publishedAt ?? '',
      };
    });
  }
}
