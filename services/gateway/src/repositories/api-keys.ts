import { DomainError, ErrorCode } from '@reelsmith/kit';
import type { Caller } from '../domain/sessions.js';
import type { Peers } from './clients.js';

/** The account's plan includes API access (read from billing; admins always). */
export async function planAllowsApi(peers: Pick<Peers, 'billing'>, u: { id: string; isAdmin: boolean; unlimited: boolean }) {
  if (u.isAdmin) return true;
  const { account } = await peers.billing.getAccount({ userId: u.id, unlimited: u.unlimited, enterprise: false });
  const sub = account?.subscription;
  return sub?.plan === 'corporate' && sub.status === 'active';
}

/**
 * Identity's AuthenticateApiKey, then billing's plan: the caller of an `rs_live_` bearer. The
 * guest pass never has API access. UNAUTHENTICATED (invalid_api_key) when the key is unknown or revoked.
 */
export async function verifyApiKey(peers: Pick<Peers, 'identity' | 'billing'>, secret: string): Promise<Caller> {
  const { user, key } = await peers.identity.authenticateApiKey({ secret });
  if (!user || !key) throw new DomainError(ErrorCode.UNAUTHENTICATED, 'This API key is not valid or was revoked.', 'invalid_api_key');
  return {
    id: user.id,
    email: user.email,
    isAdmin: user.isAdmin,
    isGuest: user.isGuest,
    unlimited: user.unlimited,
    displayName: user.displayName,
    apiKey: { id: key.id, scopes: key.scopes, planAllows: !user.isGuest && (await planAllowsApi(peers, user)) },
  };
}
