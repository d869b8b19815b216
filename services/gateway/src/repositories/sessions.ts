import { DomainError, ErrorCode, type Bus, type Logger } from '@reelsmith/kit';
import type { SessionVerifier, VerifyWithIdentity } from '../domain/sessions.js';
import { isApiKeySecret } from '@reelsmith/proto';
import { verifyApiKey } from './api-keys.js';
import type { Peers } from './clients.js';

/**
 * Identity's Authenticate as the session verifier's source of truth; an API key (rs_live_...) is
 * checked by identity's AuthenticateApiKey and billing's plan instead (with the same cache and
 * revocation: a key's cache entry is its sha256, like a session's).
 */
export const verifyWithIdentity =
  (peers: Pick<Peers, 'identity' | 'billing'>): VerifyWithIdentity =>
  async (token) => {
    if (isApiKeySecret(token)) return verifyApiKey(peers, token);
    const { user } = await peers.identity.authenticate({ sessionToken: token });
    if (!user) throw new DomainError(ErrorCode.UNAUTHENTICATED, 'Your session has expired. Please sign in again.', 'session_expired');
    return {
      id: user.id,
      email: user.email,
      isAdmin: user.isAdmin,
      isGuest: user.isGuest,
      unlimited: user.unlimited,
      displayName: user.displayName,
    };
  };

export interface Revoked {
  tokenHashes: readonly string[];
  userId: string;
}

/** Identity's `sessions.revoked` messages end the sessions in this replica's cache (and their sockets). */
export function followRevocations(bus: Bus, sessions: SessionVerifier, log: Logger, also?: (r: Revoked) => void) {
  return bus.subscribeCore('sessionsRevoked', (m) => {
    const n = sessions.revoke(m.tokenHashes, m.userId || undefined);
    // An admin flag changed: the next request asks identity again; the user's sockets stay.
    if (!m.sessionsRemain) also?.({ tokenHashes: m.tokenHashes, userId: m.userId });
    log.debug({ cached: n, user_id: m.userId || undefined }, 'sessions revoked');
  });
}
