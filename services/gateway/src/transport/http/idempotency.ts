import { Interval, isDomainError, type Logger } from '@reelsmith/kit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { z } from 'zod';
import { canonicalJson, fingerprint, Idempotency, IN_PROGRESS_RETRY_AFTER_S } from '../../domain/idempotency.js';
import { errorBody } from './schemas.js';

/** The routes that honour an Idempotency-Key header (route templates with their method). */
export const IDEMPOTENT_ROUTES: ReadonlySet<string> = new Set([
  'POST /api/v1/jobs/assemble',
  'POST /api/v1/jobs/plan',
  'POST /api/v1/uploads/file',
]);

const header = z
  .string()
  .max(255)
  .optional()
  .describe(
    'Any unique string (a UUID) per request: for 24 hours, the same key with the same request answers the first answer again without running it twice; with a different request, 409',
  );

/**
 * What makes two requests the same: the route and its validated JSON body, keys in any order. A
 * multipart upload is streamed to storage as it arrives, so it is told apart by its size.
 */
export function requestPrint(req: FastifyRequest): string {
  const route = `${req.method} ${req.routeOptions.url ?? ''}`;
  if (req.headers['content-type']?.startsWith('multipart/')) return fingerprint(route, `multipart:${req.headers['content-length'] ?? ''}`);
  return fingerprint(route, canonicalJson(req.body ?? null));
}

/**
 * Idempotency-Key on IDEMPOTENT_ROUTES: each declares the header (and its 409) in its schema; with
 * a store, a signed-in caller's first request with a key runs and its 2xx answer is kept, a repeat
 * answers it again (with `Idempotent-Replayed: true`), a running one is waited for.
 */
export const idempotencyPlugin = fp<{ idempotency?: Idempotency }>(async (app: FastifyInstance, { idempotency }) => {
  app.addHook('onRoute', (route) => {
    if (!IDEMPOTENT_ROUTES.has(`${[route.method].flat()[0]} ${route.url}`) || !route.schema) return;
    const schema = route.schema as { headers?: unknown; response?: Record<string | number, unknown> };
    // A route's own header schema wins; others get the header (and the 409 it may answer).
    schema.headers ??= z.object({ 'idempotency-key': header });
    if (schema.response) schema.response = { 409: errorBody, ...schema.response };
  });
  if (!idempotency) return;
  // Keys past their 24 hours are dropped every hour, while the server runs.
  const sweeper = new Interval(() => idempotency.sweep(), 3600_000, app.log as unknown as Logger);
  app.addHook('onReady', async () => sweeper.start());
  app.addHook('onClose', async () => sweeper.stop());
  const held = new WeakMap<FastifyRequest, { owner: string; key: string; claim: string }>();
  const letGo = async (req: FastifyRequest) => {
    const h = held.get(req);
    if (!h) return;
    held.delete(req);
    await idempotency.release(h.owner, h.key, h.claim).catch((e: unknown) => req.log.warn({ err: e }, 'idempotency key not released'));
  };
  const begin = async (req: FastifyRequest, reply: FastifyReply) => {
    const key = req.headers['idempotency-key'];
    if (typeof key !== 'string' || !req.caller) return;
    const r = await idempotency.begin(req.caller.id, key, requestPrint(req)).catch((e: unknown) => {
      // "Still running": the retry is told when to come back.
      if (isDomainError(e) && e.reason === 'idempotency_in_progress') void reply.header('retry-after', String(IN_PROGRESS_RETRY_AFTER_S));
      throw e;
    });
    if (r.run) {
      held.set(req, { owner: req.caller.id, key, claim: r.claim });
      return;
    }
    // The first answer again; an upload's body is not read (and the connection not reused).
    if (req.isMultipart?.()) void reply.header('connection', 'close');
    return reply.code(r.status).header('idempotent-replayed', 'true').type('application/json; charset=utf-8').send(r.body);
  };
  const save = async (req: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    const h = held.get(req);
    if (!h) return payload;
    if (reply.statusCode >= 200 && reply.statusCode < 300 && typeof payload === 'string') {
      held.delete(req);
      await idempotency.complete(h.owner, h.key, h.claim, reply.statusCode, payload);
    } else await letGo(req);
    return payload;
  };
  // Only the routes that honour the header run these hooks (every other request skips them). The
  // key is looked up before the route's own preHandlers (its rate limit): a repeat answers the first
  // answer again without counting. A request whose answer was never sent through onSend (a failure
  // on the way) frees its key.
  app.addHook('onRoute', (route) => {
    if (!IDEMPOTENT_ROUTES.has(`${[route.method].flat()[0]} ${route.url}`)) return;
    route.preHandler = [begin, ...[route.preHandler ?? []].flat()];
    route.onSend = [...[route.onSend ?? []].flat(), save];
    route.onResponse = [...[route.onResponse ?? []].flat(), letGo];
  });
});
