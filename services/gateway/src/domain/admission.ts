import { DomainError, ErrorCode } from '@reelsmith/kit';

/** The plain answer to a request the gateway sheds or cannot serve now (503 + Retry-After). */
export const OVERLOADED_DETAIL = 'Service temporarily unavailable, please retry';

export interface AdmissionLimits {
  /** Calls running at once. */
  maxInFlight: number;
  /** Calls waiting behind them; any more are shed at once. */
  maxQueue: number;
  /** A queued call gives up (shed) after waiting this long. */
  maxWaitMs: number;
}

export interface AdmissionObserver {
  shed(gate: string, why: 'queue_full' | 'waited_too_long'): void;
  depth(gate: string, inFlight: number, queued: number): void;
}

export const overloaded = () => new DomainError(ErrorCode.UNAVAILABLE, OVERLOADED_DETAIL, 'overloaded');

interface Waiter {
  start: () => void;
  timer: NodeJS.Timeout;
}

/**
 * Admission control: at most `maxInFlight` calls run, at most `maxQueue` wait in order behind
 * them, and the rest are refused at once with UNAVAILABLE ('overloaded'), so under overload a
 * caller gets a quick retryable answer instead of waiting until its deadline.
 */
export class Admission {
  private inFlight = 0;
  private readonly queue: Waiter[] = [];

  constructor(
    readonly name: string,
    private readonly limits: AdmissionLimits,
    private readonly observer?: AdmissionObserver,
  ) {}

  get depth() {
    return { inFlight: this.inFlight, queued: this.queue.length };
  }

  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.inFlight >= this.limits.maxInFlight) await this.wait();
    else this.inFlight++;
    this.report();
    try {
      return await fn();
    } finally {
      this.release();
    }
  }

  private wait(): Promise<void> {
    if (this.queue.length >= this.limits.maxQueue) {
      this.observer?.shed(this.name, 'queue_full');
      return Promise.reject(overloaded());
    }
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        start: () => {
          clearTimeout(waiter.timer);
          resolve();
        },
        timer: setTimeout(() => {
          const i = this.queue.indexOf(waiter);
          if (i >= 0) this.queue.splice(i, 1);
          this.observer?.shed(this.name, 'waited_too_long');
          this.report();
          reject(overloaded());
        }, this.limits.maxWaitMs),
      };
      this.queue.push(waiter);
      this.report();
    });
  }

  private release() {
    const next = this.queue.shift();
    if (next)
      next.start(); // the slot passes to the next in line; inFlight stays
    else this.inFlight--;
    this.report();
  }

  private report() {
    this.observer?.depth(this.name, this.inFlight, this.queue.length);
  }
}
