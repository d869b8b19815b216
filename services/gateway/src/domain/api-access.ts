import { DomainError, ErrorCode } from '@reelsmith/kit';
import type { ApiKeyScope } from '@reelsmith/proto';

/** What an API key brings to its caller: which key, what it may do, and whether the plan allows API use. */
export interface ApiKeyGrant {
  id: string;
  scopes: readonly string[];
  /** The account's plan includes API access (Corporate), or the account is an admin. */
  planAllows: boolean;
}

/** The plan that includes API access, named in every refusal. */
export const API_PLAN_NAME = 'Corporate';

/** Routes a key may call (`METHOD /path` under /api/v1), with the scope each needs; 'any': every key. */
export const ROUTE_SCOPES: Readonly<Record<string, ApiKeyScope | 'any'>> = {
  'GET /auth/me': 'any',
  'POST /uploads/file': 'uploads:write',
  'GET /uploads/info': 'uploads:write',
  'POST /uploads/tempo': 'uploads:write',
  'POST /jobs/plan': 'jobs:write',
  'POST /jobs/assemble': 'jobs:write',
  'POST /jobs/:id/cancel': 'jobs:write',
  'GET /jobs': 'jobs:read',
  'GET /jobs/:id/status': 'jobs:read',
  'GET /downloads/:id': 'jobs:read',
  'GET /video-library': 'library:read',
  'POST /video-library/select': 'library:read',
  'GET /music-library': 'library:read',
  'POST /music-library/select': 'library:read',
  'POST /music-library/cache/:key': 'library:read',
  'GET /library': 'reels:read',
  'POST /library/:id/access': 'reels:read',
  'DELETE /library/:id': 'reels:delete',
};

/** Account, key and payment routes: a key never reaches them, whatever its scopes. */
const ACCOUNT_ONLY = /^\/(auth\/|api-keys|payments\/|billing\/subscription|webhook-endpoints|webhook-deliveries)/;

export const ACCOUNT_ONLY_DETAIL =
  'An API key cannot change the password or e-mail, delete the account, manage API keys or webhooks, or pay. Sign in to Reelsmith to do that.';
export const NO_API_ACCESS_DETAIL = `API access is part of the ${API_PLAN_NAME} plan. Upgrade to ${API_PLAN_NAME} on the Pricing page to use API keys.`;

const forbidden = (detail: string, reason: string) => new DomainError(ErrorCode.PERMISSION_DENIED, detail, reason);

/**
 * Whether an API key may call a route (`path` the route's template without /api/v1); throws the
 * 403 a caller reads otherwise. Public routes are open to keys like to anyone.
 */
export function checkApiKeyAccess(grant: ApiKeyGrant, method: string, path: string, access: 'public' | 'user' | 'admin'): void {
  if (!grant.planAllows) throw forbidden(NO_API_ACCESS_DETAIL, 'api_access_not_in_plan');
  if (access === 'public') return;
  const need = ROUTE_SCOPES[`${method === 'HEAD' ? 'GET' : method} ${path}`];
  if (!need || access === 'admin')
    throw ACCOUNT_ONLY.test(path)
      ? forbidden(ACCOUNT_ONLY_DETAIL, 'api_key_not_allowed')
      : forbidden('API keys cannot be used for this action. Sign in to Reelsmith to do it.', 'api_key_not_allowed');
  if (need !== 'any' && !grant.scopes.includes(need))
    throw forbidden(`This API key does not have the ${need} scope this action needs.`, 'missing_scope');
}

/** Requests per key per window, in each gateway process. */
export const API_KEY_RATE_LIMIT = { max: 120, windowMs: 60_000 };

/**
 * A fixed-window counter per key: `hit` answers 0 while the key is under its limit, otherwise the
 * seconds until its window ends (the Retry-After). Windows of keys not seen for a while are dropped.
 */
export class KeyRateLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(
    private readonly limit = API_KEY_RATE_LIMIT,
    private readonly now: () => number = Date.now,
  ) {}

  hit(keyId: string): number {
    const t = this.now();
    let w = this.windows.get(keyId);
    if (!w || t - w.start >= this.limit.windowMs) {
      if (this.windows.size > 10_000) for (const [k, v] of this.windows) if (t - v.start >= this.limit.windowMs) this.windows.delete(k);
      w = { start: t, count: 0 };
      this.windows.set(keyId, w);
    }
    w.count++;
    return w.count <= this.limit.max ? 0 : Math.max(1, Math.ceil((w.start + this.limit.windowMs - t) / 1000));
  }
}
