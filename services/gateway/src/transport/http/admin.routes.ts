import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Peers } from '../../repositories/clients.js';
import { activityEventSchema, activityQuery, adminJobSchema, metricsSchema } from './admin.schemas.js';
import { showcaseVideo } from '../../repositories/showcase.source.js';
import { callerOf } from './auth.js';
import { contactMessage, contactMessageView, demoVideo, sharedReel, sharedReelView, showcaseCategory } from './public.schemas.js';
import { errors, guestPass, pageQuery, uuidParams } from './schemas.js';

const num = (x: bigint) => Number(x);

/**
 * Admin routes (the guest pass, any job, the dashboard, the showcase, the contact inbox); every one is
 * declared with access 'admin', so the one guard checks it.
 */
export const adminRoutes: FastifyPluginAsyncZod<{ peers: Peers }> = async (app, { peers }) => {
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
      return {
        job_id: j.id,
        owner_id: j.ownerId,
        status: j.status,
        progress: j.progress,
        message: j.message,
        created_at: new Date(num(j.createdAtUnixMs)).toISOString(),
        updated_at: new Date(num(j.updatedAtUnixMs)).toISOString(),
        duration_sec: j.durationSec,
        size_bytes: num(j.sizeBytes),
        render_chunks: j.renderChunks.map((c) => ({ index: c.index, worker: c.worker, frames: c.frames, seconds: c.seconds })),
      };
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
      // Revenue is what billing's payments ledger says was taken (refunds off), not a telemetry count.
      const [s, revenue] = await Promise.all([
        peers.telemetry.summary({ hours: 24 }, { requestId: req.id }),
        peers.billing.revenue({ hours: 24 }, { requestId: req.id }),
      ]);
      void reply.header('cache-control', 'no-store');
      const total = num(s.totalRequests);
      return {
        metrics_summary: {
          total_requests: total,
          error_rate: total ? Math.round((10_000 * num(s.serverErrors)) / total) / 100 : 0,
          p95_ms: s.p95Ms,
        },
        user_analytics: { total_users: num(s.totalUsers), new_users: num(s.newUsers), active_users: num(s.activeUsers) },
        jobs: {
          submitted: num(s.jobsSubmitted),
          completed: num(s.jobsCompleted),
          failed: num(s.jobsFailed),
          p50_render_s: s.p50RenderS,
          p95_render_s: s.p95RenderS,
          p95_queue_wait_s: s.p95QueueWaitS,
        },
        logins: { succeeded: num(s.logins), failed: num(s.failedLogins) },
        revenue_usd: num(revenue.amountCents) / 100,
        hourly: s.hourly.map((h) => ({
          hour: new Date(num(h.hourStartUnixMs)).toISOString(),
          requests: num(h.requests),
          errors: num(h.errors),
          completed_reels: num(h.completedReels),
        })),
      };
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
      return r.events.map((e) => ({
        type: e.type,
        user_email: e.userEmail,
        login_type: e.loginType || null,
        actual_duration_seconds: e.type === 'project_completed' || e.type === 'job_failed' ? e.actualDurationSeconds : null,
        timestamp: new Date(num(e.atUnixMs)).toISOString(),
        detail: e.detail,
      }));
    },
  );

  app.get(
    '/admin/showcase',
    {
      config: { access: 'admin' },
      schema: {
        summary: 'Reels their owners shared to the showcase, featured or not, newest first',
        querystring: pageQuery(200),
        response: { 200: z.object({ reels: z.array(sharedReel), total: z.number().int() }), ...errors(401, 403) },
      },
    },
    async (req) => {
      const res = await peers.media.listSharedReels({ limit: req.query.limit, offset: req.query.offset }, { requestId: req.id });
      return {
        total: res.total,
        reels: res.reels.map(sharedReelView),
      };
    },
  );

  app.put(
    '/admin/showcase/:id',
    {
      config: { access: 'admin' },
      schema: {
        summary: 'Feature a shared reel in the showcase with a category (again: change its category)',
        params: uuidParams,
        body: z.object({ category: showcaseCategory }).strict(),
        response: { 200: demoVideo, ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (req) =>
      showcaseVideo(
        await peers.media.featureReel(
          { reelId: req.params.id, category: req.body.category, featuredBy: callerOf(req).id },
          { requestId: req.id },
        ),
      ),
  );

  app.delete(
    '/admin/showcase/:id',
    {
      config: { access: 'admin' },
      schema: {
        summary: 'Take a reel out of the showcase',
        params: uuidParams,
        response: { 200: z.object({ message: z.string() }), ...errors(401, 403, 404) },
      },
    },
    async (req) => {
      await peers.media.unfeatureReel({ reelId: req.params.id }, { requestId: req.id });
      return { message: 'Removed from the showcase' };
    },
  );

  app.get(
    '/admin/contact',
    {
      config: { access: 'admin' },
      schema: {
        summary: 'The contact inbox, newest first',
        querystring: pageQuery(200),
        response: {
          200: z.object({ messages: z.array(contactMessage), total: z.number().int() }).meta({ id: 'ContactInbox' }),
          ...errors(401, 403),
        },
      },
    },
    async (req, reply) => {
      const res = await peers.identity.listContactMessages({ limit: req.query.limit, offset: req.query.offset }, { requestId: req.id });
      void reply.header('cache-control', 'no-store');
      return {
        total: res.total,
        messages: res.messages.map(contactMessageView),
      };
    },
  );
};
