import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import fs from 'node:fs';
import { migrate, openDatabase, outboxMigration, parseConfig, readMigrations, runService, type Database } from '@reelsmith/kit';
import { TEST_NATS_URL, createTestDatabase, natsPrefix, quietLogger, tempDir, type TestDatabase } from '@reelsmith/kit/testing';
import { streams } from '@reelsmith/proto';
import { Bus } from '@reelsmith/kit';
import { wire as wireIdentity } from '../../../services/identity/src/app';
import { configSchema as identitySchema } from '../../../services/identity/src/config';

const root = path.resolve(__dirname, '..', '..', '..');
const run = promisify(execFile);

/** npm run admin:grant / admin:revoke against identity's PostgreSQL database. */
describe('admin:grant and admin:revoke', () => {
  let tdb: TestDatabase;
  let db: Database;
  const data = tempDir('admin-cli');
  beforeAll(async () => {
    tdb = await createTestDatabase('admincli');
    db = await openDatabase({ url: tdb.url, pgliteDir: '' });
    await migrate(db, [outboxMigration(), ...readMigrations(path.join(root, 'services', 'identity', 'migrations'))]);
    await db.query(`insert into users (id, email, password_hash, email_verified_at) values ($1, 'ops@example.com', 'x', now())`, [
      '6f1d2c3b-0000-4000-8000-000000000001',
    ]);
  });
  afterAll(async () => {
    await db.close();
    await tdb.drop();
    data.remove();
  });

  const cli = (cmd: string, email: string, env: Record<string, string> = { IDENTITY_DATABASE_URL: tdb.url, DATA_DIR: data.dir }) =>
    run(process.execPath, [path.join(root, 'scripts', 'admin.js'), cmd, email], {
      cwd: root,
      env: { ...process.env, IDENTITY_DATABASE_URL: '', DATABASE_URL: '', ...env },
    }).then(
      (r) => ({ code: 0, out: r.stdout, err: r.stderr }),
      (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, out: e.stdout, err: e.stderr }),
    );
  const flag = async () =>
    (await db.query<{ is_admin: boolean }>(`select is_admin from users where email = 'ops@example.com'`))[0]!.is_admin;
  const facts = () =>
    db.query<{ subject: string }>(`select subject from outbox where subject = 'events.identity.admin_changed' order by id`);

  it('grants and revokes the stored flag, records each change for the activity feed, and refuses an unknown e-mail', async () => {
    const g = await cli('grant', 'OPS@example.com');
    expect(g).toMatchObject({ code: 0, out: expect.stringContaining('ops@example.com is now an admin') });
    expect(await flag()).toBe(true);
    const r = await cli('revoke', 'ops@example.com');
    expect(r.code).toBe(0);
    expect(await flag()).toBe(false);
    expect(await facts()).toHaveLength(2);
    const missing = await cli('grant', 'nobody@example.com');
    expect(missing).toMatchObject({ code: 1, err: expect.stringContaining('No account with the e-mail nobody@example.com') });
    expect(await facts()).toHaveLength(2);
  }, 120_000);

  it('goes through the running identity while npm start runs, whichever database it keeps', async () => {
    // identity runs (here on PostgreSQL); the state file says where, as npm start's supervisor writes it.
    const prefix = natsPrefix();
    const config = parseConfig(identitySchema, {
      DATA_DIR: data.dir,
      NATS_URL: TEST_NATS_URL,
      NATS_PREFIX: prefix,
      DATABASE_URL: tdb.url,
      TOKEN_SECRET: 'test-token-secret-0123456789abcdef',
      INTERNAL_TOKEN: 'internal-token-0123456789abcdef',
    });
    const svc = await runService(
      { name: 'identity', config, migrationsDir: path.join(root, 'services', 'identity', 'migrations'), outbox: true, wire: wireIdentity },
      { handleSignals: false, log: quietLogger() },
    );
    try {
      fs.mkdirSync(path.join(data.dir, 'db', 'identity'), { recursive: true });
      fs.mkdirSync(path.join(data.dir, 'run'), { recursive: true });
      fs.writeFileSync(
        path.join(data.dir, 'run', 'supervisor.json'),
        JSON.stringify({
          pid: process.pid,
          processes: { identity: { pid: process.pid, restarts: 0 } },
          ports: { identity: { grpc: svc.grpcPort, ops: 0 } },
        }),
      );
      fs.writeFileSync(path.join(data.dir, 'secrets.json'), JSON.stringify({ INTERNAL_TOKEN: 'internal-token-0123456789abcdef' }));
      const before = (await facts()).length;
      const g = await cli('grant', 'ops@example.com', { DATA_DIR: data.dir });
      expect(g).toMatchObject({ code: 0, out: expect.stringContaining('ops@example.com is now an admin') });
      expect(await flag()).toBe(true);
      expect((await facts()).length).toBe(before + 1);

      // With identity's database URL in the environment too (npm start on PostgreSQL): still
      // through identity, which publishes the change at once, not at its relay's 30 s backstop.
      const r = await cli('revoke', 'ops@example.com', { DATA_DIR: data.dir, IDENTITY_DATABASE_URL: tdb.url });
      expect(r).toMatchObject({ code: 0, out: expect.stringContaining('ops@example.com is no longer an admin') });
      expect(await flag()).toBe(false);
      expect((await facts()).length).toBe(before + 2);
      const unpublished = () => db.query(`select id from outbox where published_at is null`);
      const end = Date.now() + 5000;
      while ((await unpublished()).length && Date.now() < end) await new Promise((ok) => setTimeout(ok, 100));
      expect(await unpublished()).toEqual([]);
    } finally {
      await svc.stop();
      const bus = await Bus.connect({ url: TEST_NATS_URL, name: 'cleanup', log: quietLogger(), prefix });
      await bus.deleteStream(streams.EVENTS);
      await bus.deleteStream(streams.RENDER);
      await bus.close();
    }
  }, 120_000);
});
