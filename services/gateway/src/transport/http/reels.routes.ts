import type { ObjectStore } from '@reelsmith/kit';
import type { media } from '@reelsmith/proto';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { LINK_SECONDS } from '../../domain/job-status.js';
import type { Peers } from '../../repositories/clients.js';
import { callerOf } from './auth.js';
import { errors, message, pageQuery, reelList, uuidParams } from './schemas.js';

/** My Reels: GET /library, POST /library/:id/access, DELETE /library/:id. */
export const reelsRoutes: FastifyPluginAsyncZod<{ peers: Peers; store: ObjectStore }> = async (app, { peers, store }) => {
  const downloadUrl = (r: media.Reel) =>
    store.signedUrl(r.objectKey, { expiresInSeconds: LINK_SECONDS, downloadName: `${r.title.replace(/[^\w .-]/g, '_') || 'reel'}.mp4` });

  app.get(
    '/library',
    {
      config: { access: 'user' },
      schema: {
        summary: "The signed-in user's finished reels, newest first",
        querystring: pageQuery(100),
        response: { 200: reelList, ...errors(400, 401) },
      },
    },
    async (req) => {
      const caller = callerOf(req);
      const { reels, total } = await peers.media.listReels(
        { ownerId: caller.id, limit: req.query.limit, offset: req.query.offset },
        { requestId: req.id },
      );
      const videos = await Promise.all(
        reels.map(async (r) => ({
          id: r.id,
          title: r.title,
          description: r.description,
          created_at: new Date(Number(r.createdAtUnixMs)).toISOString(),
          download_url: await downloadUrl(r),
          // A link, not the image inline: a page of 50 reels stays small.
          thumbnail: r.thumbnailKey
            ? { url: await store.signedUrl(r.thumbnailKey, { expiresInSeconds: LINK_SECONDS }), format: 'jpeg' as const }
            : null,
          duration_sec: r.durationSec,
          music_used: r.musicUsed,
          enable_beat_mapping: r.enableBeatMapping,
          enable_intelligence: r.enableIntelligence,
          pacing_preset: r.pacingPreset,
          share_to_showcase: r.shareToShowcase,
          expires_at: r.expiresAtUnixMs > 0n ? new Date(Number(r.expiresAtUnixMs)).toISOString() : null,
        })),
      );
      return { videos, stats: { total_videos: total }, status: 'success', message: '' };
    },
  );

  app.post(
    '/library/:id/access',
    {
      config: { access: 'user' },
      schema: {
        summary: 'A reel is being played: answers a fresh link to it',
        params: uuidParams,
        response: { 200: z.object({ download_url: z.string() }).meta({ id: 'ReelAccess' }), ...errors(400, 401, 404) },
      },
    },
    async (req) => {
      const r = await peers.media.getReel({ ownerId: callerOf(req).id, reelId: req.params.id }, { requestId: req.id });
      req.log.info({ reel_id: r.id }, 'reel played');
      return { download_url: await downloadUrl(r) };
    },
  );

  app.delete(
    '/library/:id',
    {
      config: { access: 'user' },
      schema: { summary: 'Delete one of your reels', params: uuidParams, response: { 200: message, ...errors(400, 401, 404) } },
    },
    async (req) => {
      await peers.media.deleteReel({ ownerId: callerOf(req).id, reelId: req.params.id }, { requestId: req.id });
      app.reelDeleted(req.params.id);
      return { message: 'Reel deleted' };
    },
  );
};
