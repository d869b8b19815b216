import fs from 'node:fs';
import path from 'node:path';
import { create, toBinary, type DescMessage, type MessageInitShape } from '@bufbuild/protobuf';
import { subjects, type Subject, type SubjectSchema } from '@reelsmith/proto';
import { sql } from 'drizzle-orm';
import { bigserial, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import type { Logger } from 'pino';
import type { Bus } from './bus.js';
import type { Migration } from './db.js';
import type { Orm } from './db.js';

/**
 * Transactional outbox: an event is written in the same transaction as the change it reports, and
 * a relay publishes it afterwards with its message id (so a re-publish after a crash is dropped
 * by JetStream). A fact is never lost between commit and publish, and never published for a
 * change that rolled back. A service that uses it says `outbox: true` in its ServiceSpec, and the
 * kit's migration (services/kit/migrations/outbox.sql, `outboxMigration()`) creates the table.
 */
export const outboxTable = pgTable('outbox', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  subject: text('subject').notNull(),
  msgId: text('msg_id').notNull().unique(),
  payload: text('payload').notNull(),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  publishedAt: timestamp('published_at', { withTimezone: true }),
});

/** The outbox table's migration, applied before a service's own migrations when it uses the outbox. */
export function outboxMigration(): Migration {
  return { name: 'kit_outbox.sql', sql: fs.readFileSync(path.join(__dirname, '..', 'migrations', 'outbox.sql'), 'utf8') };
}

type Executor = Pick<Orm, 'insert'>;

/** Records an event inside the caller's transaction; a repeated msgId is ignored. */
export async function enqueueEvent<S extends Subject>(
  tx: Executor,
  subject: S,
  message: MessageInitShape<SubjectSchema<S>>,
  msgId: string,
): Promise<void> {
  const schema: DescMessage = subjects[subject];
  const payload = Buffer.from(toBinary(schema, create(schema, message as never))).toString('base64');
  await tx.insert(outboxTable).values({ subject, msgId, payload }).onConflictDoNothing();
}

/**
 * Publishes the outbox. The service kicks `flush()` after each transaction that recorded an event,
 * so events go out at once; the timer is only the backstop (an event whose kick was lost, e.g. to
 * a crash between commit and kick) and runs slowly, so an idle service stays idle. A failed
 * publish (NATS away) is retried sooner: after 1 s, doubling up to the backstop's interval.
 */
export class OutboxRelay {
  private timer?: NodeJS.Timeout;
  private retry?: NodeJS.Timeout;
  private retryMs = 0;
  private stopped = false;
  private again = false;
  private running?: Promise<void>;
  constructor(
    private readonly orm: Orm,
    private readonly bus: Bus,
    private readonly log: Logger,
    private readonly intervalMs = 30_000,
  ) {}

  /**
   * Publishes everything pending, oldest first; stops at the first failure and retries later. A
   * kick during a run makes the run look again before it ends (its event may have been committed
   * after the run's last read).
   */
  flush(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      try {
        do {
          this.again = false;
          await this.publishPending();
        } while (this.again);
        this.retryMs = 0;
      } catch (e) {
        this.retryMs = Math.min(this.intervalMs, this.retryMs ? 2 * this.retryMs : 1000);
        this.log.warn({ err: e, retry_in_ms: this.retryMs }, 'outbox relay failed; will retry');
        if (!this.stopped && !this.retry) {
          this.retry = setTimeout(() => {
            this.retry = undefined;
            void this.flush();
          }, this.retryMs);
          this.retry.unref();
        }
      } finally {
        this.running = undefined;
      }
    })();
    return this.running;
  }

  private async publishPending(): Promise<void> {
    for (;;) {
      const batch = await this.orm
        .select()
        .from(outboxTable)
        .where(sql`${outboxTable.publishedAt} is null`)
        .orderBy(outboxTable.id)
        .limit(100);
      if (!batch.length) return;
      for (const row of batch) {
        await this.bus.publishRaw(row.subject, Buffer.from(row.payload, 'base64'), row.msgId);
        await this.orm
          .update(outboxTable)
          .set({ publishedAt: new Date() })
          .where(sql`${outboxTable.id} = ${row.id}`);
      }
    }
  }

  start(): void {
    this.timer = setInterval(() => void this.flush(), this.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    if (this.retry) clearTimeout(this.retry);
    await this.running;
    await this.flush();
  }
}
