import { bigint, boolean, doublePrecision, integer, jsonb, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';

export const mediaObjects = pgTable('media_objects', {
  id: uuid('id').primaryKey(),
  ownerId: uuid('owner_id').notNull(),
  objectKey: text('object_key').notNull().unique(),
  kind: text('kind').notNull(),
  displayName: text('display_name').notNull(),
  sizeBytes: bigint('size_bytes', { mode: 'number' }).notNull(),
  durationSec: doublePrecision('duration_sec').notNull().default(0),
  width: integer('width').notNull().default(0),
  height: integer('height').notNull().default(0),
  videoCodec: text('video_codec').notNull().default(''),
  audioCodec: text('audio_codec').notNull().default(''),
  thumbnailKey: text('thumbnail_key').notNull().default(''),
  analysisStatus: text('analysis_status').notNull().default('pending'),
  analysis: jsonb('analysis'),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  analysisClaimedBy: text('analysis_claimed_by'),
  analysisClaimedAt: timestamp('analysis_claimed_at', { withTimezone: true }),
  usedAt: timestamp('used_at', { withTimezone: true }),
});

export const reels = pgTable('reels', {
  id: uuid('id').primaryKey(),
  ownerId: uuid('owner_id').notNull(),
  title: text('title').notNull(),
  description: text('description').notNull().default(''),
  objectKey: text('object_key').notNull(),
  thumbnailKey: text('thumbnail_key').notNull().default(''),
  durationSec: doublePrecision('duration_sec').notNull(),
  sizeBytes: bigint('size_bytes', { mode: 'number' }).notNull(),
  musicUsed: boolean('music_used').notNull(),
  enableBeatMapping: boolean('enable_beat_mapping').notNull(),
  enableIntelligence: boolean('enable_intelligence').notNull(),
  pacingPreset: text('pacing_preset').notNull(),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  deletedAt: timestamp('deleted_at', { withTimezone: true }),
});
