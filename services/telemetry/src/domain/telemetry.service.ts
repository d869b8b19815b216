import type { MessageShape } from '@bufbuild/protobuf';
import { REQUEST_LATENCY_BUCKETS_MS, type SubjectSchema } from '@reelsmith/proto';
import { bucketPercentile, effectsOf, percentile, type Consumed, type Effects } from './facts.js';

/** The counts of a window of time the store answers (TelemetryStore.window). */
export interface WindowCounts {
  totalRequests: number;
  serverErrors: number;
  latencyBuckets: number[];
  totalUsers: number;
  newUsers: number;
  activeUsers: number;
  byType: Record<string, number>;
  revenueCents: number;
  renderSeconds: number[];
  queueWaitSeconds: number[];
  hourly: { hour: number; requests: number; errors: number; completed: number }[];
}

/** One line of the activity feed (TelemetryStore.feed). */
export interface FeedRow {
  type: string;
  email: string;
  loginType: string;
  durationSeconds: number | null;
  atMs: number;
  detail: string;
}

export interface TelemetryStore {
  apply(msgId: string, subject: string, fx: Effects): Promise<boolean>;
  window(since: Date, now: Date): Promise<WindowCounts>;
  feed(limit: number, before?: Date): Promise<FeedRow[]>;
  prune(before: Date): Promise<number>;
}

export interface Summary {
  totalRequests: number;
  serverErrors: number;
  p95Ms: number;
  totalUsers: number;
  newUsers: number;
  activeUsers: number;
  jobsSubmitted: number;
  jobsCompleted: number;
  jobsFailed: number;
  logins: number;
  failedLogins: number;
  p50RenderS: number;
  p95RenderS: number;
  p95QueueWaitS: number;
  revenueCents: number;
  deadLettered: number;
  hourly: { hourStartMs: number; requests: number; errors: number; completedReels: number }[];
}

export const MAX_FEED_PAGE = 100;
const round = (x: number, places = 3) => Math.round(x * 10 ** places) / 10 ** places;

/** The dashboard's facts: recorded once per message, summed over a window, listed newest first. */
export class TelemetryService {
  constructor(
    private readonly store: TelemetryStore,
    private readonly opts: { retentionDays: number; clock?: () => Date },
  ) {}

  private now = () => this.opts.clock?.() ?? new Date();

  /** Records one event; false when its message id had been recorded already. */
  record<S extends Consumed>(subject: S, msgId: string, message: MessageShape<SubjectSchema<S>>): Promise<boolean> {
    return this.store.apply(msgId, subject, effectsOf(subject, message, this.now()));
  }

  async summary(hours: number): Promise<Summary> {
    const now = this.now();
    const w = await this.store.window(new Date(now.getTime() - Math.max(1, Math.min(24 * 30, hours)) * 3_600_000), now);
    const n = (type: string) => w.byType[type] ?? 0;
    return {
      totalRequests: w.totalRequests,
      serverErrors: w.serverErrors,
      p95Ms: bucketPercentile(w.latencyBuckets, REQUEST_LATENCY_BUCKETS_MS, 0.95),
      totalUsers: w.totalUsers,
      newUsers: w.newUsers,
      activeUsers: w.activeUsers,
      jobsSubmitted: n('job_submitted'),
      jobsCompleted: n('project_completed'),
      jobsFailed: n('job_failed'),
      logins: n('login'),
      failedLogins: n('login_failed'),
      p50RenderS: round(percentile(w.renderSeconds, 0.5)),
      p95RenderS: round(percentile(w.renderSeconds, 0.95)),
      p95QueueWaitS: round(percentile(w.queueWaitSeconds, 0.95)),
      revenueCents: w.revenueCents,
      deadLettered: n('dead_lettered'),
      hourly: w.hourly.map((h) => ({
        hourStartMs: h.hour * 3_600_000,
        requests: h.requests,
        errors: h.errors,
        completedReels: h.completed,
      })),
    };
  }

  feed(limit: number, beforeMs?: number) {
    const size = Math.max(1, Math.min(MAX_FEED_PAGE, Math.floor(limit) || 20));
    return this.store.feed(size, beforeMs ? new Date(beforeMs) : undefined);
  }

  /** Deletes what is older than the retention; returns how many rows went. */
  prune(): Promise<number> {
    return this.store.prune(new Date(this.now().getTime() - this.opts.retentionDays * 24 * 3_600_000));
  }
}
