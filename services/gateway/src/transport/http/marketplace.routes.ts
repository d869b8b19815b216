import type { ObjectStore } from '@reelsmith/kit';
import type { marketplace } from '@reelsmith/proto';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { LINK_SECONDS } from '../../domain/job-status.js';
import type { Peers } from '../../repositories/clients.js';
import { RATE_LIMITS } from './security.js';
import { callerOf } from './auth.js';
import { errors, message, uuidParams } from './schemas.js';
import { sendStoredObject } from './send-object.js';
import { binary } from './contract.js';
import { mirrored } from './errors.js';

type Clip = marketplace.Clip;

const iso = (ms: bigint) => (ms ? new Date(Number(ms)).toISOString() : null);
const mb = (bytes: bigint) => Math.round((Number(bytes) / (1024 * 1024)) * 100) / 100;

/** The types a clip is sent as (from its file name). */
const CLIP_TYPES = ['video/mp4', 'video/quicktime', 'video/webm'];

const clipStatus = z.enum(['pending', 'cash_offered', 'credits_offered', 'purchased', 'rejected', 'removed']);

export const footageClip = z
  .object({
    id: z.string(),
    filename: z.string(),
    user_email: z.string(),
    uploaded_at: z.string().describe('When the uploader consented (the job was submitted)'),
    file_size_mb: z.number(),
    thumbnail_url: z.string().nullable().describe('A signed, expiring link to the JPEG thumbnail'),
    status: clipStatus,
    cash_offer: z.number().nullable().describe('US dollars, when a cash offer was made'),
    credits_offer: z.number().int().nullable(),
    offered_at: z.string().nullable(),
  })
  .meta({ id: 'FootageClip' });

export const offer = z
  .object({
    id: z.string(),
    filename: z.string(),
    thumbnail_url: z.string().nullable(),
    status: clipStatus,
    file_size_mb: z.number(),
    uploaded_at: z.string(),
    offered_at: z.string().nullable(),
    cash_offer: z.number().nullable(),
    credits_offer: z.number().int().nullable(),
  })
  .meta({ id: 'Offer' });

export const payout = z
  .object({
    id: z.string(),
    clip_id: z.string(),
    user_email: z.string(),
    filename: z.string(),
    amount: z.number().describe('US dollars'),
    state: z.enum(['pending', 'paid']),
    created_at: z.string(),
    paid_at: z.string().nullable(),
  })
  .meta({ id: 'Payout' });

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
        .describe('US dollars in whole cents, $0.01 to $1,000 (default 0.10)'),
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
        .describe('Whole credits, 1 to 1,000,000 (default 50)'),
    })
    .strict(),
]);

/**
 * The footage marketplace: admin review of opted-in clips (offers, delete/remove, streaming,
 * payouts) and the user's own offers (accept, decline). Every admin route is `access: 'admin'`.
 */
export const marketplaceRoutes: FastifyPluginAsyncZod<{ peers: Peers; store: ObjectStore }> = async (app, { peers, store }) => {
  const thumb = async (c: Clip) => (c.thumbnailKey ? await store.signedUrl(c.thumbnailKey, { expiresInSeconds: LINK_SECONDS }) : null);
  const cash = (c: Clip) => (c.offerType === 'cash' ? Number(c.cashCents) / 100 : null);
  const credits = (c: Clip) => (c.offerType === 'credits' ? Number(c.credits) : null);
  const toClip = async (c: Clip) => ({
    id: c.id,
    filename: c.filename,
    user_email: c.userEmail,
    uploaded_at: iso(c.uploadedAtUnixMs) ?? '',
    file_size_mb: mb(c.sizeBytes),
    thumbnail_url: await thumb(c),
    status: c.status as z.infer<typeof clipStatus>,
    cash_offer: cash(c),
    credits_offer: credits(c),
    offered_at: iso(c.offeredAtUnixMs),
  });
  const toOffer = async (c: Clip) => ({
    id: c.id,
    filename: c.filename,
    thumbnail_url: await thumb(c),
    status: c.status as z.infer<typeof clipStatus>,
    file_size_mb: mb(c.sizeBytes),
    uploaded_at: iso(c.uploadedAtUnixMs) ?? '',
    offered_at: iso(c.offeredAtUnixMs),
    cash_offer: cash(c),
    credits_offer: credits(c),
  });

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
      return { clips: await Promise.all(r.clips.map(toClip)), total: r.total, pending: r.pending };
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
      return { payouts: r.payouts.map(toPayout) };
    },
  );

  app.post(
    '/admin/footage-marketplace/payouts/:id/paid',
    {
      config: { access: 'admin' },
      schema: { summary: 'Mark a payout paid', params: uuidParams, response: { 200: payout, ...errors(400, 401, 403, 404) } },
    },
    async (req) =>
      toPayout(await peers.marketplace.markPayoutPaid({ payoutId: req.params.id, adminUserId: callerOf(req).id }, { requestId: req.id })),
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
      const type = /\.mov$/i.test(c.objectKey) ? 'video/quicktime' : /\.webm$/i.test(c.objectKey) ? 'video/webm' : 'video/mp4';
      return sendStoredObject(store, reply, {
        key: c.objectKey,
        type,
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
        summary: 'Offer cash (dollars, default 0.10) or credits (default 50) for a pending clip; 409 otherwise',
        params: uuidParams,
        body: offerBody,
        response: { 200: footageClip, ...errors(400, 401, 403, 404, 409, 429) },
      },
    },
    async (req) => {
      const { type, amount } = req.body;
      const c = await peers.marketplace.makeOffer(
        {
          clipId: req.params.id,
          adminUserId: callerOf(req).id,
          offerType: type,
          cashCents: type === 'cash' ? BigInt(Math.round((amount ?? 0.1) * 100)) : 0n,
          credits: type === 'credits' ? BigInt(amount ?? 50) : 0n,
        },
        { requestId: req.id },
      );
      return toClip(c);
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

  app.get(
    '/user/offers',
    {
      config: { access: 'user' },
      schema: { summary: 'Open offers for your clips', response: { 200: z.object({ offers: z.array(offer) }), ...errors(401) } },
    },
    async (req) => {
      const r = await peers.marketplace.listOffers({ userId: callerOf(req).id }, { requestId: req.id });
      return { offers: await Promise.all(r.offers.map(toOffer)) };
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

const toPayout = (p: marketplace.Payout) => ({
  id: p.id,
  clip_id: p.clipId,
  user_email: p.userEmail,
  filename: p.filename,
  amount: Number(p.amountCents) / 100,
  state: p.state as 'pending' | 'paid',
  created_at: iso(p.createdAtUnixMs) ?? '',
  paid_at: iso(p.paidAtUnixMs),
});
