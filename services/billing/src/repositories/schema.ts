import { bigint, bigserial, date, pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core';

export const accounts = pgTable('accounts', {
  userId: uuid('user_id').primaryKey(),
  plan: text('plan').notNull().default('free'),
  subscriptionStatus: text('subscription_status').notNull().default('inactive'),
  billingCycle: text('billing_cycle'),
  nextBillingAt: timestamp('next_billing_at', { withTimezone: true }),
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
