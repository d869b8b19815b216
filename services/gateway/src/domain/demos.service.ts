/**
 * The demo gallery and the Hall of Fame's videos: from the YouTube channel when one is configured
 * (cached one hour for every replica, last good copy on failure), otherwise from the showcase.
 */

export interface DemoVideo {
  id: string;
  title: string;
  description: string;
  thumbnail: string;
  preview_frames: string[];
  videoId: string;
  /** The MP4 stream of a showcase reel, or the privacy-enhanced embedded player of a YouTube video. */
  videoUrl: string;
  /** Seconds. */
  duration: number;
  views: number;
  category: string;
  publishedAt: string;
}

export type DemoSourceName = 'youtube' | 'showcase';

export interface DemoList {
  videos: DemoVideo[];
  categories: string[];
  source: DemoSourceName;
  /** Set when YouTube failed: why, and what is shown instead (the last good copy or the showcase). */
  fallback_reason?: string;
  /** When the YouTube videos shown were fetched. */
  fetched_at?: string;
}

export type YouTubeFailure = 'timeout' | 'quota' | 'channel_not_found' | 'api_error';

/** A failed YouTube request, with the spec's wording for the gallery. */
export class YouTubeError extends Error {
  constructor(
    readonly kind: YouTubeFailure,
    message: string,
  ) {
    super(message);
  }
}

export interface YouTubeSource {
  /** The channel's latest uploads with details; throws YouTubeError. */
  channelVideos(max: number): Promise<DemoVideo[]>;
  /** Names the cache entry (the channel as configured). */
  readonly cacheKey: string;
}

export interface DemoCache {
  get(key: string): Promise<{ videos: DemoVideo[]; fetchedAt: Date } | null>;
  put(key: string, videos: DemoVideo[], fetchedAt: Date): Promise<void>;
}

export interface ShowcaseSource {
  /** Featured reels, newest first or by views, with the categories in use. */
  list(category: string, limit: number, order: 'recent' | 'views'): Promise<{ videos: DemoVideo[]; categories: string[] }>;
}

export const DEMO_CACHE_MS = 60 * 60_000;
/** The spec's demo fetch: 20 videos. */
export const DEMO_COUNT = 20;

/** A category written in braces in a description, e.g. "A day at sea {Travel}"; the braces are removed from the text. */
export function categoryOf(description: string): { category: string; description: string } {
  const m = /\{([^{}\n]{1,40})\}/.exec(description);
  if (!m) return { category: 'Uncategorized', description: description.trim() };
  return {
    category: m[1]!.trim() || 'Uncategorized',
    description: (description.slice(0, m.index) + description.slice(m.index + m[0].length)).trim(),
  };
}

const sortedCategories = (videos: DemoVideo[]) => [...new Set(videos.map((v) => v.category))].sort((a, b) => a.localeCompare(b));

export class DemosService {
  private inflight: Promise<DemoList> | null = null;

  constructor(
    private readonly ports: {
      youtube: YouTubeSource | null;
      cache: DemoCache;
      showcase: ShowcaseSource;
      now?: () => Date;
      onFallback?: (kind: YouTubeFailure, message: string) => void;
    },
  ) {}

  async demos(category: string): Promise<DemoList> {
    const c = category.trim();
    if (!this.ports.youtube) {
      const [all, filtered] = await Promise.all([
        this.ports.showcase.list('', DEMO_COUNT, 'recent'),
        c ? this.ports.showcase.list(c, DEMO_COUNT, 'recent') : null,
      ]);
      return { videos: (filtered ?? all).videos, categories: all.categories, source: 'showcase' };
    }
    const list = await this.youtubeOrFallback();
    return c ? { ...list, videos: list.videos.filter((v) => v.category === c) } : list;
  }

  /** The Hall of Fame's videos: the most viewed first. */
  async featured(limit: number): Promise<{ videos: DemoVideo[]; source: DemoSourceName; fallback_reason?: string }> {
    if (!this.ports.youtube) return { videos: (await this.ports.showcase.list('', limit, 'views')).videos, source: 'showcase' };
    const list = await this.youtubeOrFallback();
    const videos = [...list.videos].sort((a, b) => b.views - a.views).slice(0, limit);
    return { videos, source: list.source, ...(list.fallback_reason ? { fallback_reason: list.fallback_reason } : {}) };
  }

  /** One YouTube refresh at a time per replica; concurrent callers share it. */
  private youtubeOrFallback(): Promise<DemoList> {
    this.inflight ??= this.load().finally(() => (this.inflight = null));
    return this.inflight;
  }

  private async load(): Promise<DemoList> {
    const yt = this.ports.youtube!;
    const now = (this.ports.now ?? (() => new Date()))();
    const cached = await this.ports.cache.get(yt.cacheKey);
    const fromCache = (c: { videos: DemoVideo[]; fetchedAt: Date }, reason?: string): DemoList => ({
      videos: c.videos,
      categories: sortedCategories(c.videos),
      source: 'youtube',
      fetched_at: c.fetchedAt.toISOString(),
      ...(reason ? { fallback_reason: reason } : {}),
    });
    if (cached && now.getTime() - cached.fetchedAt.getTime() < DEMO_CACHE_MS) return fromCache(cached);
    try {
      const videos = await yt.channelVideos(DEMO_COUNT);
      await this.ports.cache.put(yt.cacheKey, videos, now);
      return fromCache({ videos, fetchedAt: now });
    } catch (e) {
      if (!(e instanceof YouTubeError)) throw e;
      this.ports.onFallback?.(e.kind, e.message);
      if (cached) return fromCache(cached, `${e.message}. Showing the videos fetched at ${cached.fetchedAt.toISOString()}.`);
      const s = await this.ports.showcase.list('', DEMO_COUNT, 'recent');
      return {
        videos: s.videos,
        categories: s.categories,
        source: 'showcase',
        fallback_reason: `${e.message}. Showing Reelsmith's own showcase.`,
      };
    }
  }
}
