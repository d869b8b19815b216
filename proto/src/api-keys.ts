/**
 * API keys' contract, shared by identity (which stores and checks them) and the gateway (which
 * enforces the scopes): the secret's prefix and the scopes a key may hold.
 */
export const API_KEY_PREFIX = 'rs_live_';

/** What a key may be allowed to do; a route that needs none of these refuses every key. */
export const API_KEY_SCOPES = ['uploads:write', 'jobs:write', 'jobs:read', 'library:read', 'reels:read', 'reels:delete'] as const;
export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];

export const isApiKeyScope = (s: string): s is ApiKeyScope => (API_KEY_SCOPES as readonly string[]).includes(s);

/** Whether a bearer token is an API key (rather than a session token). */
export const isApiKeySecret = (token: string) => token.startsWith(API_KEY_PREFIX);
