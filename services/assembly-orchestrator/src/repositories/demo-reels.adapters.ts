import { dial, type Client, type Metrics } from '@reelsmith/kit';
import { media } from '@reelsmith/proto';
import type { DemoReelPorts, StarterClip } from '../domain/demo-reels.js';
import type { JobsService } from '../domain/jobs.service.js';

/** Where the starter library's clips come from (the libraries issue's media-library API). */
export type StarterClipSource = () => Promise<StarterClip[]>;

/** How many library clips the demo task looks at; four reels of four clips need far fewer. */
export const STARTER_CLIPS_PAGE = 100;

/**
 * The stock video library's clips from media-library's listing (any caller may use library items
 * in a job, the system account included). Empty while the starter content is still importing.
 */
export function libraryStarterClips(m: Pick<Client<typeof media.MediaLibraryService>, 'listLibrary'>): StarterClipSource {
  return async () => {
    const { items } = await m.listLibrary({ kind: 'video', q: '', category: '', limit: STARTER_CLIPS_PAGE, offset: 0 });
    return items.map((i) => ({ objectKey: i.objectKey, durationSec: i.durationSec }));
  };
}

/**
 * The demo task's ports over media-library (gRPC) and this service's own job path. The clips come
 * from the stock video library unless another source is given.
 */
export function demoReelPorts(
  addr: string,
  deadlineMs: number,
  metrics: Metrics,
  jobs: JobsService,
  starterClips?: StarterClipSource,
): DemoReelPorts & { close(): void } {
  const m = dial(media.MediaLibraryService, addr, { deadlineMs, metrics });
  return {
    showcaseSize: async () => (await m.listShowcase({ category: '', limit: 1, order: 'recent' })).entries.length,
    starterClips: starterClips ?? libraryStarterClips(m),
    // Unlimited: the system account is never charged (billing is told so with the reservation).
    createJob: (ownerId, request, key) => jobs.create(ownerId, true, request, key),
    jobOutcome: async (jobId) => {
      const j = await jobs.get(jobId);
      return j.status === 'completed' ? 'completed' : j.status === 'failed' ? 'failed' : 'pending';
    },
    feature: async (ownerId, reelId, category) => {
      await m.setReelSharing({ ownerId, reelId, shared: true });
      await m.featureReel({ reelId, category, featuredBy: ownerId });
    },
    sleep: (ms) => new Promise((r) => setTimeout(r, ms).unref()),
    close: () => m.close(),
  };
}
