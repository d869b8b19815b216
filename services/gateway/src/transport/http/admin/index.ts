import type { ObjectStore } from '@reelsmith/kit';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Peers } from '../../../repositories/clients.js';
import { dashboardRoutes } from './dashboard.routes.js';
import { footageAdminRoutes } from './footage.routes.js';
import { guestPassRoutes } from './guest-pass.routes.js';
import { libraryAdminRoutes } from './library.routes.js';
import { showcaseAdminRoutes } from './showcase.routes.js';

/**
 * Every /admin route (and GET /metrics, the dashboard's summary), one route file per area here:
 * the guest pass, the dashboard (any job, the summary, the activity feed), the showcase and the
 * contact inbox, the footage marketplace's review, and the stock libraries' uploads and removals
 * (those two need object storage). Every one is declared with access 'admin', so the one guard
 * checks it.
 */
export const adminRoutes: FastifyPluginAsyncZod<{ peers: Peers; store?: ObjectStore }> = async (app, { peers, store }) => {
  await app.register(guestPassRoutes, { peers });
  await app.register(dashboardRoutes, { peers });
  await app.register(showcaseAdminRoutes, { peers });
  if (store) {
    await app.register(footageAdminRoutes, { peers, store });
    await app.register(libraryAdminRoutes, { peers, store });
  }
};
