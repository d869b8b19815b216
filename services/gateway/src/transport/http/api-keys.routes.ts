import { DomainError, ErrorCode } from '@reelsmith/kit';
import { API_KEY_SCOPES, type identityApiKeys } from '@reelsmith/proto';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { NO_API_ACCESS_DETAIL } from '../../domain/api-access.js';
import type { SessionVerifier } from '../../domain/sessions.js';
import type { Peers } from '../../repositories/clients.js';
import { planAllowsApi } from '../../repositories/api-keys.js';
import { callerOf } from './auth.js';
import { errors, message, uuidParams } from './schemas.js';

const scope = z.enum(API_KEY_SCOPES).meta({ id: 'ApiKeyScope' });

export const apiKey = z
  .object({
    id: z.uuid(),
    name: z.string(),
    prefix: z.string().describe('The first characters of the secret, to tell keys apart'),
    scopes: z.array(scope),
    created_at: z.string(),
    last_used_at: z.string().nullable().describe('When a request last used the key (to the minute); null: never'),
  })
  .meta({ id: 'ApiKey' });

export const apiKeyCreated = apiKey
  .extend({ secret: z.string().describe('The key itself (rs_live_...): shown this once, never again') })
  .meta({ id: 'ApiKeyCreated' });

const createBody = z
  .object({
    name: z.string().min(1).max(60),
    scopes: z.array(scope).min(1).max(API_KEY_SCOPES.length),
  })
  .meta({ id: 'ApiKeyRequest' });

const view = (k: identityApiKeys.ApiKey) => ({
  id: k.id,
  name: k.name,
  prefix: k.prefix,
  scopes: k.scopes as z.infer<typeof scope>[],
  created_at: new Date(Number(k.createdAtUnixMs)).toISOString(),
  last_used_at: k.lastUsedAtUnixMs > 0n ? new Date(Number(k.lastUsedAtUnixMs)).toISOString() : null,
});

/**
 * POST /api-keys, GET /api-keys, DELETE /api-keys/:id: a signed-in user's keys. Only with a
 * session (an API key never manages keys: domain/api-access.ts), and only on a plan with API access.
 */
export const apiKeysRoutes: FastifyPluginAsyncZod<{ peers: Peers; sessions?: SessionVerifier }> = async (app, { peers, sessions }) => {
  app.post(
    '/api-keys',
    {
      config: { access: 'user', rateLimit: { max: 20, timeWindow: 60_000 } },
      schema: {
        summary: 'Create an API key (Corporate plan or admin): the secret is in this answer only',
        body: createBody,
        response: { 201: apiKeyCreated, ...errors(400, 401, 403, 429) },
      },
    },
    async (req, reply) => {
      const caller = callerOf(req);
      if (caller.isGuest || !(await planAllowsApi(peers, caller)))
        throw new DomainError(ErrorCode.PERMISSION_DENIED, NO_API_ACCESS_DETAIL, 'api_access_not_in_plan');
      const r = await peers.identity.createApiKey(
        { userId: caller.id, name: req.body.name, scopes: req.body.scopes },
        { requestId: req.id },
      );
      req.log.info({ api_key_id: r.key!.id }, 'API key created');
      return reply
        .status(201)
        .header('cache-control', 'no-store')
        .send({ ...view(r.key!), secret: r.secret });
    },
  );

  app.get(
    '/api-keys',
    {
      config: { access: 'user' },
      schema: {
        summary: 'Your API keys (never their secrets), newest first',
        response: { 200: z.object({ keys: z.array(apiKey) }).meta({ id: 'ApiKeyList' }), ...errors(401, 403) },
      },
    },
    async (req) => {
      const { keys } = await peers.identity.listApiKeys({ userId: callerOf(req).id }, { requestId: req.id });
      return { keys: keys.map(view) };
    },
  );

  app.delete(
    '/api-keys/:id',
    {
      config: { access: 'user' },
      schema: {
        summary: 'Revoke an API key: it answers 401 at once, on every gateway',
        params: uuidParams,
        response: { 200: message, ...errors(400, 401, 403, 404) },
      },
    },
    async (req) => {
      const { publicHash } = await peers.identity.revokeApiKey({ userId: callerOf(req).id, keyId: req.params.id }, { requestId: req.id });
      // This gateway at once (the key is cached by this hash); every gateway through identity's sessions.revoked.
      if (publicHash) sessions?.revoke([publicHash]);
      req.log.info({ key_id: req.params.id }, 'API key revoked');
      return { message: 'API key revoked' };
    },
  );
};
