import { bigint, doublePrecision, integer, jsonb, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';

export const jobs = pgTable('jobs', {
  id: uuid('id').primaryKey(),
  ownerId: uuid('owner_id').notNull(),
  status: text('status').notNull(),
  progress: integer('progress').notNull().default(0),
  request: jsonb('request').notNull(),
  message: text('message').notNull().default(''),
  idempotencyKey: text('idempotency_key'),
  estimateCredits: integer('estimate_credits').notNull().default(0),
  attempt: integer('attempt').notNull().default(0),
  outputKey: text('output_key').notNull().default(''),
  thumbnailKey: text('thumbnail_key').notNull().default(''),
  durationSec: doublePrecision('duration_sec').notNull().default(0),
  sizeBytes: bigint('size_bytes', { mode: 'number' }).notNull().default(0),
  renderChunks: jsonb('render_chunks').notNull().default([]),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  finishedAt: timestamp('finished_at', { withTimezone: true }),
});

export const reservationHolds = pgTable('reservation_holds', {
  jobId: uuid('job_id').primaryKey(),
  ownerId: uuid('owner_id').notNull(),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});
