import type { identity } from '@reelsmith/proto';
import type { Peers } from '../../repositories/clients.js';
import type { UserBody } from './schemas.js';

/**
 * The spec's User entity as the API returns it: identity's user plus billing's account. Billing
 * decides the plan shown and the limits (and their wording) for this user; the web shows them.
 */
export async function userBody(
  peers: Peers,
  u: Pick<identity.User, 'id' | 'email' | 'isAdmin' | 'isGuest' | 'emailVerified' | 'unlimited'> & { displayName?: string },
  requestId: string,
): Promise<UserBody> {
  const { account } = await peers.billing.getAccount({ userId: u.id, unlimited: u.unlimited, enterprise: u.isGuest }, { requestId });
  const sub = account?.subscription;
  const e = account?.entitlements;
  return {
    id: u.id,
    email: u.email,
    is_admin: u.isAdmin,
    is_guest: u.isGuest,
    email_verified: u.emailVerified,
    display_name: u.displayName || null,
    credits: Number(account?.credits ?? 0n),
    subscription: {
      plan: sub?.plan || 'free',
      status: sub?.status || 'inactive',
      next_billing: sub?.nextBillingUnixMs ? new Date(Number(sub.nextBillingUnixMs)).toISOString() : null,
      billing_cycle: sub?.billingCycle || null,
      cancel_at_period_end: sub?.cancelAtPeriodEnd ?? false,
    },
    last_free_use: account?.lastFreeUse || null,
    daily_free_used: account?.dailyFreeUsed ?? false,
    entitlements: {
      upload_cap_bytes: Number(e?.uploadCapBytes ?? 0n),
      music_cap_seconds: Number(e?.musicCapSeconds ?? 0n),
      library_selection_cap: e?.librarySelectionCap ?? 0,
      reel_cap_seconds: Number(e?.reelCapSeconds ?? 0n),
      unlimited: e?.unlimited ?? false,
      subscribed: e?.subscribed ?? false,
      messages: {
        upload: e?.uploadLimitMessage ?? '',
        music: e?.musicLimitMessage ?? '',
        selection: e?.selectionLimitMessage ?? '',
        insufficient: e?.insufficientMessage ?? '',
        reel_length: e?.reelLengthLimitMessage ?? '',
      },
    },
  };
}
