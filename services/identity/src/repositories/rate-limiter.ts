import { sql } from 'drizzle-orm';
import type { Orm } from '@reelsmith/kit';
import type { RateLimiter } from '../domain/identity.service.js';
import { rateLimits } from './schema.js';

/** Fixed-window counters in the identity database, so every replica sees the same counts. */
export class DbRateLimiter implements RateLimiter {
  private lastSweep = 0;
  constructor(
    private readonly orm: Orm,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  async hit(key: string, limit: number, windowMs: number): Promise<boolean> {
    const now = this.clock().getTime();
    const windowStart = new Date(now - (now % windowMs));
    const [row] = await this.orm
      .insert(rateLimits)
      .values({ key, windowStart, count: 1 })
      .onConflictDoUpdate({ target: [rateLimits.key, rateLimits.windowStart], set: { count: sql`${rateLimits.count} + 1` } })
      .returning({ count: rateLimits.count });
    if (now - this.lastSweep > 3600_000) {
      this.lastSweep = now;
      await this.orm.delete(rateLimits).where(sql`${rateLimits.windowStart} < ${new Date(now - 24 * 3600_000)}`);
    }
    return (row?.count ?? 1) <= limit;
  }
}
