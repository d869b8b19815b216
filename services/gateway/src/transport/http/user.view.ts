import type { identity } from '@reelsmith/proto';
import type { Peers } from '../../repositories/clients.js';

/** The spec's User entity as the API returns it: identity's user plus billing's account. */
export interface UserBody {
  id: string;
  email: string;
  is_admin: boolean;
  is_guest: boolean;
  email_verified: boolean;
  credits: number;
  subscription: { plan: string; status: string; next_billing: string | null; billing_cycle: string | null };
  last_free_use: string | null;
  daily_free_used: boolean;
}

export const userSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    email: { type: 'string' },
    is_admin: { type: 'boolean' },
    is_guest: { type: 'boolean' },
    email_verified: { type: 'boolean' },
    credits: { type: 'integer' },
    subscription: {
      type: 'object',
      properties: {
        plan: { type: 'string' },
        status: { type: 'string' },
        next_billing: { type: ['string', 'null'] },
        billing_cycle: { type: ['string', 'null'] },
      },
    },
    last_free_use: { type: ['string', 'null'] },
    daily_free_used: { type: 'boolean' },
  },
} as const;

export async function userBody(peers: Peers, u: identity.User, requestId: string): Promise<UserBody> {
  const { account } = await peers.billing.getAccount({ userId: u.id, unlimited: u.unlimited }, { requestId });
  const sub = account?.subscription;
  const guest = u.isGuest;
  return {
    id: u.id,
    email: u.email,
    is_admin: u.isAdmin,
    is_guest: guest,
    email_verified: u.emailVerified,
    credits: Number(account?.credits ?? 0n),
    subscription: {
      // The guest pass is enterprise access: shown as the corporate plan, active.
      plan: guest ? 'corporate' : (sub?.plan ?? 'free'),
      status: guest ? 'active' : (sub?.status ?? 'inactive'),
      next_billing: sub?.nextBillingUnixMs ? new Date(Number(sub.nextBillingUnixMs)).toISOString() : null,
      billing_cycle: sub?.billingCycle || null,
    },
    last_free_use: account?.lastFreeUse || null,
    daily_free_used: account?.dailyFreeUsed ?? false,
  };
}
