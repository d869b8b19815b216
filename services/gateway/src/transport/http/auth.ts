import { DomainError, ErrorCode, isDomainError } from '@reelsmith/kit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Peers } from '../../repositories/clients.js';

/** The caller as the gateway knows it after checking the bearer token. */
export interface Caller {
  id: string;
  email: string;
  isAdmin: boolean;
  isGuest: boolean;
  /** Never charged or limited by billing (identity decides: admins and the guest pass). */
  unlimited: boolean;
}

/** Route option: who may call it. Default: anyone. */
export type Access = 'public' | 'user' | 'admin';

declare module 'fastify' {
  interface FastifyRequest {
    caller: Caller | null;
  }
  interface FastifyContextConfig {
    access?: Access;
  }
  interface FastifyInstance {
    /** Every route registered with access 'admin' (tests enumerate it). */
    adminRoutes: Array<{ method: string; url: string }>;
  }
}

export const bearer = (req: FastifyRequest): string => {
  const h = req.headers.authorization;
  return typeof h === 'string' && h.startsWith('Bearer ') ? h.slice(7).trim() : '';
};

const unauthenticated = () => new DomainError(ErrorCode.UNAUTHENTICATED, 'Please sign in to continue.', 'unauthenticated');

/**
 * One hook resolves the caller for every route from the bearer token; one guard enforces each
 * route's `access`: 'user' needs a valid session (401 otherwise), 'admin' an admin (403).
 * On a public route an invalid token is ignored and the caller is anonymous.
 */
export const authPlugin = fp<{ peers: Peers }>(async (app: FastifyInstance, { peers }) => {
  app.decorateRequest('caller', null);
  app.decorate('adminRoutes', []);
  app.addHook('onRoute', (route) => {
    if (route.config?.access === 'admin')
      for (const m of [route.method].flat()) if (m !== 'HEAD') app.adminRoutes.push({ method: m, url: route.url });
  });
  // onRequest: the caller is checked before the body is even parsed or validated.
  app.addHook('onRequest', async (req) => {
    const access = req.routeOptions.config.access ?? 'public';
    const token = bearer(req);
    if (token) {
      try {
        const { user } = await peers.identity.authenticate({ sessionToken: token }, { requestId: req.id });
        if (user) req.caller = { id: user.id, email: user.email, isAdmin: user.isAdmin, isGuest: user.isGuest, unlimited: user.unlimited };
      } catch (e) {
        if (!isDomainError(e) || e.code !== ErrorCode.UNAUTHENTICATED) throw e;
        if (access !== 'public') throw e;
      }
    }
    if (req.caller) req.log = req.log.child({ user_id: req.caller.id });
    if (access === 'public') return;
    if (!req.caller) throw unauthenticated();
    if (access === 'admin' && !req.caller.isAdmin)
      throw new DomainError(ErrorCode.PERMISSION_DENIED, 'This action is only available to administrators.', 'forbidden');
  });
});

/** The caller of a route declared with access 'user' or 'admin' (the guard ran). */
export const callerOf = (req: FastifyRequest): Caller => {
  if (!req.caller) throw unauthenticated();
  return req.caller;
};
