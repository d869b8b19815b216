import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { baseSchema, parseConfig } from '../../src/config';
import { migrateService } from '../../src/service';
import { createTestDatabase, quietLogger, tempDir, type TestDatabase } from '../../src/testing';

const run = promisify(execFile);
const root = path.resolve(__dirname, '..', '..', '..', '..');

async function migrationNames(url: string): Promise<string[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query<{ name: string }>('select name from schema_migrations order by name')).rows.map((r) => r.name);
  } finally {
    await c.end();
  }
}

// The cluster's pre-install/pre-upgrade hook Job runs `main.js --migrate-only`: the start-up
// migration runner on the service's own files, then exit, without NATS or a listening port.
describe('migrate-only: the start-up migrations without starting the service', () => {
  let db: TestDatabase;
  const files = tempDir('migrations');
  beforeAll(async () => {
    db = await createTestDatabase('kitmig');
    fs.writeFileSync(path.join(files.dir, '0001_notes.sql'), 'create table notes (id text primary key);');
    fs.writeFileSync(path.join(files.dir, '0002_notes_body.sql'), "alter table notes add column body text not null default '';");
  });
  afterAll(async () => {
    files.remove();
    await db.drop();
  });

  it('applies the outbox and the service files once, in order', async () => {
    const config = parseConfig(baseSchema, { DATABASE_URL: db.url, NATS_URL: 'nats://127.0.0.1:1' });
    const spec = { name: 'notes', config, migrationsDir: files.dir, outbox: true, wire: () => ({ grpc: [] }) };
    expect(await migrateService(spec, { log: quietLogger() })).toEqual(['kit_outbox.sql', '0001_notes.sql', '0002_notes_body.sql']);
    expect(await migrateService(spec, { log: quietLogger() })).toEqual([]);
  });

  const billingMain = path.join(root, 'services', 'billing', 'dist', 'main.js');
  (fs.existsSync(billingMain) ? it : it.skip)('a built service exits 0 after migrating, with NATS unreachable', async () => {
    const target = await createTestDatabase('kitmigbill');
    try {
      const env = { PATH: process.env.PATH, DATABASE_URL: target.url, NATS_URL: 'nats://127.0.0.1:1', LOG_LEVEL: 'silent' };
      await run(process.execPath, [billingMain, '--migrate-only'], { env, timeout: 20_000 });
      const applied = await migrationNames(target.url);
      const own = fs.readdirSync(path.join(root, 'services', 'billing', 'migrations')).filter((f) => f.endsWith('.sql'));
      expect(applied).toEqual(expect.arrayContaining(own));
      // A second run (the next upgrade) finds nothing to do and still succeeds.
      await run(process.execPath, [billingMain, '--migrate-only'], { env, timeout: 20_000 });
      expect(await migrationNames(target.url)).toEqual(applied);
    } finally {
      await target.drop();
    }
  });
});
