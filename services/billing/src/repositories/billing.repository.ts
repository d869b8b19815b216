import { and, eq, sql } from 'drizzle-orm';
import { enqueueEvent, type Orm } from '@reelsmith/kit';
import type { AccountRecord, BillingRepository, BillingTx, ReservationRecord } from '../domain/billing.service.js';
import { accounts, dailyFreeUses, ledger, reservations } from './schema.js';

type Tx = Parameters<Parameters<Orm['transaction']>[0]>[0];

/** An accounts row as the ledger sees it; payments.repository's toSubscription builds on it. */
export const toAccount = (r: typeof accounts.$inferSelect): AccountRecord => ({
  userId: r.userId,
  plan: r.plan as AccountRecord['plan'],
  subscriptionStatus: r.subscriptionStatus as AccountRecord['subscriptionStatus'],
  billingCycle: r.billingCycle as AccountRecord['billingCycle'],
  nextBillingAt: r.nextBillingAt,
  cancelAtPeriodEnd: r.cancelAtPeriodEnd,
});

const toReservation = (r: typeof reservations.$inferSelect): ReservationRecord => ({
  jobId: r.jobId,
  userId: r.userId,
  kind: r.kind as ReservationRecord['kind'],
  status: r.status as ReservationRecord['status'],
  credits: r.credits,
  freeDate: r.freeDate,
});

export function billingTxOps(tx: Tx): BillingTx {
  return {
    async lockAccount(userId) {
      await tx.insert(accounts).values({ userId }).onConflictDoNothing();
      const [row] = await tx.select().from(accounts).where(eq(accounts.userId, userId)).for('update');
      return toAccount(row!);
    },
    async findAccount(userId) {
      const [row] = await tx.select().from(accounts).where(eq(accounts.userId, userId));
      return row ? toAccount(row) : null;
    },
    async balance(userId) {
      const [row] = await tx
        .select({ sum: sql<string>`coalesce(sum(${ledger.delta}), 0)` })
        .from(ledger)
        .where(eq(ledger.userId, userId));
      return Number(row?.sum ?? 0);
    },
    async appendLedger(e) {
      const inserted = await tx
        .insert(ledger)
        .values({ userId: e.userId, delta: e.delta, kind: e.kind, idempotencyKey: e.key, jobId: e.jobId, reason: e.reason ?? '' })
        .onConflictDoNothing({ target: ledger.idempotencyKey })
        .returning({ id: ledger.id });
      return inserted.length === 1;
    },
    async lockReservation(jobId) {
      const [row] = await tx.select().from(reservations).where(eq(reservations.jobId, jobId)).for('update');
      return row ? toReservation(row) : null;
    },
    async insertReservation(r) {
      await tx
        .insert(reservations)
        .values({ jobId: r.jobId, userId: r.userId, kind: r.kind, status: r.status, credits: r.credits, freeDate: r.freeDate });
    },
    async setReservationStatus(jobId, status) {
      await tx.update(reservations).set({ status, updatedAt: new Date() }).where(eq(reservations.jobId, jobId));
    },
    async takeFreeDay(userId, date, jobId) {
      const inserted = await tx
        .insert(dailyFreeUses)
        .values({ userId, useDate: date, jobId })
        .onConflictDoNothing()
        .returning({ jobId: dailyFreeUses.jobId });
      return inserted.length === 1;
    },
    async returnFreeDay(userId, date, jobId) {
      await tx
        .delete(dailyFreeUses)
        .where(and(eq(dailyFreeUses.userId, userId), eq(dailyFreeUses.useDate, date), eq(dailyFreeUses.jobId, jobId)));
    },
    async lastFreeUse(userId) {
      const [row] = await tx
        .select({ d: sql<string | null>`max(${dailyFreeUses.useDate})::text` })
        .from(dailyFreeUses)
        .where(eq(dailyFreeUses.userId, userId));
      return row?.d ?? null;
    },
    async anonymise(userId, anonId) {
      // The rows reference an account: an anonymous one, with the default (free) plan, holds them.
      await tx.insert(accounts).values({ userId: anonId });
      await tx.update(ledger).set({ userId: anonId }).where(eq(ledger.userId, userId));
      await tx.update(reservations).set({ userId: anonId }).where(eq(reservations.userId, userId));
      await tx.update(dailyFreeUses).set({ userId: anonId }).where(eq(dailyFreeUses.userId, userId));
      await tx.delete(accounts).where(eq(accounts.userId, userId));
    },
    async updateSubscription(a) {
      await tx
        .update(accounts)
        .set({ plan: a.plan, subscriptionStatus: a.subscriptionStatus, billingCycle: a.billingCycle, nextBillingAt: a.nextBillingAt })
        .where(eq(accounts.userId, a.userId));
    },
    async emit(subject, message, msgId) {
      await enqueueEvent(tx, subject, message, msgId);
    },
  };
}

/** Billing tables through Drizzle; every operation in one transaction. */
export class DrizzleBillingRepository implements BillingRepository {
  constructor(private readonly orm: Orm) {}
  transaction<T>(fn: (tx: BillingTx) => Promise<T>): Promise<T> {
    return this.orm.transaction((tx) => fn(billingTxOps(tx)));
  }
}
