import type { ObjectStore } from '@reelsmith/kit';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Peers } from '../../repositories/clients.js';
import { RATE_LIMITS } from './security.js';
import { callerOf } from './auth.js';
import { clipThumbnail, offer, offerView } from './marketplace.schemas.js';
import { errors, message, uuidParams } from './schemas.js';

/**
 * The footage marketplace for the owners of opted-in clips: their open offers, accept and
 * decline. The admins' review of the clips (offers, removal, streaming, payouts) is in
 * admin/footage.routes.ts.
 */
export const marketplaceRoutes: FastifyPluginAsyncZod<{ peers: Peers; store: ObjectStore }> = async (app, { peers, store }) => {
  app.get(
    '/user/offers',
    {
      config: { access: 'user' },
      schema: { summary: 'Open offers for your clips', response: { 200: z.object({ offers: z.array(offer) }), ...errors(401) } },
    },
    async (req) => {
      const r = await peers.marketplace.listOffers({ userId: callerOf(req).id }, { requestId: req.id });
      return { offers: await Promise.all(r.offers.map(async (c) => offerView(c, await clipThumbnail(store, c)))) };
    },
  );

  app.post(
    '/user/offers/:id/accept',
    {
      config: { access: 'user', rateLimit: RATE_LIMITS.offers },
      schema: {
        summary: 'Accept an offer for your clip (credits are granted once; cash is recorded for payout)',
        params: uuidParams,
        body: z.object({ offer_type: z.enum(['cash', 'credits']) }).strict(),
        response: { 200: message, ...errors(400, 401, 404, 409, 429) },
      },
    },
    async (req) => {
      const r = await peers.marketplace.answerOffer(
        { userId: callerOf(req).id, clipId: req.params.id, accept: true, offerType: req.body.offer_type },
        { requestId: req.id },
      );
      // Credits may have been granted: this replica's next GET /auth/me asks billing again.
      app.accountChanged(callerOf(req).id);
      return { message: r.message };
    },
  );

  app.post(
    '/user/offers/:id/decline',
    {
      config: { access: 'user', rateLimit: RATE_LIMITS.offers },
      schema: {
        summary: 'Decline an offer for your clip',
        params: uuidParams,
        response: { 200: message, ...errors(400, 401, 404, 409, 429) },
      },
    },
    async (req) => {
      const r = await peers.marketplace.answerOffer(
        { userId: callerOf(req).id, clipId: req.params.id, accept: false },
        { requestId: req.id },
      );
      return { message: r.message };
    },
  );
};
