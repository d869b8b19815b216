import { and, desc, eq, gte, inArray, isNull, lte, sql } from 'drizzle-orm';
import type { Orm } from '@reelsmith/kit';
import type { PaymentRecord, PaymentsRepository, PaymentsTx, SubscriptionRecord } from '../domain/payments.ports.js';
import { billingTxOps, toAccount } from './billing.repository.js';
import { accounts, endedSubscriptions, payments, webhookEvents } from './schema.js';

type Tx = Parameters<Parameters<Orm['transaction']>[0]>[0];
type Db = Orm | Tx;

// Field-by-field on purpose (a column never leaks into a record); the casts narrow text columns to the record's unions.
const toPayment = (r: typeof payments.$inferSelect): PaymentRecord => ({
  id: r.id,
  userId: r.userId,
  email: r.email,
  provider: r.provider as PaymentRecord['provider'],
  type: r.type as PaymentRecord['type'],
  itemId: r.itemId,
  itemName: r.itemName,
  plan: r.plan as PaymentRecord['plan'],
  billingCycle: r.billingCycle as PaymentRecord['billingCycle'],
  amountCents: r.amountCents,
  currency: r.currency,
  credits: r.credits,
  method: r.method as PaymentRecord['method'],
  status: r.status as PaymentRecord['status'],
  failureMessage: r.failureMessage,
  refundedCents: r.refundedCents,
  refundedCredits: r.refundedCredits,
  providerRef: r.providerRef,
  createdAt: r.createdAt,
});

/** The same accounts row as toAccount reads it, as payments see it: with the provider's fields. */
const toSubscription = (r: typeof accounts.$inferSelect): SubscriptionRecord => {
  const { subscriptionStatus, ...account } = toAccount(r);
  return {
    ...account,
    status: subscriptionStatus,
    cancelAtPeriodEnd: r.cancelAtPeriodEnd,
    provider: r.provider as SubscriptionRecord['provider'],
    providerRef: r.providerRef,
    customerRef: r.providerCustomer,
    email: r.email,
  };
};

const findPayment = async (db: Db, id: string) => {
  const [row] = await db.select().from(payments).where(eq(payments.id, id));
  return row ? toPayment(row) : null;
};

function paymentsTxOps(tx: Tx): PaymentsTx {
  return {
    ...billingTxOps(tx),
    async lockPayment(id) {
      const [row] = await tx.select().from(payments).where(eq(payments.id, id)).for('update');
      return row ? toPayment(row) : null;
    },
    async insertPayment(p) {
      const { createdAt, ...rest } = p;
      const inserted = await tx
        .insert(payments)
        .values({ ...rest, createdAt })
        .onConflictDoNothing({ target: payments.id })
        .returning({ id: payments.id });
      return inserted.length === 1;
    },
    async updatePayment(p) {
      await tx
        .update(payments)
        .set({
          status: p.status,
          failureMessage: p.failureMessage,
          refundedCents: p.refundedCents,
          refundedCredits: p.refundedCredits,
          providerRef: p.providerRef,
          updatedAt: new Date(),
        })
        .where(eq(payments.id, p.id));
    },
    async lockSubscription(userId) {
      await tx.insert(accounts).values({ userId }).onConflictDoNothing();
      const [row] = await tx.select().from(accounts).where(eq(accounts.userId, userId)).for('update');
      return toSubscription(row!);
    },
    async saveSubscription(s) {
      await tx
        .update(accounts)
        .set({
          plan: s.plan,
          subscriptionStatus: s.status,
          billingCycle: s.billingCycle,
          nextBillingAt: s.nextBillingAt,
          cancelAtPeriodEnd: s.cancelAtPeriodEnd,
          provider: s.provider,
          providerRef: s.providerRef,
          providerCustomer: s.customerRef,
          email: s.email,
        })
        .where(eq(accounts.userId, s.userId));
    },
    async claimDue(now) {
      const [row] = await tx
        .select()
        .from(accounts)
        .where(
          and(
            eq(accounts.subscriptionStatus, 'active'),
            inArray(accounts.provider, ['sandbox', 'paypal']),
            lte(accounts.nextBillingAt, now),
          ),
        )
        .orderBy(accounts.nextBillingAt)
        .limit(1)
        .for('update', { skipLocked: true });
      return row ? toSubscription(row) : null;
    },
    async eventSeen(provider, eventId) {
      const [row] = await tx
        .select({ id: webhookEvents.eventId })
        .from(webhookEvents)
        .where(and(eq(webhookEvents.provider, provider), eq(webhookEvents.eventId, eventId)));
      return !!row;
    },
    async recordEvent(provider, eventId, type) {
      const inserted = await tx
        .insert(webhookEvents)
        .values({ provider, eventId, type })
        .onConflictDoNothing()
        .returning({ id: webhookEvents.eventId });
      return inserted.length === 1;
    },
    async markEnded(provider, ref) {
      await tx.insert(endedSubscriptions).values({ provider, ref }).onConflictDoNothing();
    },
    async isEnded(provider, ref) {
      const [row] = await tx
        .select({ ref: endedSubscriptions.ref })
        .from(endedSubscriptions)
        .where(and(eq(endedSubscriptions.provider, provider), eq(endedSubscriptions.ref, ref)));
      return !!row;
    },
    async findSubscriptionByRef(provider, ref) {
      const [row] = await tx
        .select({ userId: accounts.userId })
        .from(accounts)
        .where(and(eq(accounts.provider, provider), eq(accounts.providerRef, ref)));
      return row?.userId ?? null;
    },
  };
}

/** Payments, subscriptions and webhook events through Drizzle. */
export class DrizzlePaymentsRepository implements PaymentsRepository {
  constructor(private readonly orm: Orm) {}
  transaction<T>(fn: (tx: PaymentsTx) => Promise<T>): Promise<T> {
    return this.orm.transaction((tx) => fn(paymentsTxOps(tx)));
  }
  findPayment(id: string) {
    return findPayment(this.orm, id);
  }
  async findPaymentByRef(provider: string, ref: string) {
    const [row] = await this.orm
      .select()
      .from(payments)
      .where(and(eq(payments.provider, provider), eq(payments.providerRef, ref)))
      .limit(1);
    return row ? toPayment(row) : null;
  }
  async history(userId: string) {
    const rows = await this.orm.select().from(payments).where(eq(payments.userId, userId)).orderBy(desc(payments.createdAt)).limit(200);
    return rows.map(toPayment);
  }
  async revenueSince(since: Date) {
    const [row] = await this.orm
      .select({
        cents: sql<number>`coalesce(sum(${payments.amountCents} - ${payments.refundedCents}), 0)::float8`,
        payments: sql<number>`count(*)::float8`,
      })
      .from(payments)
      .where(and(inArray(payments.status, ['succeeded', 'refunded']), gte(payments.createdAt, since)));
    return { cents: Number(row?.cents ?? 0), payments: Number(row?.payments ?? 0) };
  }
  async claimReceipt(paymentId: string) {
    const rows = await this.orm
      .update(payments)
      .set({ receiptSentAt: sql`now()` })
      .where(and(eq(payments.id, paymentId), isNull(payments.receiptSentAt)))
      .returning({ id: payments.id });
    return rows.length === 1;
  }
}
