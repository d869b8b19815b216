import { RATE_LIMITS } from './security.js';
import crypto from 'node:crypto';
import type { ObjectStore } from '@reelsmith/kit';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { DemosService } from '../../domain/demos.service.js';
import { LINK_SECONDS } from '../../domain/job-status.js';
import { showcaseCreators } from '../../domain/showcase-creators.js';
import type { Peers } from '../../repositories/clients.js';
import { showcaseVideo } from '../../repositories/showcase.source.js';
import { callerOf } from './auth.js';
import { binary, redirect } from './contract.js';
import { mirrored } from './errors.js';
import { email, trimmedRule } from './input-text.js';
import { errors, pageQuery, uuidParams } from './schemas.js';
import { sendStoredObject } from './send-object.js';

export const demoVideo = z
  .object({
    id: z.string(),
    title: z.string(),
    description: z.string(),
    thumbnail: z.string().describe('Image URL'),
    preview_frames: z.array(z.string()).describe('Up to three frame URLs for the hover preview'),
    videoId: z.string(),
    videoUrl: z.string().describe('The MP4 stream of a showcase reel (Range requests, no sign-in) or the embedded YouTube player'),
    duration: z.number().describe('Seconds'),
    views: z.number().int().describe('Real plays'),
    category: z.string(),
    publishedAt: z.string(),
  })
  .meta({ id: 'DemoVideo' });

const source = z.enum(['youtube', 'showcase']).describe('Where the videos come from');
const fallbackReason = z.string().optional().describe('Set when YouTube failed: why, and that the last good copy or the showcase is shown');

export const demoList = z
  .object({
    videos: z.array(demoVideo),
    categories: z.array(z.string()),
    source,
    fallback_reason: fallbackReason,
    fetched_at: z.string().optional().describe('When the YouTube videos shown were fetched'),
  })
  .meta({ id: 'DemoList' });

export const featuredList = z.object({ videos: z.array(demoVideo), source, fallback_reason: fallbackReason }).meta({ id: 'FeaturedList' });

export const showcaseStats = z
  .object({
    total_reels: z.number().int().describe('Every reel Reelsmith has finished'),
    active_creators: z.number().int().describe('People who finished a reel in the last 30 days'),
  })
  .meta({ id: 'ShowcaseStats' });

export const showcaseCreator = z
  .object({
    display_name: z.string().describe('The public name the account chose (accounts without one are not listed)'),
    reels: z.number().int().describe('Reels the account has made'),
    featured_reels: z.number().int().describe('Its reels in the showcase now'),
    views: z.number().int().describe('Real plays of its reels in the showcase, summed'),
  })
  .meta({ id: 'ShowcaseCreator' });

export const sharedReel = z
  .object({
    id: z.string(),
    title: z.string(),
    owner_id: z.string(),
    created_at: z.string(),
    duration_sec: z.number(),
    pacing_preset: z.string(),
    featured: z.boolean(),
    category: z.string(),
    views: z.number().int(),
  })
  .meta({ id: 'SharedReel' });

/**
 * A showcase category as media-library takes it: trimmed, runs of white space made one space,
 * then a letter or digit and up to 39 more letters, digits, spaces, &, ' or -.
 */
const showcaseCategory = z
  .string()
  .max(400)
  .regex(
    /^\s*[\p{L}\p{N}](?:[\p{L}\p{N}&'-]|\s+(?=[\p{L}\p{N}&'-])){0,39}\s*$/u,
    mirrored('A category is 1 to 40 letters, digits or spaces.', 'invalid_category'),
  )
  .meta({
    description: "1 to 40 letters, digits, spaces, & ' or - (starting with a letter or digit), once trimmed",
    examples: ['Travel', 'Rock & roll'],
  });

export const CONTACT_TOPICS = ['General question', 'Technical support', 'Billing', 'Partnership', 'Feedback'] as const;

export const contactRequest = z
  .object({
    name: z
      .string()
      .max(1000)
      .regex(trimmedRule(1, 100), mirrored('Please enter your name (up to 100 characters).', 'invalid_name'))
      .describe('1 to 100 characters once trimmed, on one line'),
    email: email('The e-mail address'),
    topic: z.enum(CONTACT_TOPICS),
    message: z
      .string()
      .max(20_000)
      .regex(trimmedRule(10, 5000, { multiline: true }), mirrored('Please write a message of 10 to 5000 characters.', 'invalid_message'))
      .describe('10 to 5000 characters once trimmed'),
    website: z.string().max(500).default('').describe('Leave empty (a hidden field that only bots fill in)'),
  })
  .strict()
  .meta({ id: 'ContactRequest' });

export const contactMessage = z
  .object({ id: z.string(), name: z.string(), email: z.string(), topic: z.string(), message: z.string(), created_at: z.string() })
  .meta({ id: 'ContactMessage' });

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

/** The showcase and the public pages' data: demos, featured videos, stats, public streams; sharing and featuring. */
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

  const rating = z
    .object({
      reel_id: z.string(),
      average: z.number().describe('Mean stars of every rating, 0 when none'),
      count: z.number().int().describe('How many users rated it'),
      mine: z.number().int().describe("The signed-in caller's own stars, 0 when none"),
    })
    .meta({ id: 'ShowcaseRating' });
  const ratingView = (r: { reelId: string; average: number; count: bigint; mine: number }) => ({
    reel_id: r.reelId,
    average: Math.round(r.average * 10) / 10,
    count: Number(r.count),
    mine: r.mine,
  });

  app.get(
    '/showcase/ratings',
    {
      schema: {
        summary: "Star ratings of featured reels (average, count, and the signed-in caller's own)",
        querystring: z.object({ ids: z.string().max(4000).describe('Reel ids, comma-separated (at most 100)') }),
        response: { 200: z.object({ ratings: z.array(rating) }), ...errors(400) },
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

  app.put(
    '/showcase/:id/rating',
    {
      config: { access: 'user' },
      schema: {
        summary: 'Rate a featured reel 1 to 5 stars; rating again replaces your earlier stars (one vote per user)',
        params: uuidParams,
        body: z.object({ stars: z.number().int().min(1).max(5) }).strict(),
        response: { 200: rating, ...errors(400, 401, 404) },
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
        reels: res.reels.map((s) => ({
          id: s.reel!.id,
          title: s.reel!.title,
          owner_id: s.reel!.ownerId,
          created_at: new Date(Number(s.reel!.createdAtUnixMs)).toISOString(),
          duration_sec: s.reel!.durationSec,
          pacing_preset: s.reel!.pacingPreset,
          featured: s.featured,
          category: s.category,
          views: Number(s.views),
        })),
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
        messages: res.messages.map((m) => ({
          id: m.id,
          name: m.name,
          email: m.email,
          topic: m.topic,
          message: m.message,
          created_at: new Date(Number(m.createdAtUnixMs)).toISOString(),
        })),
      };
    },
  );
};
