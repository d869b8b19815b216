import crypto from 'node:crypto';
import os from 'node:os';
import type { Bus, Logger } from '@reelsmith/kit';
import type { MinuteCounts, RequestCounter } from '../domain/request-counter.js';

/**
 * Publishes each finished minute of this replica's request counts on the EVENTS stream
 * (`events.gateway.request_counts`, message id = replica + minute, so a re-send counts once).
 * A minute that cannot be sent stays counted and goes with the next flush.
 */
export class RequestCountsPublisher {
  /** One id per gateway process: replicas never share a message id. */
  readonly instance = `${os.hostname()}-${process.pid}-${crypto.randomBytes(3).toString('hex')}`;
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private seq = 0;

  constructor(
    readonly counter: RequestCounter,
    private readonly bus: Bus,
    private readonly log: Logger,
    private readonly everyMs = 10_000,
  ) {}

  count(method: string, route: string, statusCode: number, elapsedMs: number): void {
    this.counter.count(method, route, statusCode, elapsedMs);
  }

  /** Sends the finished minutes (every minute so far with `all`). */
  flush(all = false): Promise<void> {
    const run = async () => {
      const batches = this.counter.take(all);
      for (let i = 0; i < batches.length; i++) {
        try {
          await this.send(batches[i]!, all);
        } catch (e) {
          this.log.warn({ err: e }, 'request counts not published; will retry');
          this.counter.giveBack(batches.slice(i));
          return;
        }
      }
    };
    const next = (this.running ?? Promise.resolve()).then(run);
    this.running = next.finally(() => {
      if (this.running === next) this.running = undefined;
    });
    return next;
  }

  private async send(b: MinuteCounts, partial: boolean) {
    // A minute flushed early (shutdown, tests) may get more answers afterwards: its later part
    // is a separate message, so both count and neither twice.
    const id = `gateway.requests.${this.instance}.${b.minuteMs}${partial ? `.${++this.seq}` : ''}`;
    await this.bus.publish(
      'events.gateway.request_counts',
      {
        instance: this.instance,
        minuteUnixMs: BigInt(b.minuteMs),
        routes: b.routes.map((r) => ({ ...r, count: BigInt(r.count) })),
        latencyBuckets: b.latencyBuckets.map(BigInt),
      },
      { msgId: id },
    );
  }

  start(): void {
    this.timer = setInterval(() => void this.flush(), this.everyMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.flush(true);
  }
}
