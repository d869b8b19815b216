import { z } from 'zod';

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
