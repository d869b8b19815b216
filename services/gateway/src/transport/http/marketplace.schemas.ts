import type { ObjectStore } from '@reelsmith/kit';
import type { marketplace } from '@reelsmith/proto';
import { z } from 'zod';
import { LINK_SECONDS } from '../../domain/job-status.js';

/**
 * The footage marketplace's API objects (an opted-in clip as admins review it, an offer as its
 * owner sees it, a payout) and the mappings from marketplace's messages to them, shared by the
 * admins' routes (admin/footage.routes.ts) and the user's offers (marketplace.routes.ts).
 */

type Clip = marketplace.Clip;

const iso = (ms: bigint) => (ms ? new Date(Number(ms)).toISOString() : null);
const mb = (bytes: bigint) => Math.round((Number(bytes) / (1024 * 1024)) * 100) / 100;

const clipStatus = z.enum(['pending', 'cash_offered', 'credits_offered', 'purchased', 'rejected', 'removed']);
type ClipStatus = z.infer<typeof clipStatus>;

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

/** A signed, expiring link to a clip's thumbnail; null when it has none. */
export const clipThumbnail = async (store: Pick<ObjectStore, 'signedUrl'>, c: Clip) =>
  c.thumbnailKey ? await store.signedUrl(c.thumbnailKey, { expiresInSeconds: LINK_SECONDS }) : null;

const cash = (c: Clip) => (c.offerType === 'cash' ? Number(c.cashCents) / 100 : null);
const credits = (c: Clip) => (c.offerType === 'credits' ? Number(c.credits) : null);

/** A clip as admins review it (`footageClip`). */
export const footageClipView = (c: Clip, thumbnailUrl: string | null) => ({
  id: c.id,
  filename: c.filename,
  user_email: c.userEmail,
  uploaded_at: iso(c.uploadedAtUnixMs) ?? '',
  file_size_mb: mb(c.sizeBytes),
  thumbnail_url: thumbnailUrl,
  status: c.status as ClipStatus,
  cash_offer: cash(c),
  credits_offer: credits(c),
  offered_at: iso(c.offeredAtUnixMs),
});

/** A clip as its owner sees the offer for it (`offer`). */
export const offerView = (c: Clip, thumbnailUrl: string | null) => ({
  id: c.id,
  filename: c.filename,
  thumbnail_url: thumbnailUrl,
  status: c.status as ClipStatus,
  file_size_mb: mb(c.sizeBytes),
  uploaded_at: iso(c.uploadedAtUnixMs) ?? '',
  offered_at: iso(c.offeredAtUnixMs),
  cash_offer: cash(c),
  credits_offer: credits(c),
});

export const payoutView = (p: marketplace.Payout) => ({
  id: p.id,
  clip_id: p.clipId,
  user_email: p.userEmail,
  filename: p.filename,
  amount: Number(p.amountCents) / 100,
  state: p.state as 'pending' | 'paid',
  created_at: iso(p.createdAtUnixMs) ?? '',
  paid_at: iso(p.paidAtUnixMs),
});
