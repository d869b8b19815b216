import type { Database, Logger } from '@reelsmith/kit';
import type { Config } from '../config.js';
import { DemosService } from '../domain/demos.service.js';
import type { Peers } from './clients.js';
import { DbDemoCache } from './demo-cache.repository.js';
import { showcaseSource } from './showcase.source.js';
import { YouTubeDataApi } from './youtube.js';

/** The demo source: YouTube when a key and a channel are configured, the showcase otherwise. */
export function demosService(config: Config, db: Database, peers: Peers, log: Logger): DemosService {
  const youtube =
    config.YOUTUBE_API_KEY && config.YOUTUBE_CHANNEL
      ? new YouTubeDataApi({
          apiKey: config.YOUTUBE_API_KEY,
          channel: config.YOUTUBE_CHANNEL,
          baseUrl: config.YOUTUBE_API_BASE_URL,
          timeoutMs: config.YOUTUBE_TIMEOUT_MS,
        })
      : null;
  return new DemosService({
    youtube,
    cache: new DbDemoCache(db),
    showcase: showcaseSource(peers),
    onFallback: (kind, message) => log.warn({ kind, message }, 'YouTube failed; serving the last good copy or the showcase'),
  });
}

/** Showcase only, no cache (tests and the OpenAPI document). */
export const showcaseOnly = (peers: Peers): DemosService =>
  new DemosService({ youtube: null, cache: { get: async () => null, put: async () => undefined }, showcase: showcaseSource(peers) });
