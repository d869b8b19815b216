import type { Logger } from 'pino';

/**
 * Runs periodic background work (sweepers, watchdogs): one run at a time, never overlapping, a
 * failed run logged and retried at the next tick; `stop()` waits for the run in flight.
 */
export class Interval {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly work: () => Promise<unknown>,
    private readonly everyMs: number,
    private readonly log: Logger,
  ) {}

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.tick(), this.everyMs);
    this.timer.unref();
  }

  /** Runs once now (unless a run is in flight) and resolves when it ends. */
  tick(): Promise<void> {
    if (!this.running)
      this.running = this.work()
        .then(() => undefined)
        .catch((e: unknown) => this.log.error({ err: e }, 'periodic work failed'))
        .finally(() => (this.running = undefined));
    return this.running;
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }
}
