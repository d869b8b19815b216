import { bucketPercentile, effectsOf, percentile } from '../../src/domain/facts';
import { TelemetryService, type TelemetryStore } from '../../src/domain/telemetry.service';

const now = new Date('2026-11-23T12:00:00Z');

describe('what an event means for the dashboard', () => {
  it('a login is a feed row with its type and a user change', () => {
    const fx = effectsOf(
      'events.identity.user_logged_in',
      { userId: 'u1', email: 'A@x.com', loginType: 'password', atUnixMs: 1000n } as never,
      now,
    );
    expect(fx.activity).toMatchObject({ type: 'login', email: 'A@x.com', loginType: 'password', at: new Date(1000) });
    expect(fx.user).toEqual({ kind: 'logged_in', userId: 'u1', email: 'A@x.com', at: new Date(1000) });
  });
  it('a completed job is a project_completed row with its duration, and finishes the job', () => {
    const fx = effectsOf('events.job.completed', { jobId: 'j', userId: 'u', wallSeconds: 47, completedAtUnixMs: 0n } as never, now);
    expect(fx.activity).toMatchObject({ type: 'project_completed', durationSeconds: 47, at: now });
    expect(fx.job).toMatchObject({ kind: 'finished', outcome: 'completed' });
  });
  it('request counts keep their routes, classes and buckets', () => {
    const fx = effectsOf(
      'events.gateway.request_counts',
      {
        instance: 'g1',
        minuteUnixMs: 60_000n,
        routes: [{ method: 'GET', route: '/api/v1/x', statusClass: '5xx', count: 3n }],
        latencyBuckets: [1n, 2n],
      } as never,
      now,
    );
    expect(fx.requests).toEqual({
      instance: 'g1',
      minute: new Date(60_000),
      routes: [{ method: 'GET', route: '/api/v1/x', statusClass: '5xx', count: 3 }],
      latencyBuckets: [1, 2],
    });
  });
});

describe('percentiles', () => {
  it('nearest rank', () => {
    expect(percentile([], 0.95)).toBe(0);
    expect(percentile([5, 1, 3, 2, 4], 0.5)).toBe(3);
    expect(
      percentile(
        [...Array(100).keys()].map((i) => i + 1),
        0.95,
      ),
    ).toBe(95);
  });
  it('from latency buckets: the upper bound of the bucket holding the rank', () => {
    expect(bucketPercentile([90, 5, 5], [10, 100, 1000], 0.95)).toBe(100);
    expect(bucketPercentile([0, 0, 0], [10, 100], 0.95)).toBe(0);
    expect(bucketPercentile([1, 0, 99], [10, 100], 0.95)).toBe(100);
  });
});

describe('the summary and the feed', () => {
  const store = (): TelemetryStore & { since?: Date; limit?: number } => {
    const s: TelemetryStore & { since?: Date; limit?: number } = {
      apply: async () => true,
      window: async (since) => {
        s.since = since;
        return {
          totalRequests: 10,
          serverErrors: 1,
          latencyBuckets: [8, 2],
          totalUsers: 3,
          newUsers: 2,
          activeUsers: 1,
          byType: { project_completed: 2, job_failed: 1, login: 4, login_failed: 1, dead_lettered: 1 },
          revenueCents: 1999,
          renderSeconds: [10, 30],
          queueWaitSeconds: [1, 2, 3],
          hourly: [{ hour: 10, requests: 10, errors: 1, completed: 2 }],
        };
      },
      feed: async (limit) => {
        s.limit = limit;
        return [];
      },
      prune: async () => 0,
    };
    return s;
  };
  it('sums the last 24 hours', async () => {
    const st = store();
    const s = await new TelemetryService(st, { retentionDays: 30, clock: () => now }).summary(24);
    expect(st.since).toEqual(new Date('2026-11-22T12:00:00Z'));
    expect(s).toMatchObject({
      jobsCompleted: 2,
      jobsFailed: 1,
      logins: 4,
      failedLogins: 1,
      deadLettered: 1,
      p50RenderS: 10,
      p95RenderS: 30,
      p95QueueWaitS: 3,
      p95Ms: 10,
    });
    expect(s.hourly).toEqual([{ hourStartMs: 36_000_000, requests: 10, errors: 1, completedReels: 2 }]);
  });
  it('pages the feed at most 100 at a time', async () => {
    const st = store();
    const svc = new TelemetryService(st, { retentionDays: 30, clock: () => now });
    await svc.feed(1000);
    expect(st.limit).toBe(100);
    await svc.feed(0);
    expect(st.limit).toBe(20);
  });
});
