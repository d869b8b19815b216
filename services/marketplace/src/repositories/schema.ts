import { bigint, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';

export const clips = pgTable('marketplace_clips', {
  id: uuid('id').primaryKey(),
  uploadKey: text('upload_key').notNull().unique(),
  userId: uuid('user_id').notNull(),
  userEmail: text('user_email').notNull().default(''),
  jobId: uuid('job_id').notNull(),
  filename: text('filename').notNull(),
  sizeBytes: bigint('size_bytes', { mode: 'number' }).notNull(),
  objectKey: text('object_key').notNull().default(''),
  thumbnailKey: text('thumbnail_key').notNull().default(''),
  status: text('status').notNull().default('pending'),
  offerType: text('offer_type'),
  cashCents: bigint('cash_cents', { mode: 'number' }).notNull().default(0),
  credits: bigint('credits', { mode: 'number' }).notNull().default(0),
  consentedAt: timestamp('consented_at', { withTimezone: true }).notNull(),
  offeredAt: timestamp('offered_at', { withTimezone: true }),
  answeredAt: timestamp('answered_at', { withTimezone: true }),
  grantState: text('grant_state').notNull().default('none'),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});

export const payouts = pgTable('marketplace_payouts', {
  id: uuid('id').primaryKey(),
  clipId: uuid('clip_id').notNull().unique(),
  userId: uuid('user_id').notNull(),
  userEmail: text('user_email').notNull().default(''),
  filename: text('filename').notNull(),
  amountCents: bigint('amount_cents', { mode: 'number' }).notNull(),
  state: text('state').notNull().default('pending'),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  paidAt: timestamp('paid_at', { withTimezone: true }),
});
