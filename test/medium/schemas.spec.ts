// Each table is written twice: as SQL in a service's migrations and as a Drizzle schema its
// repositories query through. This migrates a fresh database per service, exactly as the service
// does at start, and compares the two, column by column, so neither can drift from the other.
// Services that query with plain SQL list their tables here instead; any other table is unused.
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { getTableConfig, PgTable } from 'drizzle-orm/pg-core';
import { migrate, openDatabase, readMigrations } from '../../services/kit/src/db';
import { outboxMigration, outboxTable } from '../../services/kit/src/outbox';
import { createTestDatabase, type TestDatabase } from '../../services/kit/src/testing';
import * as identity from '../../services/identity/src/repositories/schema';
import * as billing from '../../services/billing/src/repositories/schema';
import * as orchestrator from '../../services/assembly-orchestrator/src/repositories/schema';
import * as mediaLibrary from '../../services/media-library/src/repositories/schema';
import * as marketplace from '../../services/marketplace/src/repositories/schema';

const root = path.resolve(__dirname, '..', '..');

interface ServiceSchema {
  name: string;
  drizzle: Record<string, unknown>;
  /** Tables the service reads with plain SQL (no Drizzle schema). */
  plainTables: string[];
}

const services: ServiceSchema[] = [
  { name: 'identity', drizzle: identity, plainTables: [] },
  { name: 'billing', drizzle: billing, plainTables: [] },
  { name: 'assembly-orchestrator', drizzle: orchestrator, plainTables: ['webhook_accounts', 'webhook_deliveries', 'webhook_endpoints'] },
  { name: 'media-library', drizzle: mediaLibrary, plainTables: [] },
  { name: 'gateway', drizzle: {}, plainTables: ['installation', 'demo_cache', 'idempotency_keys'] },
  { name: 'render-worker', drizzle: {}, plainTables: [] },
  { name: 'marketplace', drizzle: marketplace, plainTables: [] },
  {
    name: 'telemetry',
    drizzle: {},
    plainTables: ['activity', 'job_times', 'known_users', 'processed_messages', 'request_counts', 'request_latency'],
  },
];

interface Column {
  type: string;
  notNull: boolean;
  hasDefault: boolean;
  primaryKey: boolean;
}

/** Drizzle's SQL type names, spelled as PostgreSQL's format_type() spells them. */
function normalType(t: string): string {
  const s = t.toLowerCase().trim();
  if (s === 'bigserial') return 'bigint';
  if (s === 'serial') return 'integer';
  if (s === 'smallserial') return 'smallint';
  if (s === 'timestamptz') return 'timestamp with time zone';
  if (s === 'timestamp') return 'timestamp without time zone';
  return s.replace(/^varchar/, 'character varying').replace(/^double$/, 'double precision');
}

function drizzleTables(mod: Record<string, unknown>): Map<string, Map<string, Column>> {
  const out = new Map<string, Map<string, Column>>();
  for (const value of Object.values(mod)) {
    if (!(value instanceof PgTable)) continue;
    const config = getTableConfig(value);
    const pkColumns = new Set(config.primaryKeys.flatMap((pk) => pk.columns.map((c) => c.name)));
    const cols = new Map<string, Column>();
    for (const c of config.columns) {
      const serial = /serial$/i.test(c.getSQLType());
      cols.set(c.name, {
        type: normalType(c.getSQLType()),
        notNull: c.notNull || c.primary || pkColumns.has(c.name),
        hasDefault: c.hasDefault || serial,
        primaryKey: c.primary || pkColumns.has(c.name),
      });
    }
    out.set(config.name, cols);
  }
  return out;
}

async function databaseTables(url: string): Promise<Map<string, Map<string, Column>>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{
      table: string;
      column: string;
      type: string;
      not_null: boolean;
      has_default: boolean;
      pk: boolean;
    }>(`
      select c.relname as table, a.attname as column, format_type(a.atttypid, a.atttypmod) as type,
             a.attnotnull as not_null, a.atthasdef as has_default,
             exists (select 1 from pg_index i where i.indrelid = c.oid and i.indisprimary and a.attnum = any (i.indkey)) as pk
        from pg_class c
        join pg_namespace n on n.oid = c.relnamespace and n.nspname = 'public'
        join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
       where c.relkind = 'r' and c.relname <> 'schema_migrations'`);
    const out = new Map<string, Map<string, Column>>();
    for (const r of rows) {
      if (!out.has(r.table)) out.set(r.table, new Map());
      out.get(r.table)!.set(r.column, { type: r.type, notNull: r.not_null, hasDefault: r.has_default, primaryKey: r.pk });
    }
    return out;
  } finally {
    await client.end();
  }
}

describe('every service: the Drizzle schema matches the migrated database', () => {
  let testDb: TestDatabase | undefined;
  afterEach(async () => {
    await testDb?.drop();
    testDb = undefined;
  });

  it.each(services.map((s) => [s.name, s] as const))('%s', async (_name, service) => {
    const main = fs.readFileSync(path.join(root, 'services', service.name, 'src', 'main.ts'), 'utf8');
    const usesOutbox = /outbox:\s*true/.test(main);
    testDb = await createTestDatabase('schema');
    const db = await openDatabase({ url: testDb.url, pgliteDir: '' });
    try {
      await migrate(db, [
        ...(usesOutbox ? [outboxMigration()] : []),
        ...readMigrations(path.join(root, 'services', service.name, 'migrations')),
      ]);
    } finally {
      await db.close();
    }
    const actual = await databaseTables(testDb.url);
    const declared = drizzleTables(usesOutbox ? { ...service.drizzle, outboxTable } : service.drizzle);

    // No table without an owner in code, and no declared table missing from the database.
    expect([...actual.keys()].sort()).toEqual([...declared.keys(), ...service.plainTables].sort());
    for (const [table, columns] of declared) {
      const got = Object.fromEntries([...actual.get(table)!].sort(([a], [b]) => a.localeCompare(b)));
      const want = Object.fromEntries([...columns].sort(([a], [b]) => a.localeCompare(b)));
      expect({ table, columns: got }).toEqual({ table, columns: want });
    }
  });
});
