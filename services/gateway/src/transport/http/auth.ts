import type { IncomingHttpHeaders } from 'node:http';
import { DomainError, ErrorCode, isDomainError } from '@reelsmith/kit';
import { isApiKeySecret } from '@reelsmith/proto';
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { checkApiKeyAccess, KeyRateLimiter, ROUTE_SCOPES } from '../../domain/api-access.js';
import type { Caller, SessionVerifier } from '../../domain/sessions.js';
import { errorBody } from './schemas.js';
import { rateLimitedError } from './security.js';

export type { Caller } from '../../domain/sessions.js';

/** Route option: who may call it. Default: anyone. */
export type Access = 'public' | 'user' | 'admin';

declare module 'fastify' {
  interface FastifyRequest {
    caller: Caller | null;
  }
  interface FastifyContextConfig {
    access?: Access;
    /**
     * This route's budget for its gRPC calls together, when it needs more than REQUEST_DEADLINE_MS
     * (the plan preview of a long reel cuts hundreds of timeline frames).
     */
    deadlineMs?: number;
  }
  interface FastifyInstance {
    /** Every route registered with access 'admin' (tests enumerate it). */
    adminRoutes: Array<{ method: string; url: string }>;
  }
}

/** The bearer token of a request's Authorization header ('' when there is none). */
export const bearer = (req: { headers: IncomingHttpHeaders }): string => {
  const h = req.headers.authorization;
  return typeof h === 'string' && h.startsWith('Bearer ') ? h.slice(7).trim() : '';
};

const unauthenticated = () => new DomainError(ErrorCode.UNAUTHENTICATED, 'Please sign in to continue.', 'unauthenticated');

/**
 * One hook resolves the caller for every route from the bearer token (through the gateway's
 * session cache); one guard enforces each route's `access`: 'user' needs a valid session (401
 * otherwise), 'admin' an admin (403). On a public route an invalid token is ignored and the caller
 * is anonymous. 401 only ever means identity said the token is invalid: when identity is slow,
 * overloaded or unreachable, a route that needs the caller answers 503 with Retry-After.
 */
export const authPlugin = fp<{ sessions: SessionVerifier; keyLimiter?: KeyRateLimiter }>(async (app: FastifyInstance, opts) => {
  const { sessions } = opts;
  const keyLimiter = opts.keyLimiter ?? new KeyRateLimiter();
  const prefix = '/api/v1';
  /** An API key's caller: the route must take its scope, and the key is under its rate limit. */
  const admitKey = (req: FastifyRequest, reply: FastifyReply, access: Access) => {
    const grant = req.caller!.apiKey!;
    const url = req.routeOptions.url ?? '';
    checkApiKeyAccess(grant, req.method, url.startsWith(prefix) ? url.slice(prefix.length) : url, access);
    const wait = keyLimiter.hit(grant.id);
    if (wait) {
      void reply.header('retry-after', String(wait));
      throw rateLimitedError(wait);
    }
  };
  app.decorateRequest('caller', null);
  app.decorate('adminRoutes', []);
  // The OpenAPI document says which operations an API key may call, with the scope each needs
  // (read by @fastify/swagger when the document is built, after every route is known).
  app.addHook('onRoute', (route) => {
    const scope = ROUTE_SCOPES[`${[route.method].flat()[0]} ${route.url.replace(/^\/api\/v1/, '')}`];
    const schema = route.schema as { security?: unknown[]; hide?: boolean; response?: Record<string | number, unknown> } | undefined;
    if (!scope || !schema || schema.hide || !route.url.startsWith('/api/v1/')) return;
    schema.security = [{ session: [] }, { apiKey: scope === 'any' ? [] : [scope] }];
    // A key can be refused (403: scope, plan) or limited (429) on any of them.
    if (schema.response) schema.response = { 403: errorBody, 429: errorBody, ...schema.response };
  });
  app.addHook('onRoute', (route) => {
    if (route.config?.access === 'admin')
      for (const m of [route.method].flat()) if (m !== 'HEAD') app.adminRoutes.push({ method: m, url: route.url });
  });
  /** Checks the route's access once the caller is known; binds the user to the request's logs. */
  const admit = (req: FastifyRequest, reply: FastifyReply, access: Access) => {
    if (req.caller?.apiKey) admitKey(req, reply, access);
    if (req.caller) {
      // The request's own logger gains the field. A child of it would make every request's logger
      // the prototype of another object, which V8 makes costly (a tenth of a request's CPU time).
      const log = req.log as FastifyBaseLogger & { setBindings?: (b: Record<string, unknown>) => void };
      if (log !== app.log && typeof log.setBindings === 'function') log.setBindings({ user_id: req.caller.id });
      else req.log = req.log.child({ user_id: req.caller.id });
    }
    if (access === 'public') return;
    if (!req.caller) throw unauthenticated();
    if (access === 'admin' && !req.caller.isAdmin)
      throw new DomainError(ErrorCode.PERMISSION_DENIED, 'This action is only available to administrators.', 'forbidden');
  };
  // onRequest: the caller is checked before the body is even parsed or validated. A session in
  // the gateway's cache is answered at once (no promise); any other goes to identity.
  app.addHook('onRequest', (req, reply, done) => {
    const access = req.routeOptions.config.access ?? 'public';
    const token = bearer(req);
    const cached = token ? sessions.cached(token) : undefined;
    if (!token || cached) {
      req.caller = cached ?? null;
      try {
        admit(req, reply, access);
      } catch (e) {
        return done(e as Error);
      }
      return done();
    }
    sessions.verify(token).then(
      (caller) => {
        req.caller = caller;
        if (!caller && access !== 'public')
          return done(
            isApiKeySecret(token)
              ? new DomainError(ErrorCode.UNAUTHENTICATED, 'This API key is not valid or was revoked.', 'invalid_api_key')
              : new DomainError(ErrorCode.UNAUTHENTICATED, 'Your session has expired. Please sign in again.', 'session_expired'),
          );
        try {
          admit(req, reply, access);
        } catch (e) {
          return done(e as Error);
        }
        done();
      },
      (e: unknown) => {
        // Identity could not answer: a public route serves the caller anonymously, any other
        // route says "retry" (503), never "signed out".
        if (access !== 'public' || !isDomainError(e) || e.code !== ErrorCode.UNAVAILABLE) return done(e as Error);
        done();
      },
    );
  });
});

/** The caller of a route declared with access 'user' or 'admin' (the guard ran). */
export const callerOf = (req: FastifyRequest): Caller => {
  if (!req.caller) throw unauthenticated();
  return req.caller;
};
