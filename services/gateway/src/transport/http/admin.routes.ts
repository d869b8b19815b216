import type { FastifyPluginAsync } from 'fastify';
import type { Peers } from '../../repositories/clients.js';
import { callerOf } from './auth.js';

/** Admin routes; every one is declared with access 'admin', so the one guard checks it. */
export const adminRoutes: FastifyPluginAsync<{ peers: Peers }> = async (app, { peers }) => {
  app.get('/admin/guest-pass', { config: { access: 'admin' } }, async (req) => {
    const g = await peers.identity.getGuestPass({}, { requestId: req.id });
    return { enabled: g.enabled, email: g.email };
  });

  app.post<{ Body: { enabled: boolean } }>(
    '/admin/guest-pass',
    {
      config: { access: 'admin' },
      schema: {
        body: { type: 'object', required: ['enabled'], additionalProperties: false, properties: { enabled: { type: 'boolean' } } },
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
