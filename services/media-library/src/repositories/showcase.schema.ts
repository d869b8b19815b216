import { bigint, jsonb, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';

/** A featured reel (the foreign key to reels is in the migration). */
export const showcaseEntries = pgTable('showcase_entries', {
  reelId: uuid('reel_id').primaryKey(),
  category: text('category').notNull(),
  featuredBy: uuid('featured_by'),
  featuredAt: timestamp('featured_at', { withTimezone: true }).notNull().defaultNow(),
  views: bigint('views', { mode: 'number' }).notNull().default(0),
  previewKeys: jsonb('preview_keys').$type<string[]>().notNull().default([]),
});
