import { bigint, bigserial, boolean, date, integer, pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core';

export const accounts = pgTable('accounts', {
  userId: uuid('user_id').primaryKey(),
  plan: text('plan').notNull().default('free'),
  subscriptionStatus: text('subscription_status').notNull().default('inactive'),
  billingCycle: text('billing_cycle'),
  nextBillingAt: timestamp('next_billing_at', { withTimezone: true }),
  cancelAtPeriodEnd: boolean('cancel_at_period_end').notNull().default(false),
  provider: text('provider'),
  providerRef: text('provider_ref').notNull().default(''),
  providerCustomer: text('provider_customer').notNull().default(''),
  email: text('email').notNull().default(''),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});

export const ledger = pgTable('ledger', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  userId: uuid('user_id').notNull(),
  delta: bigint('delta', { mode: 'number' }).notNull(),
  kind: text('kind').notNull(),
  idempotencyKey: text('idempotency_key').notNull().unique(),
  jobId: uuid('job_id'),
  reason: text('reason').notNull().default(''),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});

export const reservations = pgTable('reservations', {
  jobId: uuid('job_id').primaryKey(),
  userId: uuid('user_id').notNull(),
  kind: text('kind').notNull(),
  status: text('status').notNull(),
  credits: bigint('credits', { mode: 'number' }).notNull(),
  freeDate: date('free_date', { mode: 'string' }),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

export const dailyFreeUses = pgTable(
  'daily_free_uses',
  {
    userId: uuid('user_id').notNull(),
    useDate: date('use_date', { mode: 'string' }).notNull(),
    jobId: uuid('job_id').notNull(),
  },
  // One free video per user per day, held by the key itself.
  (t) => [primaryKey({ columns: [t.userId, t.useDate] })],
);

export const payments = pgTable('payments', {
  id: text('id').primaryKey(),
  userId: uuid('user_id').notNull(),
  email: text('email').notNull().default(''),
  provider: text('provider').notNull(),
  type: text('type').notNull(),
  itemId: text('item_id').notNull(),
  itemName: text('item_name').notNull(),
  plan: text('plan'),
  billingCycle: text('billing_cycle'),
  amountCents: integer('amount_cents').notNull(),
  currency: text('currency').notNull().default('usd'),
  credits: integer('credits').notNull(),
  method: text('method').notNull(),
  status: text('status').notNull(),
  failureMessage: text('failure_message').notNull().default(''),
  refundedCents: integer('refunded_cents').notNull().default(0),
  refundedCredits: integer('refunded_credits').notNull().default(0),
  providerRef: text('provider_ref').notNull().default(''),
  receiptSentAt: timestamp('receipt_sent_at', { withTimezone: true }),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

export const webhookEvents = pgTable(
  'webhook_events',
  {
    provider: text('provider').notNull(),
    eventId: text('event_id').notNull(),
    type: text('type').notNull(),
    receivedAt: timestamp('received_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.provider, t.eventId] })],
);

export const endedSubscriptions = pgTable(
  'ended_subscriptions',
  {
    provider: text('provider').notNull(),
    ref: text('ref').notNull(),
  },
  (t) => [primaryKey({ columns: [t.provider, t.ref] })],
);
