import type { assembly, billing, telemetry } from '@reelsmith/proto';
import { z } from 'zod';

/** The admin dashboard's API objects and the mappings from the services' messages to them. */

const status = z.enum(['healthy', 'warning', 'unhealthy']);
const timedCheck = z.object({ status, response_time_ms: z.number() });

export const detailedHealthSchema = z
  .object({
    overall_status: status,
    checks: z.object({
      database: timedCheck.describe("Every service's own database pinged; the worst one"),
      s3_storage: timedCheck.describe('A probe object written, read back and deleted'),
      system: z.object({ cpu_percent: z.number(), memory_percent: z.number(), disk_percent: z.number() }),
    }),
    services: z.array(z.object({ name: z.string(), status, restarts: z.number().int().optional(), version: z.string() })),
    queue: z.object({ pending: z.number().int(), in_progress: z.number().int(), dead_lettered: z.number().int() }),
  })
  .meta({ id: 'DetailedHealth' });

export const metricsSchema = z
  .object({
    metrics_summary: z.object({
      total_requests: z.number().int(),
      error_rate: z.number().describe('5xx answers as a percentage of all answers (0-100)'),
      p95_ms: z.number(),
    }),
    user_analytics: z.object({ total_users: z.number().int(), new_users: z.number().int(), active_users: z.number().int() }),
    jobs: z.object({
      submitted: z.number().int(),
      completed: z.number().int(),
      failed: z.number().int(),
      p50_render_s: z.number(),
      p95_render_s: z.number(),
      p95_queue_wait_s: z.number(),
    }),
    logins: z.object({ succeeded: z.number().int(), failed: z.number().int() }),
    revenue_usd: z.number(),
    hourly: z
      .array(z.object({ hour: z.string(), requests: z.number().int(), errors: z.number().int(), completed_reels: z.number().int() }))
      .describe('The last 24 hours, oldest first (for the charts)'),
  })
  .meta({ id: 'Metrics' });

export const activityEventSchema = z
  .object({
    type: z.string(),
    user_email: z.string(),
    login_type: z.string().nullable(),
    actual_duration_seconds: z.number().nullable(),
    timestamp: z.string(),
    detail: z.string(),
  })
  .meta({ id: 'ActivityEvent' });

export const activityQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  before: z.iso
    .datetime({ offset: true, message: 'must be an ISO 8601 time' })
    .optional()
    .describe('Only events strictly older than this time (the last timestamp of the previous page)'),
});

export const adminJobSchema = z
  .object({
    job_id: z.string(),
    owner_id: z.string(),
    status: z.string(),
    progress: z.number().int(),
    message: z.string(),
    created_at: z.string(),
    updated_at: z.string(),
    duration_sec: z.number(),
    size_bytes: z.number().int(),
    render_chunks: z
      .array(z.object({ index: z.number().int(), worker: z.string(), frames: z.number().int(), seconds: z.number() }))
      .describe('A long reel rendered as chunks: which worker (host/pid) rendered which chunk; empty for a single-pass render'),
  })
  .meta({ id: 'AdminJob' });

// --- the mappings from the services' messages to these objects ---------------------------------

const num = (x: bigint) => Number(x);
const isoOf = (ms: bigint) => new Date(num(ms)).toISOString();

/** A job as the orchestrator records it (`AdminJob`). */
export const adminJobView = (j: assembly.Job) => ({
  job_id: j.id,
  owner_id: j.ownerId,
  status: j.status,
  progress: j.progress,
  message: j.message,
  created_at: isoOf(j.createdAtUnixMs),
  updated_at: isoOf(j.updatedAtUnixMs),
  duration_sec: j.durationSec,
  size_bytes: num(j.sizeBytes),
  render_chunks: j.renderChunks.map((c) => ({ index: c.index, worker: c.worker, frames: c.frames, seconds: c.seconds })),
});

/**
 * The dashboard's summary (`Metrics`) from telemetry's counts and billing's revenue (what the
 * payments ledger says was taken, refunds off); the error rate is 5xx answers in percent, to 2 decimals.
 */
export const metricsView = (s: telemetry.SummaryResponse, revenue: billing.RevenueResponse) => {
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
      hour: isoOf(h.hourStartUnixMs),
      requests: num(h.requests),
      errors: num(h.errors),
      completed_reels: num(h.completedReels),
    })),
  };
};

/** An event of the activity feed (`ActivityEvent`): a duration only for a finished or failed job. */
export const activityEventView = (e: telemetry.ActivityEvent) => ({
  type: e.type,
  user_email: e.userEmail,
  login_type: e.loginType || null,
  actual_duration_seconds: e.type === 'project_completed' || e.type === 'job_failed' ? e.actualDurationSeconds : null,
  timestamp: isoOf(e.atUnixMs),
  detail: e.detail,
});
