import type { ServiceImpl } from '@reelsmith/kit';
import type { media } from '@reelsmith/proto';
import type { ReelRecord } from '../domain/reels.service.js';
import type { SharedReelRecord, ShowcaseRecord, ShowcaseService } from '../domain/showcase.service.js';

const reel = (r: ReelRecord) => ({
  ...r,
  shareToShowcase: r.shareToShowcase ?? false,
  sizeBytes: BigInt(r.sizeBytes),
  createdAtUnixMs: BigInt(r.createdAt.getTime()),
});

const entry = (e: ShowcaseRecord) => ({
  reel: reel(e.reel),
  category: e.category,
  views: BigInt(e.views),
  featuredAtUnixMs: BigInt(e.featuredAt.getTime()),
  previewKeys: e.previewKeys,
});

const shared = (s: SharedReelRecord) => ({ reel: reel(s.reel), featured: s.featured, category: s.category, views: BigInt(s.views) });

/** The showcase's gRPC handlers (spread into media-library's binding): thin, one domain call each. */
type Keys =
  | 'setReelSharing'
  | 'featureReel'
  | 'unfeatureReel'
  | 'listShowcase'
  | 'getShowcaseEntry'
  | 'countShowcaseView'
  | 'getShowcaseStats'
  | 'listShowcaseCreators'
  | 'rateShowcaseReel'
  | 'getShowcaseRatings'
  | 'listSharedReels';
export type ShowcaseHandlers = Pick<ServiceImpl<typeof media.MediaLibraryService>, Keys>;

export const showcaseHandlers = (svc: ShowcaseService): ShowcaseHandlers => ({
  setReelSharing: (req) => svc.setSharing(req.ownerId, req.reelId, req.shared),
  featureReel: async (req) => entry(await svc.feature(req.reelId, req.category, req.featuredBy || null)),
  unfeatureReel: async (req) => {
    await svc.unfeature(req.reelId);
    return {};
  },
  listShowcase: async (req) => {
    const { entries, categories } = await svc.list(req.category, req.limit, req.order);
    return { entries: entries.map(entry), categories };
  },
  getShowcaseEntry: async (req) => entry(await svc.entry(req.reelId)),
  countShowcaseView: async (req) => {
    const r = await svc.countView(req.reelId, req.viewer);
    return { views: BigInt(r.views), counted: r.counted };
  },
  getShowcaseStats: async () => {
    const s = await svc.stats();
    return { totalReels: BigInt(s.totalReels), activeCreators30d: BigInt(s.activeCreators30d) };
  },
  listShowcaseCreators: async (req) => ({
    creators: (await svc.creators(req.limit)).map((c) => ({
      ownerId: c.ownerId,
      reels: BigInt(c.reels),
      featuredReels: BigInt(c.featuredReels),
      featuredViews: BigInt(c.featuredViews),
    })),
  }),
  rateShowcaseReel: async (req) => {
    const r = await svc.rate(req.reelId, req.userId, req.stars);
    return { reelId: req.reelId, average: r.average, count: BigInt(r.count), mine: r.mine };
  },
  getShowcaseRatings: async (req) => {
    const m = await svc.ratings(req.reelIds, req.userId || null);
    return { ratings: [...m].map(([reelId, r]) => ({ reelId, average: r.average, count: BigInt(r.count), mine: r.mine })) };
  },
  listSharedReels: async (req) => {
    const { reels, total } = await svc.shared(req.limit, req.offset);
    return { reels: reels.map(shared), total };
  },
});
