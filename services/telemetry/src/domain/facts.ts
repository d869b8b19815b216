import type { MessageShape } from '@bufbuild/protobuf';
import type { Subject, SubjectSchema } from '@reelsmith/proto';

/** Everything telemetry records, derived from one event on the bus (no I/O here). */
export interface ActivityRow {
  type: string;
  userId: string | null;
  email: string;
  loginType: string;
  durationSeconds: number | null;
  amountCents: number | null;
  detail: string;
  at: Date;
}

export type UserChange =
  | { kind: 'registered'; userId: string; email: string; at: Date }
  | { kind: 'verified'; userId: string; email: string; at: Date }
  | { kind: 'logged_in'; userId: string; email: string; at: Date };

export type JobChange =
  | { kind: 'submitted'; jobId: string; userId: string; at: Date }
  | { kind: 'started'; jobId: string; userId: string; at: Date }
  | { kind: 'finished'; jobId: string; userId: string; outcome: 'completed' | 'failed'; at: Date };

export interface RequestMinute {
  instance: string;
  minute: Date;
  routes: { method: string; route: string; statusClass: string; count: number }[];
  latencyBuckets: number[];
}

export interface Effects {
  activity?: ActivityRow;
  user?: UserChange;
  job?: JobChange;
  requests?: RequestMinute;
}

/** The subjects telemetry consumes: every fact the dashboard shows. */
export const CONSUMED = [
  'events.identity.user_registered',
  'events.identity.user_verified',
  'events.identity.user_logged_in',
  'events.identity.login_failed',
  'events.identity.admin_changed',
  'events.job.submitted',
  'events.job.started',
  'events.job.completed',
  'events.job.failed',
  'events.render.dead_lettered',
  'events.billing.payment_succeeded',
  'events.marketplace.offer_made',
  'events.marketplace.offer_answered',
  'events.gateway.request_counts',
] as const satisfies readonly Subject[];
export type Consumed = (typeof CONSUMED)[number];

const when = (ms: bigint, now: Date) => (ms > 0n ? new Date(Number(ms)) : now);
const row = (r: Partial<ActivityRow> & Pick<ActivityRow, 'type' | 'at'>): ActivityRow => ({
  userId: null,
  email: '',
  loginType: '',
  durationSeconds: null,
  amountCents: null,
  detail: '',
  ...r,
});
const money = (amount: number) => `$${amount.toFixed(2)}`;

/** What one event means for the dashboard. `now` stands in for a missing event time. */
export function effectsOf<S extends Consumed>(subject: S, m: MessageShape<SubjectSchema<S>>, now: Date): Effects {
  const s = subject as Consumed;
  switch (s) {
    case 'events.identity.user_registered': {
      const e = m as MessageShape<SubjectSchema<'events.identity.user_registered'>>;
      const at = when(e.atUnixMs, now);
      return {
        activity: row({ type: 'signup', userId: e.userId, email: e.email, at }),
        user: { kind: 'registered', userId: e.userId, email: e.email, at },
      };
    }
    case 'events.identity.user_verified': {
      const e = m as MessageShape<SubjectSchema<'events.identity.user_verified'>>;
      const at = when(e.atUnixMs, now);
      return {
        activity: row({ type: 'email_verified', userId: e.userId, email: e.email, at }),
        user: { kind: 'verified', userId: e.userId, email: e.email, at },
      };
    }
    case 'events.identity.user_logged_in': {
      const e = m as MessageShape<SubjectSchema<'events.identity.user_logged_in'>>;
      const at = when(e.atUnixMs, now);
      return {
        activity: row({ type: 'login', userId: e.userId, email: e.email, loginType: e.loginType, at }),
        user: { kind: 'logged_in', userId: e.userId, email: e.email, at },
      };
    }
    case 'events.identity.login_failed': {
      const e = m as MessageShape<SubjectSchema<'events.identity.login_failed'>>;
      return {
        activity: row({ type: 'login_failed', userId: e.userId || null, email: e.email, detail: e.reason, at: when(e.atUnixMs, now) }),
      };
    }
    case 'events.identity.admin_changed': {
      const e = m as MessageShape<SubjectSchema<'events.identity.admin_changed'>>;
      return {
        activity: row({
          type: e.isAdmin ? 'admin_granted' : 'admin_revoked',
          userId: e.userId,
          email: e.email,
          detail: e.by ? `by ${e.by}` : '',
          at: when(e.atUnixMs, now),
        }),
      };
    }
    case 'events.job.submitted': {
      const e = m as MessageShape<SubjectSchema<'events.job.submitted'>>;
      const at = when(e.submittedAtUnixMs, now);
      return {
        activity: row({ type: 'job_submitted', userId: e.userId, at }),
        job: { kind: 'submitted', jobId: e.jobId, userId: e.userId, at },
      };
    }
    case 'events.job.started': {
      const e = m as MessageShape<SubjectSchema<'events.job.started'>>;
      return { job: { kind: 'started', jobId: e.jobId, userId: e.userId, at: when(e.startedAtUnixMs, now) } };
    }
    case 'events.job.completed': {
      const e = m as MessageShape<SubjectSchema<'events.job.completed'>>;
      const at = when(e.completedAtUnixMs, now);
      return {
        activity: row({ type: 'project_completed', userId: e.userId, durationSeconds: e.wallSeconds, at }),
        job: { kind: 'finished', jobId: e.jobId, userId: e.userId, outcome: 'completed', at },
      };
    }
    case 'events.job.failed': {
      const e = m as MessageShape<SubjectSchema<'events.job.failed'>>;
      const at = when(e.failedAtUnixMs, now);
      return {
        activity: row({ type: 'job_failed', userId: e.userId, durationSeconds: e.wallSeconds || null, detail: e.reason, at }),
        job: { kind: 'finished', jobId: e.jobId, userId: e.userId, outcome: 'failed', at },
      };
    }
    case 'events.render.dead_lettered': {
      const e = m as MessageShape<SubjectSchema<'events.render.dead_lettered'>>;
      return {
        activity: row({ type: 'dead_lettered', detail: `job ${e.jobId} after ${e.attempt} deliveries`, at: when(e.atUnixMs, now) }),
      };
    }
    case 'events.billing.payment_succeeded': {
      const e = m as MessageShape<SubjectSchema<'events.billing.payment_succeeded'>>;
      const cents = Number(e.amountCents);
      return {
        activity: row({
          type: 'payment_succeeded',
          userId: e.userId,
          amountCents: cents,
          detail: `${money(cents / 100)} ${e.currency.toUpperCase() || 'USD'} via ${e.provider}`,
          at: when(e.atUnixMs, now),
        }),
      };
    }
    case 'events.marketplace.offer_made': {
      const e = m as MessageShape<SubjectSchema<'events.marketplace.offer_made'>>;
      return {
        activity: row({
          type: 'offer_made',
          userId: e.userId,
          detail: offerText(e.offerType, e.cashCents, e.credits),
          at: when(e.offeredAtUnixMs, now),
        }),
      };
    }
    case 'events.marketplace.offer_answered': {
      const e = m as MessageShape<SubjectSchema<'events.marketplace.offer_answered'>>;
      return {
        activity: row({
          type: 'offer_answered',
          userId: e.userId,
          detail: `${e.accepted ? 'accepted' : 'declined'} ${offerText(e.offerType, e.cashCents, e.credits)}`,
          at: when(e.answeredAtUnixMs, now),
        }),
      };
    }
    case 'events.gateway.request_counts': {
      const e = m as MessageShape<SubjectSchema<'events.gateway.request_counts'>>;
      return {
        requests: {
          instance: e.instance,
          minute: when(e.minuteUnixMs, now),
          routes: e.routes.map((r) => ({ method: r.method, route: r.route, statusClass: r.statusClass, count: Number(r.count) })),
          latencyBuckets: e.latencyBuckets.map(Number),
        },
      };
    }
  }
}

/** Nearest-rank percentile (0 < p <= 1) of unsorted values; 0 for none. */
export function percentile(values: readonly number[], p: number): number {
  if (!values.length) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)]!;
}

/** The upper bound of the bucket that holds the p-th answer (the last bound for the overflow bucket). */
export function bucketPercentile(counts: readonly number[], bounds: readonly number[], p: number): number {
  const total = counts.reduce((a, b) => a + b, 0);
  if (!total) return 0;
  const rank = Math.ceil(p * total);
  let seen = 0;
  for (let i = 0; i < counts.length; i++) {
    seen += counts[i]!;
    if (seen >= rank) return bounds[Math.min(i, bounds.length - 1)]!;
  }
  return bounds[bounds.length - 1]!;
}

/** An offer as the feed shows it: '$0.10 cash' or '50 credits'. */
function offerText(type: string, cashCents: bigint, credits: bigint): string {
  return type === 'cash' ? `${money(Number(cashCents) / 100)} cash` : `${Number(credits)} credits`;
}
