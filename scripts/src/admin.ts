/**
 * `npm run admin:grant -- EMAIL` / `npm run admin:revoke -- EMAIL`: sets or clears the stored admin
 * flag of an existing account. With `npm start` running on DATA_DIR, through its identity service;
 * otherwise in identity's configured database (IDENTITY_DATABASE_URL or DATABASE_URL, else the
 * embedded one in DATA_DIR/db/identity), recording the change in identity's outbox, so the
 * activity feed shows it once identity publishes it.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { dial, enqueueEvent, openDatabase, runningServicePort, useInternalToken } from '@reelsmith/kit';
import { identity } from '@reelsmith/proto';

/** Through the running identity (SetAdmin), with the internal token `npm start` generated. */
async function viaIdentity(port: number, dataDir: string, email: string, grant: boolean) {
  let token = process.env.INTERNAL_TOKEN;
  if (!token)
    try {
      token = (JSON.parse(fs.readFileSync(path.join(dataDir, 'secrets.json'), 'utf8')) as { INTERNAL_TOKEN?: string }).INTERNAL_TOKEN;
    } catch {
      token = undefined;
    }
  useInternalToken(token);
  const client = dial(identity.IdentityService, `127.0.0.1:${port}`, { deadlineMs: 10_000 });
  try {
    const r = await client.setAdmin({ email, isAdmin: grant, by: 'cli' });
    return r.found ? { email: r.email } : null;
  } finally {
    client.close();
  }
}

async function run(): Promise<number> {
  const [command, rawEmail] = process.argv.slice(2);
  if ((command !== 'grant' && command !== 'revoke') || !rawEmail) {
    process.stderr.write('usage: npm run admin:grant -- EMAIL   |   npm run admin:revoke -- EMAIL\n');
    return 2;
  }
  const email = rawEmail.trim().toLowerCase();
  const grant = command === 'grant';
  const dataDir = path.resolve(process.env.DATA_DIR || './data');
  const url = process.env.IDENTITY_DATABASE_URL || process.env.DATABASE_URL || undefined;
  const pgliteDir = path.join(dataDir, 'db', 'identity');
  // A running `npm start` makes the change itself, whichever database it keeps, and publishes it
  // at once: every gateway hears of it within moments.
  const running = runningServicePort(dataDir, 'identity');
  if (running) return report(await viaIdentity(running, dataDir, email, grant), email, grant);
  if (!url && !fs.existsSync(pgliteDir)) {
    process.stderr.write(`No identity database in ${pgliteDir}: start Reelsmith once (npm start) and sign up first.\n`);
    return 1;
  }
  const db = await openDatabase({ url, pgliteDir, poolSize: 1 });
  try {
    const changed = await db.orm.transaction(async (tx) => {
      const rows = (
        (await tx.execute(
          sql`update users set is_admin = ${grant} where lower(email) = ${email} and is_guest = false returning id, email`,
        )) as unknown as { rows: { id: string; email: string }[] }
      ).rows;
      const user = rows[0];
      if (!user) return null;
      // Published by identity's outbox relay (now if it runs on this database, else at its next start).
      await enqueueEvent(
        tx,
        'events.identity.admin_changed',
        { userId: user.id, email: user.email, isAdmin: grant, by: 'cli', atUnixMs: BigInt(Date.now()) },
        `identity.admin_changed.${user.id}.${crypto.randomUUID()}`,
      );
      return user;
    });
    return report(changed, email, grant);
  } finally {
    await db.close();
  }
}

function report(changed: { email: string } | null, email: string, grant: boolean): number {
  if (!changed) {
    process.stderr.write(`No account with the e-mail ${email}: sign up first (the guest pass cannot be an admin).\n`);
    return 1;
  }
  process.stdout.write(
    grant
      ? `${changed.email} is now an admin (sign in again, or reload, to see the Admin link).\n`
      : `${changed.email} is no longer an admin (unless PRIVILEGED_EMAILS lists it).\n`,
  );
  return 0;
}

run().then(
  (code) => process.exit(code),
  (e: unknown) => {
    process.stderr.write(`admin: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  },
);
