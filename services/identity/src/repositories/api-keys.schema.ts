import { pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';

/** API keys (migration 0103): only hashes of the secrets. */
export const apiKeys = pgTable('api_keys', {
  id: uuid('id').primaryKey(),
  userId: uuid('user_id').notNull(),
  name: text('name').notNull(),
  prefix: text('prefix').notNull(),
  scopes: text('scopes').array().notNull(),
  secretHash: text('secret_hash').notNull().unique(),
  publicHash: text('public_hash').notNull(),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  lastUsedAt: timestamp('last_used_at', { withTimezone: true }),
  revokedAt: timestamp('revoked_at', { withTimezone: true }),
});
