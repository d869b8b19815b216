import { bigint, index, jsonb, pgTable, primaryKey, smallint, text, timestamp, uuid } from 'drizzle-orm/pg-core';

/** A featured reel (the foreign key to reels is in the migration). */
export const showcaseEntries = pgTable('showcase_entries', {
  reelId: uuid('reel_id').primaryKey(),
  category: text('category').notNull(),
  featuredBy: uuid('featured_by'),
  featuredAt: timestamp('featured_at', { withTimezone: true }).notNull().defaultNow(),
  views: bigint('views', { mode: 'number' }).notNull().default(0),
  previewKeys: jsonb('preview_keys').$type<string[]>().notNull().default([]),
});

/** When a viewer's play of a featured reel was last counted (see migration 0102). */
export const showcaseViews = pgTable(
  'showcase_views',
  {
    reelId: uuid('reel_id').notNull(),
    viewer: text('viewer').notNull(),
    countedAt: timestamp('counted_at', { withTimezone: true }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.reelId, t.viewer] })],
);

/** One user's stars (1-5) for a featured reel; rating again replaces them (see migration 0104). */
export const showcaseRatings = pgTable(
  'showcase_ratings',
  {
    reelId: uuid('reel_id').notNull(),
    userId: uuid('user_id').notNull(),
    stars: smallint('stars').notNull(),
    ratedAt: timestamp('rated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.reelId, t.userId] }), index('showcase_ratings_user').on(t.userId)],
);
