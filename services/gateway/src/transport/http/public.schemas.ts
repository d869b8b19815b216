import { z } from 'zod';
import type { media, identity } from '@reelsmith/proto';
import { mirrored } from './errors.js';
import { email, trimmedRule } from './input-text.js';

/**
 * The public pages' API objects (demos, featured reels, the showcase, the contact form) and the
 * mappings from the services' messages to them, shared by the public, user and admin routes.
 */

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
export const showcaseCategory = z
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

export const showcaseRating = z
  .object({
    reel_id: z.string(),
    average: z.number().describe('Mean stars of every rating, 0 when none'),
    count: z.number().int().describe('How many users rated it'),
    mine: z.number().int().describe("The signed-in caller's own stars, 0 when none"),
  })
  .meta({ id: 'ShowcaseRating' });
/** A reel's ratings as the API answers them. */
export const ratingView = (r: { reelId: string; average: number; count: bigint; mine: number }) => ({
  reel_id: r.reelId,
  average: Math.round(r.average * 10) / 10,
  count: Number(r.count),
  mine: r.mine,
});

/** A reel its owner shared to the showcase, as the admin list shows it. */
export const sharedReelView = (s: media.SharedReel) => ({
  id: s.reel!.id,
  title: s.reel!.title,
  owner_id: s.reel!.ownerId,
  created_at: new Date(Number(s.reel!.createdAtUnixMs)).toISOString(),
  duration_sec: s.reel!.durationSec,
  pacing_preset: s.reel!.pacingPreset,
  featured: s.featured,
  category: s.category,
  views: Number(s.views),
});

/** A message of the contact inbox. */
export const contactMessageView = (m: identity.ContactMessage) => ({
  id: m.id,
  name: m.name,
  email: m.email,
  topic: m.topic,
  message: m.message,
  created_at: new Date(Number(m.createdAtUnixMs)).toISOString(),
});
