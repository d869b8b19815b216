import type { ServiceImpl } from '@reelsmith/kit';
import type { identity } from '@reelsmith/proto';
import type { ApiKeyRecord, ApiKeysService } from '../domain/api-keys.service.js';
import { user } from './grpc.js';

export type ApiKeyHandlers = Pick<
  ServiceImpl<typeof identity.IdentityService>,
  'createApiKey' | 'listApiKeys' | 'revokeApiKey' | 'authenticateApiKey'
>;

const key = (k: ApiKeyRecord) => ({
  id: k.id,
  name: k.name,
  prefix: k.prefix,
  scopes: k.scopes,
  createdAtUnixMs: BigInt(k.createdAt.getTime()),
  lastUsedAtUnixMs: k.lastUsedAt ? BigInt(k.lastUsedAt.getTime()) : 0n,
});

/** API keys' gRPC handlers (spread into identity's binding). */
export const apiKeyHandlers = (svc: ApiKeysService): ApiKeyHandlers => ({
  createApiKey: async (req) => {
    const r = await svc.create(req.userId, req.name, req.scopes);
    return { key: key(r.key), secret: r.secret };
  },
  listApiKeys: async (req) => ({ keys: (await svc.list(req.userId)).map(key) }),
  revokeApiKey: async (req) => ({ publicHash: await svc.revoke(req.userId, req.keyId) }),
  authenticateApiKey: async (req) => {
    const r = await svc.authenticate(req.secret);
    return { user: user(r.user), key: key(r.key) };
  },
});
