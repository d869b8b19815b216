import crypto from 'node:crypto';
import type { ObjectStore } from '@reelsmith/kit';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { DemosService } from '../../domain/demos.service.js';
import { LINK_SECONDS } from '../../domain/job-status.js';
import { showcaseCreators } from '../../domain/showcase-creators.js';
import type { Peers } from '../../repositories/clients.js';
import { binary, redirect } from './contract.js';
import { contactRequest, demoList, featuredList, ratingView, showcaseCreator, showcaseRating, showcaseStats } from './public.schemas.js';
import { errors, uuidParams } from './schemas.js';
import { RATE_LIMITS } from './security.js';
import { sendStoredObject } from './send-object.js';

/**
 * Who is playing a reel, for counting views once per viewer (media-library keeps a viewer for an
 * hour per reel): the account when signed in, else a SHA-256 of the client's address (as Fastify
 * sees it: behind a proxy only with TRUST_PROXY) and its User-Agent, so two people behind one
 * address with different browsers count twice and the raw address is never passed on or stored.
 */
export function viewerOf(req: FastifyRequest): string {
  if (req.caller) return `user:${req.caller.id}`;
  const ua = String(req.headers['user-agent'] ?? '');
  return `anon:${crypto.createHash('sha256').update(`${req.ip}\n${ua}`).digest('hex')}`;
}

export interface PublicDeps {
  peers: Peers;
  store: ObjectStore;
  demos: DemosService;
}

/**
 * The public pages' data, without sign-in: the demo gallery, the Hall of Fame (featured reels,
 * figures, creators, ratings), the showcase's media and plays, and the contact form. The signed-in
 * user's showcase routes are in showcase-user.routes.ts, the admins' in admin/ (showcase.routes.ts).
 */
export const publicRoutes: FastifyPluginAsyncZod<PublicDeps> = async (app, { peers, store, demos }) => {
  app.get(
    '/demos',
    {
      schema: {
        summary: 'The demo gallery: YouTube channel videos (cached one hour) or the showcase',
        querystring: z.object({ category: z.string().max(40).default('') }),
        response: { 200: demoList, ...errors(400) },
      },
    },
    async (req) => demos.demos(req.query.category),
  );

  app.get(
    '/featured',
    {
      schema: {
        summary: 'The Hall of Fame: most-viewed videos first',
        querystring: z.object({ limit: z.coerce.number().int().min(1).max(50).default(15) }),
        response: { 200: featuredList, ...errors(400) },
      },
    },
    async (req) => demos.featured(req.query.limit),
  );

  app.get(
    '/showcase/stats',
    { schema: { summary: 'Real figures for the Hall of Fame', response: { 200: showcaseStats } } },
    async (req, reply) => {
      const s = await peers.media.getShowcaseStats({}, { requestId: req.id });
      void reply.header('cache-control', 'public, max-age=60');
      return { total_reels: Number(s.totalReels), active_creators: Number(s.activeCreators30d) };
    },
  );

  app.get(
    '/showcase/creators',
    {
      schema: {
        summary:
          'The Hall of Fame creator cards: accounts that own featured reels and chose a public name, most viewed first (never an e-mail)',
        querystring: z.object({ limit: z.coerce.number().int().min(1).max(12).default(3) }),
        response: { 200: z.object({ creators: z.array(showcaseCreator) }).meta({ id: 'ShowcaseCreators' }), ...errors(400) },
      },
    },
    async (req, reply) => {
      const meta = { requestId: req.id };
      const creators = await showcaseCreators(
        {
          creators: async (limit) =>
            (await peers.media.listShowcaseCreators({ limit }, meta)).creators.map((c) => ({
              ownerId: c.ownerId,
              reels: Number(c.reels),
              featuredReels: Number(c.featuredReels),
              featuredViews: Number(c.featuredViews),
            })),
          publicNames: async (userIds) =>
            new Map((await peers.identity.getPublicNames({ userIds }, meta)).names.map((n) => [n.userId, n.displayName])),
        },
        req.query.limit,
      );
      void reply.header('cache-control', 'public, max-age=60');
      return { creators };
    },
  );

  // Showcase media is public and may be popular: from S3 it is a redirect to a signed link.
  const sendShowcaseMedia = (reply: FastifyReply, key: string, range: string | undefined, type: string, cacheControl: string) =>
    sendStoredObject(store, reply, { key, type, range, cacheControl, s3RedirectSeconds: LINK_SECONDS });

  app.get(
    '/showcase/:id/video',
    {
      schema: {
        summary: 'The MP4 of a featured reel, without sign-in (Range requests: 206)',
        params: uuidParams,
        response: {
          200: binary('The reel', 'video/mp4'),
          206: binary('The range asked for', 'video/mp4'),
          302: redirect('With S3 storage: a redirect (Location) to a signed link'),
          ...errors(404, 416),
        },
      },
    },
    async (req, reply) => {
      const e = await peers.media.getShowcaseEntry({ reelId: req.params.id }, { requestId: req.id });
      return sendShowcaseMedia(reply, e.reel!.objectKey, req.headers.range, 'video/mp4', 'public, max-age=300');
    },
  );

  app.get(
    '/showcase/:id/thumbnail',
    {
      schema: {
        summary: 'The thumbnail of a featured reel',
        params: uuidParams,
        response: {
          200: binary('The thumbnail', 'image/jpeg'),
          302: redirect('With S3 storage: a redirect (Location) to a signed link'),
          ...errors(404),
        },
      },
    },
    async (req, reply) => {
      const e = await peers.media.getShowcaseEntry({ reelId: req.params.id }, { requestId: req.id });
      const key = e.reel!.thumbnailKey || e.previewKeys[0];
      if (!key) return reply.status(404).send({ detail: 'Not found', code: 'not_found' });
      return sendShowcaseMedia(reply, key, undefined, 'image/jpeg', 'public, max-age=3600');
    },
  );

  app.get(
    '/showcase/:id/frames/:n',
    {
      schema: {
        summary: 'One of the three hover-preview frames of a featured reel',
        params: z.object({ id: z.uuid(), n: z.coerce.number().int().min(1).max(3) }),
        response: {
          200: binary('The frame', 'image/jpeg'),
          302: redirect('With S3 storage: a redirect (Location) to a signed link'),
          ...errors(404),
        },
      },
    },
    async (req, reply) => {
      const e = await peers.media.getShowcaseEntry({ reelId: req.params.id }, { requestId: req.id });
      const key = e.previewKeys[req.params.n - 1];
      if (!key) return reply.status(404).send({ detail: 'Not found', code: 'not_found' });
      return sendShowcaseMedia(reply, key, undefined, 'image/jpeg', 'public, max-age=3600');
    },
  );

  app.post(
    '/showcase/:id/play',
    {
      schema: {
        summary:
          'Counts one real play of a featured reel (the player calls it when playback starts): once per viewer (account, else address and browser) per reel per hour',
        params: uuidParams,
        response: {
          200: z.object({
            views: z.number().int(),
            counted: z.boolean().describe('False when this viewer already played this reel within the hour'),
          }),
          ...errors(404),
        },
      },
    },
    async (req, reply) => {
      const r = await peers.media.countShowcaseView({ reelId: req.params.id, viewer: viewerOf(req) }, { requestId: req.id });
      void reply.header('cache-control', 'no-store');
      return { views: Number(r.views), counted: r.counted };
    },
  );

  app.get(
    '/showcase/ratings',
    {
      schema: {
        summary: "Star ratings of featured reels (average, count, and the signed-in caller's own)",
        querystring: z.object({ ids: z.string().max(4000).describe('Reel ids, comma-separated (at most 100)') }),
        response: { 200: z.object({ ratings: z.array(showcaseRating) }), ...errors(400) },
      },
    },
    async (req, reply) => {
      const ids = req.query.ids
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean)
        .slice(0, 100);
      const r = await peers.media.getShowcaseRatings({ reelIds: ids, userId: req.caller?.id ?? '' }, { requestId: req.id });
      void reply.header('cache-control', 'no-store');
      return { ratings: r.ratings.map(ratingView) };
    },
  );

  app.post(
    '/contact',
    {
      config: { rateLimit: RATE_LIMITS.contact },
      schema: {
        summary: 'Send a message to the Reelsmith team (stored and mailed to the inbox; a few per address an hour)',
        body: contactRequest,
        response: { 200: z.object({ message: z.string() }), ...errors(400, 429) },
      },
    },
    async (req) => {
      const b = req.body;
      await peers.identity.submitContact(
        { name: b.name, email: b.email, topic: b.topic, message: b.message, honeypot: b.website, client: { ip: req.ip } },
        { requestId: req.id },
      );
      return { message: 'Thank you! Your message has been sent; we will reply by e-mail.' };
    },
  );
};
