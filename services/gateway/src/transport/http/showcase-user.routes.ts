import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Peers } from '../../repositories/clients.js';
import { callerOf } from './auth.js';
import { ratingView, showcaseRating } from './public.schemas.js';
import { errors, uuidParams } from './schemas.js';

/** The signed-in user's part of the showcase: rating a featured reel, sharing one's own reel to it. */
export const showcaseUserRoutes: FastifyPluginAsyncZod<{ peers: Peers }> = async (app, { peers }) => {
  app.put(
    '/showcase/:id/rating',
    {
      config: { access: 'user' },
      schema: {
        summary: 'Rate a featured reel 1 to 5 stars; rating again replaces your earlier stars (one vote per user)',
        params: uuidParams,
        body: z.object({ stars: z.number().int().min(1).max(5) }).strict(),
        response: { 200: showcaseRating, ...errors(400, 401, 404) },
      },
    },
    async (req) =>
      ratingView(
        await peers.media.rateShowcaseReel(
          { reelId: req.params.id, userId: callerOf(req).id, stars: req.body.stars },
          { requestId: req.id },
        ),
      ),
  );

  app.put(
    '/library/:id/showcase',
    {
      config: { access: 'user' },
      schema: {
        summary: 'Share to showcase: the owner allows (or stops allowing) admins to feature this reel publicly',
        params: uuidParams,
        body: z.object({ shared: z.boolean() }).strict(),
        response: { 200: z.object({ shared: z.boolean(), featured: z.boolean() }).meta({ id: 'Sharing' }), ...errors(400, 401, 404) },
      },
    },
    async (req) => {
      const r = await peers.media.setReelSharing(
        { ownerId: callerOf(req).id, reelId: req.params.id, shared: req.body.shared },
        { requestId: req.id },
      );
      return { shared: r.shared, featured: r.featured };
    },
  );
};
