/**
 * The databases of a product an end-to-end or browser spec starts: one per service on the
 * machine's PostgreSQL (TEST_DATABASE_URL), each passed as that service's `<SERVICE>_DATABASE_URL`,
 * as a deployment has them. A product on embedded PGlite spends about 20 CPU-seconds more to start
 * (eight WebAssembly databases) and more on every query; `npm start`'s embedded databases are
 * checked by the specs that start the product as a user does (`database: 'embedded'`).
 *
 * Node's modules and `pg` only: the projects' global teardown (outside Jest's module mapping)
 * drops a shared product's databases with `dropDatabases`.
 */
import crypto from 'node:crypto';
import pg from 'pg';

/** The PostgreSQL server test products keep their databases on. */
export const serverUrl = () => process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** Connections each service of a test product may hold: three products at once stay within PostgreSQL's default 100. */
export const TEST_POOL_SIZE = 4;

export interface ProductDatabases {
  /** `<SERVICE>_DATABASE_URL` of every service, and their pool size. */
  env: Record<string, string>;
  names: string[];
}

const envName = (service: string) => `${service.toUpperCase().replace(/-/g, '_')}_DATABASE_URL`;

async function admin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: serverUrl() });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

/** A fresh, empty database for each of `services`; the services migrate them at start. */
export async function createProductDatabases(services: readonly string[]): Promise<ProductDatabases> {
  const run = `rsprod_${Date.now().toString(36)}_${crypto.randomBytes(3).toString('hex')}`;
  const names = services.map((s) => `${run}_${s.replace(/-/g, '_')}`);
  await admin(async (c) => {
    for (const n of names) await c.query(`create database "${n}"`);
  });
  const env: Record<string, string> = { DATABASE_POOL_SIZE: String(TEST_POOL_SIZE) };
  services.forEach((s, i) => {
    const url = new URL(serverUrl());
    url.pathname = `/${names[i]}`;
    env[envName(s)] = url.toString();
  });
  return { env, names };
}

/** Drops the databases (once their product has stopped; `with (force)` ends any connection left). */
export async function dropDatabases(names: readonly string[]): Promise<void> {
  if (!names.length) return;
  await admin(async (c) => {
    for (const n of names) await c.query(`drop database if exists "${n}" with (force)`);
  });
}
