import crypto from 'node:crypto';
import type { Database } from '@reelsmith/kit';

/** The id of this installation, created on first start and kept in the gateway's database. */
export async function installationId(db: Database): Promise<string> {
  await db.query('insert into installation (id) values ($1) on conflict do nothing', [crypto.randomUUID()]);
  const rows = await db.query<{ id: string }>('select id from installation');
  return rows[0]!.id;
}
