import { PGlite } from '@electric-sql/pglite';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';

export type Orm = PgDatabase<PgQueryResultHKT, Record<string, never>>;

export interface Database {
  readonly kind: 'postgres' | 'pglite';
  /** Drizzle, the same API over both drivers. */
  readonly orm: Orm;
  /** Raw SQL with $1.. parameters, for migrations and the odd statement Drizzle does not express. */
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  /** postgres:// URL; when absent an embedded PGlite database lives in `pgliteDir`. */
  url?: string;
  pgliteDir: string;
  /** Connection pool size for PostgreSQL. */
  poolSize?: number;
}

export async function openDatabase(opts: DatabaseOptions): Promise<Database> {
  if (opts.url) {
    const pool = new pg.Pool({ connectionString: opts.url, max: opts.poolSize ?? 10 });
    // An idle client losing its connection must not crash the process; the pool replaces it.
    pool.on('error', () => undefined);
    await pool.query('select 1');
    return {
      kind: 'postgres',
      orm: drizzlePg(pool) as unknown as Orm,
      query: async <T>(sql: string, params?: unknown[]) => (await pool.query(sql, params)).rows as T[],
      ping: async () => void (await pool.query('select 1')),
      close: () => pool.end(),
    };
  }
  fs.mkdirSync(opts.pgliteDir, { recursive: true });
  await initPgliteOutOfProcess(opts.pgliteDir);
  const client = await PGlite.create(opts.pgliteDir);
  return {
    kind: 'pglite',
    orm: drizzlePglite(client) as unknown as Orm,
    query: async <T>(sql: string, params?: unknown[]) => (await client.query<T>(sql, params)).rows,
    ping: async () => void (await client.query('select 1')),
    close: () => client.close(),
  };
}

/**
 * initdb grows PGlite's WebAssembly heap to ~800 MB, and a WASM heap never shrinks; opening an
 * initialised database costs ~170 MB. So a service only ever opens an existing database. A new
 * one is a copy of a template data directory, initialised once per machine and PGlite version by
 * a short-lived child process (initdb costs ~6 s of CPU; a copy well under one, and `npm start`
 * creates nine databases at once on its first run, every test of the whole product too).
 */
async function initPgliteOutOfProcess(dir: string): Promise<void> {
  if (fs.existsSync(path.join(dir, 'PG_VERSION'))) return;
  const template = await pgliteTemplate();
  // Copied beside, then renamed into place: a copy cut short is never taken for a database.
  const partial = `${dir}.partial-${process.pid}-${crypto.randomBytes(4).toString('hex')}`;
  try {
    fs.cpSync(template, partial, { recursive: true });
    fs.rmSync(dir, { recursive: true, force: true }); // empty: PG_VERSION is its first file to exist
    fs.renameSync(partial, dir);
  } finally {
    fs.rmSync(partial, { recursive: true, force: true });
  }
}

/** PGlite's version (the template is only valid for the version that made it). */
function pgliteVersion(): string {
  let dir = path.dirname(require.resolve('@electric-sql/pglite'));
  for (let i = 0; i < 4; i++, dir = path.dirname(dir)) {
    const file = path.join(dir, 'package.json');
    if (fs.existsSync(file)) {
      const pkg = JSON.parse(fs.readFileSync(file, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === '@electric-sql/pglite' && pkg.version) return pkg.version;
    }
  }
  return 'unknown';
}

/**
 * The template: a freshly initialised data directory in the machine's temporary folder (a cache:
 * made again if removed). It is built under a unique name and renamed into place, so it is
 * either complete or absent; processes racing to make it each finish, and one rename wins.
 */
export async function pgliteTemplate(root = os.tmpdir()): Promise<string> {
  const dir = path.join(root, `reelsmith-pglite-${pgliteVersion()}-template`);
  if (fs.existsSync(path.join(dir, 'PG_VERSION'))) return dir;
  const building = `${dir}.building-${process.pid}-${crypto.randomBytes(4).toString('hex')}`;
  try {
    await initdbInChild(building);
    try {
      fs.renameSync(building, dir);
    } catch (e) {
      // Another process won the race (ENOTEMPTY / EEXIST): its template serves.
      if (!fs.existsSync(path.join(dir, 'PG_VERSION'))) throw e;
    }
  } finally {
    fs.rmSync(building, { recursive: true, force: true });
  }
  return dir;
}

function initdbInChild(dir: string): Promise<void> {
  fs.mkdirSync(dir, { recursive: true });
  const script = `require(${JSON.stringify(require.resolve('@electric-sql/pglite'))}).PGlite.create(process.argv[1]).then((db) => db.close()).catch((e) => { console.error(e); process.exit(1); })`;
  return new Promise<void>((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', script, dir], { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`PGlite initdb in ${dir} failed: ${err.slice(-2000)}`))));
  });
}

export interface Migration {
  name: string;
  sql: string;
}

/** Reads `NNNN_name.sql` files in order. */
export function readMigrations(dir: string): Migration[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.sql'))
    .sort()
    .map((f) => ({ name: f, sql: fs.readFileSync(path.join(dir, f), 'utf8') }));
}

/**
 * Applies the migrations not yet applied, each in its own transaction, under an advisory lock so
 * that replicas starting together do not race. The same files serve PostgreSQL and PGlite.
 * Returns the names applied now.
 */
export async function migrate(db: Database, migrations: Migration[]): Promise<string[]> {
  const applied: string[] = [];
  await db.query('select pg_advisory_lock(727274)');
  try {
    await db.query('create table if not exists schema_migrations (name text primary key, applied_at timestamptz not null default now())');
    const done = new Set((await db.query<{ name: string }>('select name from schema_migrations')).map((r) => r.name));
    for (const m of migrations) {
      if (done.has(m.name)) continue;
      await db.query('begin');
      try {
        for (const statement of splitStatements(m.sql)) await db.query(statement);
        await db.query('insert into schema_migrations (name) values ($1)', [m.name]);
        await db.query('commit');
      } catch (e) {
        await db.query('rollback');
        throw new Error(`migration ${m.name} failed: ${(e as Error).message}`);
      }
      applied.push(m.name);
    }
  } finally {
    await db.query('select pg_advisory_unlock(727274)');
  }
  return applied;
}

/** Splits a migration on `--> statement-breakpoint` lines or, failing that, on semicolons at line ends. */
export function splitStatements(sql: string): string[] {
  const parts = sql.includes('--> statement-breakpoint') ? sql.split('--> statement-breakpoint') : sql.split(/;\s*$/m);
  return parts.map((s) => s.trim()).filter((s) => s.replace(/--.*$/gm, '').trim().length > 0);
}
