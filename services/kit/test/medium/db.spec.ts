import { pgTable, text, integer } from 'drizzle-orm/pg-core';
import { eq } from 'drizzle-orm';
import fs from 'node:fs';
import path from 'node:path';
import { migrate, openDatabase, pgliteTemplate, type Database, type Migration } from '../../src/db';
import { createTestDatabase, tempDir, type TestDatabase } from '../../src/testing';

const migrations: Migration[] = [
  {
    name: '0001_items.sql',
    sql: 'create table items (id text primary key, qty integer not null check (qty >= 0));\ncreate index items_qty on items (qty);',
  },
  { name: '0002_items_note.sql', sql: "alter table items add column note text not null default '';" },
];
const items = pgTable('items', { id: text('id').primaryKey(), qty: integer('qty').notNull(), note: text('note').notNull().default('') });

async function exercise(db: Database) {
  expect(await migrate(db, migrations)).toEqual(['0001_items.sql', '0002_items_note.sql']);
  expect(await migrate(db, migrations)).toEqual([]); // second start applies nothing
  await db.orm.insert(items).values({ id: 'a', qty: 2 });
  await db.orm.update(items).set({ qty: 5, note: 'x' }).where(eq(items.id, 'a'));
  expect(await db.orm.select().from(items)).toEqual([{ id: 'a', qty: 5, note: 'x' }]);
  // The CHECK constraint holds on both engines.
  await expect(db.orm.insert(items).values({ id: 'b', qty: -1 })).rejects.toThrow();
  // Transactions roll back on both engines.
  await expect(
    db.orm.transaction(async (tx) => {
      await tx.insert(items).values({ id: 'c', qty: 1 });
      throw new Error('abort');
    }),
  ).rejects.toThrow('abort');
  expect((await db.orm.select().from(items)).map((r) => r.id)).toEqual(['a']);
}

describe('database: the same migrations on PostgreSQL and PGlite', () => {
  let pgdb: TestDatabase;
  beforeAll(async () => {
    pgdb = await createTestDatabase('kit');
  });
  afterAll(() => pgdb.drop());

  it('runs on real PostgreSQL', async () => {
    const db = await openDatabase({ url: pgdb.url, pgliteDir: '/nonexistent' });
    expect(db.kind).toBe('postgres');
    try {
      await exercise(db);
    } finally {
      await db.close();
    }
  });

  it('runs on PGlite and keeps its data across restarts', async () => {
    const t = tempDir('pglite');
    try {
      const db = await openDatabase({ pgliteDir: t.dir });
      expect(db.kind).toBe('pglite');
      await exercise(db);
      await db.close();
      const again = await openDatabase({ pgliteDir: t.dir });
      expect(await migrate(again, migrations)).toEqual([]);
      expect(await again.orm.select().from(items)).toEqual([{ id: 'a', qty: 5, note: 'x' }]);
      await again.close();
    } finally {
      t.remove();
    }
  });

  it('makes new PGlite databases from one template: each its own, the template untouched', async () => {
    const t = tempDir('pglite-template');
    try {
      // Two processes' worth of racing callers end with one complete template.
      const [a, b] = await Promise.all([pgliteTemplate(t.dir), pgliteTemplate(t.dir)]);
      expect(a).toBe(b);
      expect(fs.readdirSync(t.dir)).toEqual([path.basename(a)]); // no half-built copies left behind
      const stamp = fs.statSync(path.join(a, 'PG_VERSION')).mtimeMs;
      expect(await pgliteTemplate(t.dir)).toBe(a);
      expect(fs.statSync(path.join(a, 'PG_VERSION')).mtimeMs).toBe(stamp); // not initialised again

      // The service's databases (made from the machine's template) are independent of each other.
      const one = await openDatabase({ pgliteDir: path.join(t.dir, 'one') });
      const two = await openDatabase({ pgliteDir: path.join(t.dir, 'two') });
      try {
        await exercise(one);
        expect(await migrate(two, migrations)).toHaveLength(2);
        expect(await two.orm.select().from(items)).toEqual([]);
      } finally {
        await one.close();
        await two.close();
      }
      expect(fs.readdirSync(t.dir).filter((f) => f.includes('partial'))).toEqual([]);
    } finally {
      t.remove();
    }
  });

  it('rolls back a failing migration whole', async () => {
    const db = await openDatabase({ url: pgdb.url, pgliteDir: '/nonexistent' });
    try {
      await expect(migrate(db, [{ name: '0009_bad.sql', sql: 'create table half (x int);\nselect no_such_function();' }])).rejects.toThrow(
        /0009_bad.sql/,
      );
      expect(await db.query("select to_regclass('half') as t")).toEqual([{ t: null }]);
    } finally {
      await db.close();
    }
  });
});
