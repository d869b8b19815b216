import { sql, type SQL } from 'drizzle-orm';
import type { Orm } from '@reelsmith/kit';
import type { Effects } from '../domain/facts.js';
import type { FeedRow, WindowCounts } from '../domain/telemetry.service.js';

type Executor = Pick<Orm, 'execute'>;
const rows = async <T>(db: Executor, q: SQL): Promise<T[]> => ((await db.execute(q)) as unknown as { rows: T[] }).rows;
const ts = (d: Date) => d.toISOString();

/** Telemetry's tables, in plain SQL (the same over PostgreSQL and PGlite). */
export class TelemetryRepository {
  constructor(private readonly orm: Orm) {}

  /**
   * Applies one message's effects once: its id is recorded in the same transaction, so a
   * redelivered or re-published message changes nothing. False when it had been applied.
   */
  async apply(msgId: string, subject: string, fx: Effects): Promise<boolean> {
    return this.orm.transaction(async (tx) => {
      const fresh = await rows(
        tx,
        sql`insert into processed_messages (msg_id, subject) values (${msgId}, ${subject}) on conflict do nothing returning msg_id`,
      );
      if (!fresh.length) return false;
      const a = fx.activity;
      if (a)
        await tx.execute(sql`insert into activity (msg_id, type, user_id, email, login_type, duration_seconds, amount_cents, detail, occurred_at)
          values (${msgId}, ${a.type}, ${a.userId}, ${a.email.toLowerCase()}, ${a.loginType}, ${a.durationSeconds}, ${a.amountCents}, ${a.detail}, ${ts(a.at)})
          on conflict (msg_id) do nothing`);
      const u = fx.user;
      if (u) {
        const email = u.email.toLowerCase();
        if (u.kind === 'registered')
          await tx.execute(sql`insert into known_users (user_id, email, registered_at) values (${u.userId}, ${email}, ${ts(u.at)})
            on conflict (user_id) do update set email = excluded.email, registered_at = excluded.registered_at`);
        else if (u.kind === 'verified')
          await tx.execute(sql`insert into known_users (user_id, email, verified_at) values (${u.userId}, ${email}, ${ts(u.at)})
            on conflict (user_id) do update set email = excluded.email, verified_at = excluded.verified_at`);
        else
          await tx.execute(sql`insert into known_users (user_id, email, last_login_at) values (${u.userId}, ${email}, ${ts(u.at)})
            on conflict (user_id) do update set email = excluded.email,
              last_login_at = greatest(known_users.last_login_at, excluded.last_login_at)`);
      }
      const j = fx.job;
      if (j) {
        if (j.kind === 'submitted')
          await tx.execute(sql`insert into job_times (job_id, user_id, submitted_at) values (${j.jobId}, ${j.userId}, ${ts(j.at)})
            on conflict (job_id) do update set submitted_at = excluded.submitted_at`);
        else if (j.kind === 'started')
          await tx.execute(sql`insert into job_times (job_id, user_id, first_started_at, last_started_at) values (${j.jobId}, ${j.userId}, ${ts(j.at)}, ${ts(j.at)})
            on conflict (job_id) do update set
              first_started_at = least(job_times.first_started_at, excluded.first_started_at),
              last_started_at = greatest(job_times.last_started_at, excluded.last_started_at)`);
        else
          await tx.execute(sql`insert into job_times (job_id, user_id, finished_at, outcome) values (${j.jobId}, ${j.userId}, ${ts(j.at)}, ${j.outcome})
            on conflict (job_id) do update set finished_at = excluded.finished_at, outcome = excluded.outcome`);
      }
      const r = fx.requests;
      if (r) {
        const minute = ts(r.minute);
        for (const c of r.routes)
          await tx.execute(sql`insert into request_counts (instance, minute, method, route, status_class, count)
            values (${r.instance}, ${minute}, ${c.method}, ${c.route}, ${c.statusClass}, ${c.count})
            on conflict (instance, minute, method, route, status_class) do update set count = request_counts.count + excluded.count`);
        for (const [bucket, count] of r.latencyBuckets.entries())
          if (count)
            await tx.execute(sql`insert into request_latency (instance, minute, bucket, count) values (${r.instance}, ${minute}, ${bucket}, ${count})
              on conflict (instance, minute, bucket) do update set count = request_latency.count + excluded.count`);
      }
      return true;
    });
  }

  /** Counts over [since, now]. */
  async window(since: Date, now: Date): Promise<WindowCounts> {
    const s = ts(since);
    const [req] = await rows<{ total: number; errors: number }>(
      this.orm,
      sql`select coalesce(sum(count), 0)::float8 as total, coalesce(sum(count) filter (where status_class = '5xx'), 0)::float8 as errors
          from request_counts where minute >= ${s}`,
    );
    const buckets = await rows<{ bucket: number; count: number }>(
      this.orm,
      sql`select bucket, sum(count)::float8 as count from request_latency where minute >= ${s} group by bucket`,
    );
    const latencyBuckets: number[] = [];
    for (const b of buckets) latencyBuckets[b.bucket] = b.count;
    const [users] = await rows<{ total: number; fresh: number }>(
      this.orm,
      sql`select count(*)::float8 as total, (count(*) filter (where registered_at >= ${s}))::float8 as fresh from known_users`,
    );
    const [active] = await rows<{ n: number }>(
      this.orm,
      sql`select count(distinct user_id)::float8 as n from activity where type = 'login' and occurred_at >= ${s}`,
    );
    const types = await rows<{ type: string; n: number; cents: number }>(
      this.orm,
      sql`select type, count(*)::float8 as n, coalesce(sum(amount_cents), 0)::float8 as cents from activity where occurred_at >= ${s} group by type`,
    );
    const renders = await rows<{ s: number }>(
      this.orm,
      sql`select extract(epoch from (finished_at - last_started_at))::float8 as s from job_times
          where outcome = 'completed' and finished_at >= ${s} and last_started_at is not null`,
    );
    const waits = await rows<{ s: number }>(
      this.orm,
      sql`select extract(epoch from (first_started_at - submitted_at))::float8 as s from job_times
          where first_started_at >= ${s} and submitted_at is not null`,
    );
    const hourlyReq = await rows<{ h: number; total: number; errors: number }>(
      this.orm,
      sql`select floor(extract(epoch from minute) / 3600)::float8 as h, sum(count)::float8 as total,
            coalesce(sum(count) filter (where status_class = '5xx'), 0)::float8 as errors
          from request_counts where minute >= ${s} group by 1`,
    );
    const hourlyDone = await rows<{ h: number; n: number }>(
      this.orm,
      sql`select floor(extract(epoch from occurred_at) / 3600)::float8 as h, count(*)::float8 as n
          from activity where type = 'project_completed' and occurred_at >= ${s} group by 1`,
    );
    const hourly: WindowCounts['hourly'] = [];
    const first = Math.floor(since.getTime() / 3_600_000);
    const last = Math.floor(now.getTime() / 3_600_000);
    for (let h = first; h <= last; h++) {
      const r = hourlyReq.find((x) => x.h === h);
      hourly.push({ hour: h, requests: r?.total ?? 0, errors: r?.errors ?? 0, completed: hourlyDone.find((x) => x.h === h)?.n ?? 0 });
    }
    return {
      totalRequests: req?.total ?? 0,
      serverErrors: req?.errors ?? 0,
      latencyBuckets: Array.from(latencyBuckets, (c) => c ?? 0),
      totalUsers: users?.total ?? 0,
      newUsers: users?.fresh ?? 0,
      activeUsers: active?.n ?? 0,
      byType: Object.fromEntries(types.map((t) => [t.type, t.n])),
      revenueCents: types.find((t) => t.type === 'payment_succeeded')?.cents ?? 0,
      renderSeconds: renders.map((r) => r.s),
      queueWaitSeconds: waits.map((r) => r.s),
      hourly,
    };
  }

  /** Newest first; events without an e-mail take the account's from known_users. */
  async feed(limit: number, before?: Date): Promise<FeedRow[]> {
    return rows<FeedRow>(
      this.orm,
      sql`select a.type, coalesce(nullif(a.email, ''), u.email, '') as email, a.login_type as "loginType",
            a.duration_seconds as "durationSeconds", (extract(epoch from a.occurred_at) * 1000)::float8 as "atMs", a.detail
          from activity a left join known_users u on u.user_id = a.user_id
          where ${before ? sql`a.occurred_at < ${ts(before)}` : sql`true`}
          order by a.occurred_at desc, a.id desc limit ${limit}`,
    );
  }

  /** Deletes facts older than `before` (known_users stay: they are the account totals). */
  async prune(before: Date): Promise<number> {
    const b = ts(before);
    let n = 0;
    for (const q of [
      sql`delete from activity where occurred_at < ${b} returning 1`,
      sql`delete from processed_messages where received_at < ${b} returning 1`,
      sql`delete from job_times where coalesce(finished_at, first_started_at, submitted_at) < ${b} returning 1`,
      sql`delete from request_counts where minute < ${b} returning 1`,
      sql`delete from request_latency where minute < ${b} returning 1`,
    ])
      n += (await rows(this.orm, q)).length;
    return n;
  }
}
