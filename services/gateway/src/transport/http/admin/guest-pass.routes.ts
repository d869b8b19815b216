import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Peers } from '../../../repositories/clients.js';
import { callerOf } from '../auth.js';
import { errors, guestPass } from '../schemas.js';

/** The guest pass (a shared account with enterprise access): whether it is on; turning it on (or rotating its password) or off. */
export const guestPassRoutes: FastifyPluginAsyncZod<{ peers: Peers }> = async (app, { peers }) => {
  app.get(
    '/admin/guest-pass',
    { config: { access: 'admin' }, schema: { summary: 'Whether the guest pass is on', response: { 200: guestPass, ...errors(401, 403) } } },
    async (req) => {
      const g = await peers.identity.getGuestPass({}, { requestId: req.id });
      return { enabled: g.enabled, email: g.email };
    },
  );

  app.post(
    '/admin/guest-pass',
    {
      config: { access: 'admin' },
      schema: {
        summary: 'Enable (or rotate) or disable the guest pass',
        body: z.object({ enabled: z.boolean() }).strict(),
        response: { 200: guestPass, ...errors(400, 401, 403, 409) },
      },
    },
    async (req, reply) => {
      const g = await peers.identity.setGuestPass({ enabled: req.body.enabled, adminUserId: callerOf(req).id }, { requestId: req.id });
      // The new password is shown to this admin once; it is never stored in clear or logged.
      void reply.header('cache-control', 'no-store');
      return g.enabled ? { enabled: true, email: g.email, password: g.password } : { enabled: false, email: g.email };
    },
  );
};
