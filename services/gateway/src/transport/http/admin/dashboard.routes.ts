import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Peers } from '../../../repositories/clients.js';
import {
  activityEventSchema,
  activityEventView,
  activityQuery,
  adminJobSchema,
  adminJobView,
  metricsSchema,
  metricsView,
} from '../admin.schemas.js';
import { errors, uuidParams } from '../schemas.js';

/** The admin dashboard: any job, the 24-hour summary and the activity feed (the detailed health is health.routes.ts). */
export const dashboardRoutes: FastifyPluginAsyncZod<{ peers: Peers }> = async (app, { peers }) => {
  app.get(
    '/admin/jobs/:id',
    {
      config: { access: 'admin' },
      schema: {
        summary: "Any user's job as the orchestrator records it, with the workers that rendered a long reel's chunks",
        params: uuidParams,
        response: { 200: adminJobSchema, ...errors(400, 401, 403, 404) },
      },
    },
    async (req, reply) => {
      const j = await peers.jobs.getJob({ jobId: req.params.id, ownerId: '' }, { requestId: req.id });
      void reply.header('cache-control', 'no-store');
      return adminJobView(j);
    },
  );

  // Not the ops port's Prometheus /metrics: this is the dashboard's 24-hour summary, in JSON.
  app.get(
    '/metrics',
    {
      config: { access: 'admin' },
      schema: {
        summary: 'Requests, users, reels and revenue over the last 24 hours',
        response: { 200: metricsSchema, ...errors(401, 403, 503) },
      },
    },
    async (req, reply) => {
      const [s, revenue] = await Promise.all([
        peers.telemetry.summary({ hours: 24 }, { requestId: req.id }),
        peers.billing.revenue({ hours: 24 }, { requestId: req.id }),
      ]);
      void reply.header('cache-control', 'no-store');
      return metricsView(s, revenue);
    },
  );

  app.get(
    '/admin/activity-feed',
    {
      config: { access: 'admin' },
      schema: {
        summary: 'Recent activity, newest first',
        querystring: activityQuery,
        response: { 200: z.array(activityEventSchema), ...errors(400, 401, 403, 503) },
      },
    },
    async (req, reply) => {
      const before = req.query.before ? Date.parse(req.query.before) : 0;
      const r = await peers.telemetry.activityFeed({ limit: req.query.limit, beforeUnixMs: BigInt(before) }, { requestId: req.id });
      void reply.header('cache-control', 'no-store');
      return r.events.map(activityEventView);
    },
  );
};
