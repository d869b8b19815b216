import pg from 'pg';
import { TEST_POOL_SIZE, createProductDatabases, dropDatabases, serverUrl } from '../support/product-db';

async function existing(names: readonly string[]): Promise<string[]> {
  const c = new pg.Client({ connectionString: serverUrl() });
  await c.connect();
  try {
    const r = await c.query<{ datname: string }>('select datname from pg_database where datname = any($1) order by datname', [names]);
    return r.rows.map((row) => row.datname);
  } finally {
    await c.end();
  }
}

describe("a test product's databases (test/support/product-db.ts)", () => {
  it('gives each service an empty database of its own under its <SERVICE>_DATABASE_URL, and drops them all', async () => {
    const dbs = await createProductDatabases(['identity', 'media-library']);
    expect(Object.keys(dbs.env).sort()).toEqual(['DATABASE_POOL_SIZE', 'IDENTITY_DATABASE_URL', 'MEDIA_LIBRARY_DATABASE_URL']);
    expect(dbs.env.DATABASE_POOL_SIZE).toBe(String(TEST_POOL_SIZE));
    expect(await existing(dbs.names)).toEqual([...dbs.names].sort());
    // Each URL reaches its own database, empty, and one service's table is not in the other's.
    const identity = new pg.Client({ connectionString: dbs.env.IDENTITY_DATABASE_URL });
    const media = new pg.Client({ connectionString: dbs.env.MEDIA_LIBRARY_DATABASE_URL });
    // The forced drop ends the identity connection below: the server's notice is expected.
    identity.on('error', () => undefined);
    await identity.connect();
    await media.connect();
    try {
      const tables = async (c: pg.Client) =>
        (await c.query("select count(*)::int as n from information_schema.tables where table_schema = 'public'")).rows[0].n;
      expect((await identity.query('select current_database() as d')).rows[0].d).toBe(dbs.names[0]);
      expect(await tables(identity)).toBe(0);
      await identity.query('create table users (id int)');
      expect(await tables(identity)).toBe(1);
      expect(await tables(media)).toBe(0);
      await media.end();
      // A connection a crashed product left open does not stop the drop.
      await dropDatabases(dbs.names);
      expect(await existing(dbs.names)).toEqual([]);
    } finally {
      await identity.end().catch(() => undefined);
      await media.end().catch(() => undefined);
      await dropDatabases(dbs.names);
    }
  });
});
