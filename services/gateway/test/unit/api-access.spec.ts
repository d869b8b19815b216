import { API_KEY_SCOPES } from '@reelsmith/proto';
import { ACCOUNT_ONLY_DETAIL, KeyRateLimiter, NO_API_ACCESS_DETAIL, ROUTE_SCOPES, checkApiKeyAccess } from '../../src/domain/api-access';

const grant = (scopes: string[], planAllows = true) => ({ id: 'k1', scopes, planAllows });
const refusal = (f: () => void) => {
  try {
    f();
  } catch (e) {
    return { code: (e as { code: string }).code, reason: (e as { reason: string }).reason, detail: (e as Error).message };
  }
  return null;
};

describe('API key access', () => {
  it('lets a key call the routes of its scopes only', () => {
    expect(refusal(() => checkApiKeyAccess(grant(['jobs:write']), 'POST', '/jobs/assemble', 'user'))).toBeNull();
    expect(refusal(() => checkApiKeyAccess(grant(['jobs:write']), 'GET', '/jobs/:id/status', 'user'))).toEqual({
      code: 'PERMISSION_DENIED',
      reason: 'missing_scope',
      detail: 'This API key does not have the jobs:read scope this action needs.',
    });
    expect(refusal(() => checkApiKeyAccess(grant(['reels:read']), 'DELETE', '/library/:id', 'user'))?.reason).toBe('missing_scope');
    expect(refusal(() => checkApiKeyAccess(grant(['reels:delete']), 'DELETE', '/library/:id', 'user'))).toBeNull();
    // HEAD is a GET; every key reads its own account; public routes are open.
    expect(refusal(() => checkApiKeyAccess(grant(['jobs:read']), 'HEAD', '/downloads/:id', 'user'))).toBeNull();
    expect(refusal(() => checkApiKeyAccess(grant(['library:read']), 'GET', '/auth/me', 'user'))).toBeNull();
    expect(refusal(() => checkApiKeyAccess(grant(['library:read']), 'GET', '/billing/catalogue', 'public'))).toBeNull();
  });

  it('never lets a key change the account, manage keys or pay, nor reach admin routes', () => {
    const all = grant([...API_KEY_SCOPES]);
    for (const [method, path] of [
      ['POST', '/auth/change-password'],
      ['PATCH', '/auth/me'],
      ['POST', '/auth/delete-account'],
      ['POST', '/auth/purchase-credits'],
      ['POST', '/api-keys'],
      ['DELETE', '/api-keys/:id'],
      ['POST', '/payments/create-intent'],
      ['POST', '/billing/subscription/cancel'],
    ])
      expect(refusal(() => checkApiKeyAccess(all, method!, path!, 'user'))).toEqual({
        code: 'PERMISSION_DENIED',
        reason: 'api_key_not_allowed',
        detail: ACCOUNT_ONLY_DETAIL,
      });
    expect(refusal(() => checkApiKeyAccess(all, 'GET', '/admin/contact', 'admin'))?.reason).toBe('api_key_not_allowed');
    expect(refusal(() => checkApiKeyAccess(all, 'GET', '/user/offers', 'user'))?.detail).toBe(
      'API keys cannot be used for this action. Sign in to Reelsmith to do it.',
    );
  });

  it('refuses every call of a key whose plan has no API access, naming the Corporate plan', () => {
    const r = refusal(() => checkApiKeyAccess(grant(['jobs:read'], false), 'GET', '/jobs', 'user'));
    expect(r).toEqual({ code: 'PERMISSION_DENIED', reason: 'api_access_not_in_plan', detail: NO_API_ACCESS_DETAIL });
    expect(r!.detail).toContain('Corporate');
  });

  it('maps every scope to some route', () => {
    for (const s of API_KEY_SCOPES) expect(Object.values(ROUTE_SCOPES)).toContain(s);
  });
});

describe('per-key rate limit', () => {
  it('allows max requests a window per key, then answers the seconds left until the window ends', () => {
    let t = 1_000_000;
    const l = new KeyRateLimiter({ max: 3, windowMs: 60_000 }, () => t);
    expect([l.hit('a'), l.hit('a'), l.hit('a')]).toEqual([0, 0, 0]);
    t += 15_500;
    expect(l.hit('a')).toBe(45);
    expect(l.hit('b')).toBe(0); // another key has its own count
    t += 44_500;
    expect(l.hit('a')).toBe(0);
  });
});
