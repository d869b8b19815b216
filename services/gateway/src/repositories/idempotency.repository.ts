import type { Database } from '@reelsmith/kit';
import type { IdempotencyRecord, IdempotencyStore } from '../domain/idempotency.js';

/** Idempotency keys in the gateway's database (migrations 0101, 0102): one view for every gateway replica. */
export class DbIdempotencyStore implements IdempotencyStore {
  constructor(private readonly db: Database) {}

  async claim(ownerId: string, key: string, fingerprint: string, claim: string, now: Date, expiredBefore: Date, staleBefore: Date) {
    // One statement: a new key is inserted; an expired key, or one left running by a request that
    // died, is taken over; any other conflict changes nothing and returns no row.
    const rows = await this.db.query(
      `insert into idempotency_keys (owner_id, key, fingerprint, claim, created_at) values ($1, $2, $3, $7, $4)
       on conflict (owner_id, key) do update
         set fingerprint = excluded.fingerprint, claim = excluded.claim, created_at = excluded.created_at, status = null, body = null
         where idempotency_keys.created_at < $5 or (idempotency_keys.status is null and idempotency_keys.created_at < $6)
       returning 1 as taken`,
      [ownerId, key, fingerprint, now.toISOString(), expiredBefore.toISOString(), staleBefore.toISOString(), claim],
    );
    return rows.length === 1;
  }

  async read(ownerId: string, key: string): Promise<IdempotencyRecord | null> {
    const rows = await this.db.query<{ fingerprint: string; status: number | null; body: string | null; created_at: Date | string }>(
      'select fingerprint, status, body, created_at from idempotency_keys where owner_id = $1 and key = $2',
      [ownerId, key],
    );
    const r = rows[0];
    return r ? { fingerprint: r.fingerprint, status: r.status, body: r.body, createdAt: new Date(r.created_at) } : null;
  }

  async complete(ownerId: string, key: string, claim: string, status: number, body: string) {
    await this.db.query('update idempotency_keys set status = $3, body = $4 where owner_id = $1 and key = $2 and claim = $5', [
      ownerId,
      key,
      status,
      body,
      claim,
    ]);
  }

  async release(ownerId: string, key: string, claim: string) {
    await this.db.query('delete from idempotency_keys where owner_id = $1 and key = $2 and claim = $3 and status is null', [
      ownerId,
      key,
      claim,
    ]);
  }

  async sweep(before: Date) {
    const rows = await this.db.query('delete from idempotency_keys where created_at < $1 returning 1', [before.toISOString()]);
    return rows.length;
  }
}
