import type { ObjectStore } from '@reelsmith/kit';
import type { marketplace } from '@reelsmith/proto';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { DEFAULT_CASH_OFFER, DEFAULT_CREDITS_OFFER, offerTerms } from '../../../domain/footage-offer.js';
import type { Peers } from '../../../repositories/clients.js';
import { callerOf } from '../auth.js';
import { binary } from '../contract.js';
import { mirrored } from '../errors.js';
import { clipThumbnail, footageClip, footageClipView, payout, payoutView } from '../marketplace.schemas.js';
import { errors, message, uuidParams } from '../schemas.js';
import { RATE_LIMITS } from '../security.js';
import { sendStoredObject } from '../send-object.js';

/** The types a clip is sent as (from its file name). */
const CLIP_TYPES = ['video/mp4', 'video/quicktime', 'video/webm'];
const clipType = (key: string) => (/\.mov$/i.test(key) ? 'video/quicktime' : /\.webm$/i.test(key) ? 'video/webm' : 'video/mp4');

/**
 * Cash in whole cents up to $1,000, credits in whole credits up to 1,000,000 (marketplace's
 * OFFER_LIMITS): the schema refuses anything else (nothing is rounded).
 */
const CASH_RANGE = mirrored('A cash offer must be between $0.01 and $1000.00.', 'invalid_amount');
const offerBody = z.discriminatedUnion('type', [
  z
    .object({
      type: z.literal('cash'),
      amount: z
        .number()
        .min(0.01, CASH_RANGE)
        .max(1000, CASH_RANGE)
        .multipleOf(0.01, 'A cash offer must be in whole cents')
        .optional()
        .describe(`US dollars in whole cents, $0.01 to $1,000 (default ${DEFAULT_CASH_OFFER.toFixed(2)})`),
    })
    .strict(),
  z
    .object({
      type: z.literal('credits'),
      amount: z
        .number()
        .int('A credits offer must be a whole number of credits')
        .min(1)
        .max(1_000_000)
        .optional()
        .describe(`Whole credits, 1 to 1,000,000 (default ${DEFAULT_CREDITS_OFFER})`),
    })
    .strict(),
]);

/**
 * The footage marketplace's admin review of opted-in clips: the list, offers, delete or remove,
 * streaming, and the payouts of accepted cash offers. The owners' side is marketplace.routes.ts.
 */
export const footageAdminRoutes: FastifyPluginAsyncZod<{ peers: Peers; store: ObjectStore }> = async (app, { peers, store }) => {
  const clipView = async (c: marketplace.Clip) => footageClipView(c, await clipThumbnail(store, c));

  app.get(
    '/admin/footage-marketplace',
    {
      config: { access: 'admin' },
      schema: {
        summary: 'Clips users opted in to footage offers, newest first, with the counts the page shows',
        response: {
          200: z.object({ clips: z.array(footageClip), total: z.number().int(), pending: z.number().int() }),
          ...errors(401, 403),
        },
      },
    },
    async (req) => {
      const r = await peers.marketplace.listClips({}, { requestId: req.id });
      return { clips: await Promise.all(r.clips.map(clipView)), total: r.total, pending: r.pending };
    },
  );

  app.get(
    '/admin/footage-marketplace/payouts',
    {
      config: { access: 'admin' },
      schema: {
        summary: 'Payouts of accepted cash offers',
        response: { 200: z.object({ payouts: z.array(payout) }), ...errors(401, 403) },
      },
    },
    async (req) => {
      const r = await peers.marketplace.listPayouts({}, { requestId: req.id });
      return { payouts: r.payouts.map(payoutView) };
    },
  );

  app.post(
    '/admin/footage-marketplace/payouts/:id/paid',
    {
      config: { access: 'admin' },
      schema: { summary: 'Mark a payout paid', params: uuidParams, response: { 200: payout, ...errors(400, 401, 403, 404) } },
    },
    async (req) =>
      payoutView(await peers.marketplace.markPayoutPaid({ payoutId: req.params.id, adminUserId: callerOf(req).id }, { requestId: req.id })),
  );

  app.get(
    '/admin/footage-marketplace/:id/stream',
    {
      config: { access: 'admin' },
      schema: {
        summary: 'The clip itself, with HTTP Range support (206) for the player',
        params: uuidParams,
        response: {
          200: binary('The clip', ...CLIP_TYPES),
          206: binary('The range asked for', ...CLIP_TYPES),
          ...errors(400, 401, 403, 404, 416),
        },
      },
    },
    async (req, reply) => {
      const c = await peers.marketplace.getClip({ clipId: req.params.id }, { requestId: req.id });
      return sendStoredObject(store, reply, {
        key: c.objectKey,
        type: clipType(c.objectKey),
        range: req.headers.range,
        cacheControl: 'private, no-store',
        notFound: { detail: 'Clip not found.', code: 'clip_not_found' },
      });
    },
  );

  app.post(
    '/admin/footage-marketplace/:id/offer',
    {
      config: { access: 'admin', rateLimit: RATE_LIMITS.offers },
      schema: {
        summary: `Offer cash (dollars, default ${DEFAULT_CASH_OFFER.toFixed(2)}) or credits (default ${DEFAULT_CREDITS_OFFER}) for a pending clip; 409 otherwise`,
        params: uuidParams,
        body: offerBody,
        response: { 200: footageClip, ...errors(400, 401, 403, 404, 409, 429) },
      },
    },
    async (req) => {
      const c = await peers.marketplace.makeOffer(
        { clipId: req.params.id, adminUserId: callerOf(req).id, ...offerTerms(req.body) },
        { requestId: req.id },
      );
      return clipView(c);
    },
  );

  app.delete(
    '/admin/footage-marketplace/:id',
    {
      config: { access: 'admin' },
      schema: {
        summary: "Delete (pending) or Remove (others) a clip: the marketplace's stored copy goes, the user's reel stays",
        params: uuidParams,
        response: { 200: message, ...errors(400, 401, 403, 404) },
      },
    },
    async (req) => {
      await peers.marketplace.deleteClip({ clipId: req.params.id, adminUserId: callerOf(req).id }, { requestId: req.id });
      return { message: 'Clip deleted' };
    },
  );
};
