import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Peers } from '../../../repositories/clients.js';
import { showcaseVideo } from '../../../repositories/showcase.source.js';
import { callerOf } from '../auth.js';
import { contactMessage, contactMessageView, demoVideo, sharedReel, sharedReelView, showcaseCategory } from '../public.schemas.js';
import { errors, pageQuery, uuidParams } from '../schemas.js';

/** The showcase as admins curate it (the reels owners shared, featuring and unfeaturing them) and the contact inbox. */
export const showcaseAdminRoutes: FastifyPluginAsyncZod<{ peers: Peers }> = async (app, { peers }) => {
  app.get(
    '/admin/showcase',
    {
      config: { access: 'admin' },
      schema: {
        summary: 'Reels their owners shared to the showcase, featured or not, newest first',
        querystring: pageQuery(200),
        response: { 200: z.object({ reels: z.array(sharedReel), total: z.number().int() }), ...errors(401, 403) },
      },
    },
    async (req) => {
      const res = await peers.media.listSharedReels({ limit: req.query.limit, offset: req.query.offset }, { requestId: req.id });
      return {
        total: res.total,
        reels: res.reels.map(sharedReelView),
      };
    },
  );

  app.put(
    '/admin/showcase/:id',
    {
      config: { access: 'admin' },
      schema: {
        summary: 'Feature a shared reel in the showcase with a category (again: change its category)',
        params: uuidParams,
        body: z.object({ category: showcaseCategory }).strict(),
        response: { 200: demoVideo, ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (req) =>
      showcaseVideo(
        await peers.media.featureReel(
          { reelId: req.params.id, category: req.body.category, featuredBy: callerOf(req).id },
          { requestId: req.id },
        ),
      ),
  );

  app.delete(
    '/admin/showcase/:id',
    {
      config: { access: 'admin' },
      schema: {
        summary: 'Take a reel out of the showcase',
        params: uuidParams,
        response: { 200: z.object({ message: z.string() }), ...errors(401, 403, 404) },
      },
    },
    async (req) => {
      await peers.media.unfeatureReel({ reelId: req.params.id }, { requestId: req.id });
      return { message: 'Removed from the showcase' };
    },
  );

  app.get(
    '/admin/contact',
    {
      config: { access: 'admin' },
      schema: {
        summary: 'The contact inbox, newest first',
        querystring: pageQuery(200),
        response: {
          200: z.object({ messages: z.array(contactMessage), total: z.number().int() }).meta({ id: 'ContactInbox' }),
          ...errors(401, 403),
        },
      },
    },
    async (req, reply) => {
      const res = await peers.identity.listContactMessages({ limit: req.query.limit, offset: req.query.offset }, { requestId: req.id });
      void reply.header('cache-control', 'no-store');
      return {
        total: res.total,
        messages: res.messages.map(contactMessageView),
      };
    },
  );
};
