import crypto from 'node:crypto';
import { DomainError, ErrorCode } from '@reelsmith/kit';
import type { MessageInitShape } from '@bufbuild/protobuf';
import type { Subject, SubjectSchema } from '@reelsmith/proto';
import { isPaidPlan, PLAN_IDS, type BillingCycle, type PlanId } from './catalogue.js';
import { entitlementsFor, INSUFFICIENT, type Entitlements } from './entitlements.js';

export type ReservationKind = 'free_video' | 'credits' | 'unlimited';
export type ReservationStatus = 'held' | 'captured' | 'released';
export type SubscriptionStatus = 'active' | 'inactive' | 'canceled' | 'past_due';

export interface ReservationRecord {
  jobId: string;
  userId: string;
  kind: ReservationKind;
  status: ReservationStatus;
  credits: number;
  /** The UTC day whose free video this reservation took. */
  freeDate: string | null;
}

export interface AccountRecord {
  userId: string;
  plan: PlanId;
  subscriptionStatus: SubscriptionStatus;
  billingCycle: BillingCycle | null;
  nextBillingAt: Date | null;
  cancelAtPeriodEnd?: boolean;
}

export interface LedgerEntry {
  userId: string;
  delta: number;
  kind: 'grant' | 'purchase' | 'hold' | 'release' | 'refund';
  /** Unique forever: a second entry with the same key is not written. */
  key: string;
  jobId?: string;
  reason?: string;
}

/** Everything the rules need from storage, inside one transaction. */
export interface BillingTx {
  /** The account row, created on first use, locked until the transaction ends. */
  lockAccount(userId: string): Promise<AccountRecord>;
  findAccount(userId: string): Promise<AccountRecord | null>;
  balance(userId: string): Promise<number>;
  /** False when an entry with this key exists already. */
  appendLedger(e: LedgerEntry): Promise<boolean>;
  lockReservation(jobId: string): Promise<ReservationRecord | null>;
  insertReservation(r: ReservationRecord): Promise<void>;
  setReservationStatus(jobId: string, status: ReservationStatus): Promise<void>;
  /** False when the user has a free video recorded for that day. */
  takeFreeDay(userId: string, date: string, jobId: string): Promise<boolean>;
  returnFreeDay(userId: string, date: string, jobId: string): Promise<void>;
  lastFreeUse(userId: string): Promise<string | null>;
  updateSubscription(a: AccountRecord): Promise<void>;
  /** Moves every ledger, reservation and free-day row of the user to `anonId`, and drops the account row. */
  anonymise(userId: string, anonId: string): Promise<void>;
  emit<S extends Subject>(subject: S, message: MessageInitShape<SubjectSchema<S>>, msgId: string): Promise<void>;
}

export interface BillingRepository {
  transaction<T>(fn: (tx: BillingTx) => Promise<T>): Promise<T>;
}

export interface AccountView {
  userId: string;
  credits: number;
  subscription: {
    plan: PlanId;
    status: SubscriptionStatus;
    billingCycle: BillingCycle | null;
    nextBillingAt: Date | null;
    cancelAtPeriodEnd?: boolean;
  };
  lastFreeUse: string | null;
  dailyFreeUsed: boolean;
  entitlements: Entitlements;
}

/** UTC calendar day, YYYY-MM-DD: the free video resets at midnight UTC. */
export const utcDay = (d: Date) => d.toISOString().slice(0, 10);

const insufficient = () => new DomainError(ErrorCode.RESOURCE_EXHAUSTED, INSUFFICIENT, 'insufficient_credits');

/**
 * The billing rules. Each operation runs in one transaction that holds the user's account row
 * lock, so concurrent reservations of one user are serialised and the balance never goes below
 * zero. Reserve, Capture and Release are idempotent by job id; Grant by its key.
 */
export class BillingService {
  constructor(
    private readonly repo: BillingRepository,
    private readonly clock: () => Date = () => new Date(),
    /** Called after a transaction that recorded events has committed (kicks the outbox relay). */
    private readonly committed: () => void = () => undefined,
  ) {}

  private async tx<T>(fn: (tx: BillingTx) => Promise<T>): Promise<T> {
    const out = await this.repo.transaction(fn);
    this.committed();
    return out;
  }

  isSubscribed = (a: AccountRecord) => isPaidPlan(a.plan) && a.subscriptionStatus === 'active';

  /**
   * The user's account as everyone shows it. `enterprise` is the shared guest-pass account: the
   * spec's "enterprise access", shown as an active Corporate plan (and never charged: unlimited).
   */
  async account(userId: string, unlimited: boolean, enterprise = false): Promise<AccountView> {
    return this.repo.transaction(async (tx) => {
      const a = (await tx.findAccount(userId)) ?? {
        userId,
        plan: 'free' as const,
        subscriptionStatus: 'inactive' as const,
        billingCycle: null,
        nextBillingAt: null,
      };
      const lastFreeUse = await tx.lastFreeUse(userId);
      return {
        userId,
        credits: await tx.balance(userId),
        subscription: enterprise
          ? { plan: 'corporate' as const, status: 'active' as const, billingCycle: null, nextBillingAt: null }
          : {
              plan: a.plan,
              status: a.subscriptionStatus,
              billingCycle: a.billingCycle,
              nextBillingAt: a.nextBillingAt,
              cancelAtPeriodEnd: a.cancelAtPeriodEnd ?? false,
            },
        lastFreeUse,
        dailyFreeUsed: lastFreeUse === utcDay(this.clock()),
        entitlements: entitlementsFor(a.plan, a.subscriptionStatus === 'active', unlimited || enterprise),
      };
    });
  }

  /**
   * Admins: an unlimited record, never charged. Free users: today's free video, or, once it is
   * used, purchased credits if they cover the estimate. Subscribers: credits above zero and
   * enough for the estimate. Otherwise 'Insufficient credits or daily limit reached'.
   */
  /** Account deletion: the ledger keeps anonymised rows (totals stay right), the account row goes. */
  async anonymiseUser(userId: string): Promise<void> {
    await this.repo.transaction(async (tx) => {
      await tx.lockAccount(userId);
      await tx.anonymise(userId, crypto.randomUUID());
    });
  }

  async reserve(jobId: string, userId: string, estimate: number, unlimited: boolean): Promise<ReservationRecord> {
    if (!Number.isInteger(estimate) || estimate <= 0)
      throw new DomainError(ErrorCode.INVALID_ARGUMENT, 'estimate must be a positive whole number of credits');
    return this.tx(async (tx) => {
      const account = await tx.lockAccount(userId);
      const existing = await tx.lockReservation(jobId);
      if (existing) {
        if (existing.userId !== userId) throw new DomainError(ErrorCode.ALREADY_EXISTS, 'job already has a reservation');
        return existing;
      }
      let r: ReservationRecord | undefined;
      if (unlimited) r = { jobId, userId, kind: 'unlimited', status: 'held', credits: 0, freeDate: null };
      else {
        if (!this.isSubscribed(account)) {
          const today = utcDay(this.clock());
          if (await tx.takeFreeDay(userId, today, jobId))
            r = { jobId, userId, kind: 'free_video', status: 'held', credits: 0, freeDate: today };
        }
        if (!r) {
          const balance = await tx.balance(userId);
          if (balance <= 0 || balance < estimate) throw insufficient();
          await tx.appendLedger({ userId, delta: -estimate, kind: 'hold', key: `hold:${jobId}`, jobId, reason: 'render job' });
          r = { jobId, userId, kind: 'credits', status: 'held', credits: estimate, freeDate: null };
        }
      }
      await tx.insertReservation(r);
      await tx.emit(
        'events.billing.reserved',
        { jobId, userId, credits: BigInt(r.credits), freeVideo: r.kind === 'free_video' },
        `billing.reserved.${jobId}`,
      );
      return r;
    });
  }

  /** Makes a held reservation final. Capturing twice is fine; capturing a released one is not. */
  async capture(jobId: string): Promise<ReservationRecord> {
    return this.tx(async (tx) => {
      const r = await tx.lockReservation(jobId);
      if (!r) throw new DomainError(ErrorCode.NOT_FOUND, 'no reservation for this job');
      if (r.status === 'captured') return r;
      if (r.status === 'released')
        throw new DomainError(ErrorCode.FAILED_PRECONDITION, 'reservation was released and cannot be captured', 'reservation_released');
      await tx.setReservationStatus(jobId, 'captured');
      await tx.emit('events.billing.captured', { jobId, userId: r.userId, credits: BigInt(r.credits) }, `billing.captured.${jobId}`);
      return { ...r, status: 'captured' };
    });
  }

  /** Refunds a held reservation exactly: the credits or the day's free video come back. */
  async release(jobId: string): Promise<ReservationRecord> {
    return this.tx(async (tx) => {
      const r = await tx.lockReservation(jobId);
      if (!r) throw new DomainError(ErrorCode.NOT_FOUND, 'no reservation for this job');
      if (r.status === 'released') return r;
      if (r.status === 'captured')
        throw new DomainError(ErrorCode.FAILED_PRECONDITION, 'reservation was captured and cannot be released', 'reservation_captured');
      await tx.lockAccount(r.userId);
      if (r.kind === 'credits')
        await tx.appendLedger({
          userId: r.userId,
          delta: r.credits,
          kind: 'release',
          key: `release:${jobId}`,
          jobId,
          reason: 'job refunded',
        });
      if (r.kind === 'free_video' && r.freeDate) await tx.returnFreeDay(r.userId, r.freeDate, jobId);
      await tx.setReservationStatus(jobId, 'released');
      await tx.emit('events.billing.released', { jobId, userId: r.userId, credits: BigInt(r.credits) }, `billing.released.${jobId}`);
      return { ...r, status: 'released' };
    });
  }

  /** Adds credits once per idempotency key (purchases, marketplace credit offers, renewals). */
  async grant(userId: string, credits: number, key: string, reason: string): Promise<{ applied: boolean; balance: number }> {
    if (!Number.isInteger(credits) || credits <= 0)
      throw new DomainError(ErrorCode.INVALID_ARGUMENT, 'credits must be a positive whole number');
    if (!key.trim()) throw new DomainError(ErrorCode.INVALID_ARGUMENT, 'an idempotency key is required');
    return this.tx(async (tx) => {
      await tx.lockAccount(userId);
      const applied = await tx.appendLedger({ userId, delta: credits, kind: 'grant', key: `grant:${key}`, reason });
      if (applied)
        await tx.emit(
          'events.billing.granted',
          { userId, credits: BigInt(credits), reason, idempotencyKey: key },
          `billing.granted.${key}`,
        );
      return { applied, balance: await tx.balance(userId) };
    });
  }

  async setSubscription(userId: string, plan: string, cycle: string, status: string, nextBillingAt: Date | null): Promise<void> {
    if (!(PLAN_IDS as readonly string[]).includes(plan)) throw new DomainError(ErrorCode.INVALID_ARGUMENT, `unknown plan ${plan}`);
    if (cycle && cycle !== 'monthly' && cycle !== 'yearly')
      throw new DomainError(ErrorCode.INVALID_ARGUMENT, 'billing cycle must be monthly or yearly');
    if (!['active', 'inactive', 'canceled', 'past_due'].includes(status))
      throw new DomainError(ErrorCode.INVALID_ARGUMENT, `unknown status ${status}`);
    await this.tx(async (tx) => {
      await tx.lockAccount(userId);
      await tx.updateSubscription({
        userId,
        plan: plan as PlanId,
        subscriptionStatus: status as SubscriptionStatus,
        billingCycle: plan === 'free' ? null : ((cycle || 'monthly') as BillingCycle),
        nextBillingAt,
      });
    });
  }
}
