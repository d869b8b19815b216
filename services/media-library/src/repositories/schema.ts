import { bigint, boolean, doublePrecision, integer, jsonb, pgTable, primaryKey, real, text, timestamp, uuid } from 'drizzle-orm/pg-core';

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
  /** The owner's tempo corrections of this music (TempoService's StoredCorrection), null without. */
  tempoCorrection: jsonb('tempo_correction'),
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
  shareToShowcase: boolean('share_to_showcase').notNull().default(false),
  expiresAt: timestamp('expires_at', { withTimezone: true }),
});

export const libraryItems = pgTable('library_items', {
  id: uuid('id').primaryKey(),
  key: text('key').notNull().unique(),
  kind: text('kind').notNull(),
  filename: text('filename').notNull(),
  category: text('category').notNull(),
  contentHash: text('content_hash').notNull().unique(),
  objectKey: text('object_key').notNull().unique(),
  sizeBytes: bigint('size_bytes', { mode: 'number' }).notNull(),
  durationSec: doublePrecision('duration_sec').notNull(),
  width: integer('width').notNull().default(0),
  height: integer('height').notNull().default(0),
  videoCodec: text('video_codec').notNull().default(''),
  audioCodec: text('audio_codec').notNull().default(''),
  thumbnailKey: text('thumbnail_key').notNull().default(''),
  previewFrameKeys: text('preview_frame_keys').array().notNull().default([]),
  bpm: doublePrecision('bpm').notNull().default(0),
  peaks: real('peaks').array().notNull().default([]),
  analysisStatus: text('analysis_status').notNull(),
  analysis: jsonb('analysis'),
  attribution: text('attribution'),
  attributionUserId: text('attribution_user_id'),
  sourceClipId: text('source_clip_id').unique(),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  /** Insert, or the analysis redone (a new tempo): the catalogue's stamp reads it. */
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  analysisClaimedBy: text('analysis_claimed_by'),
  analysisClaimedAt: timestamp('analysis_claimed_at', { withTimezone: true }),
});

/** Each user's tempo corrections of a library track (shared by everyone, corrected per user). */
export const libraryTempoCorrections = pgTable(
  'library_tempo_corrections',
  {
    ownerId: uuid('owner_id').notNull(),
    objectKey: text('object_key').notNull(),
    correction: jsonb('correction').notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.ownerId, t.objectKey] })],
);

export * from './showcase.schema.js';
