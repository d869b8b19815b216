import type { Database } from '@reelsmith/kit';
import type { DemoCache, DemoVideo } from '../domain/demos.service.js';

/** The YouTube answer kept in the gateway's database: one copy for every gateway replica. */
export class DbDemoCache implements DemoCache {
  constructor(private readonly db: Database) {}

  async get(key: string) {
    const rows = await this.db.query<{ body: DemoVideo[]; fetched_at: Date | string }>(
      'select body, fetched_at from demo_cache where key = $1',
      [key],
    );
    const r = rows[0];
    return r ? { videos: r.body, fetchedAt: new Date(r.fetched_at) } : null;
  }

  async put(key: string, videos: DemoVideo[], fetchedAt: Date) {
    await this.db.query(
      `insert into demo_cache (key, body, fetched_at) values ($1, $2::jsonb, $3)
       on conflict (key) do update set body = excluded.body, fetched_at = excluded.fetched_at`,
      [key, JSON.stringify(videos), fetchedAt.toISOString()],
    );
  }
}
