import type { media } from '@reelsmith/proto';
import type { DemoVideo, ShowcaseSource } from '../domain/demos.service.js';
import type { Peers } from './clients.js';

type Entry = media.ShowcaseEntry;

/** A featured reel as a demo video: its public stream, thumbnail and preview frames through the gateway. */
export function showcaseVideo(e: Entry, prefix = '/api/v1'): DemoVideo {
  const r = e.reel!;
  const base = `${prefix}/showcase/${r.id}`;
  const frames = e.previewKeys.map((_, i) => `${base}/frames/${i + 1}`);
  return {
    id: r.id,
    title: r.title,
    description: r.description,
    thumbnail: r.thumbnailKey ? `${base}/thumbnail` : (frames[1] ?? frames[0] ?? ''),
    preview_frames: frames,
    videoId: r.id,
    videoUrl: `${base}/video`,
    duration: Math.round(r.durationSec * 10) / 10,
    views: Number(e.views),
    category: e.category,
    publishedAt: new Date(Number(e.featuredAtUnixMs)).toISOString(),
  };
}

export const showcaseSource = (peers: Peers): ShowcaseSource => ({
  async list(category, limit, order) {
    const res = await peers.media.listShowcase({ category, limit, order });
    return { videos: res.entries.map((e) => showcaseVideo(e)), categories: res.categories };
  },
});
