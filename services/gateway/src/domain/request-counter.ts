import { REQUEST_LATENCY_BUCKETS_MS, latencyBucket, statusClass } from '@reelsmith/proto';

export interface MinuteCounts {
  minuteMs: number;
  routes: { method: string; route: string; statusClass: string; count: number }[];
  latencyBuckets: number[];
}

/**
 * Counts this replica's answers per minute by route template and status class, plus a latency
 * histogram, so the 24-hour totals cost one message per replica and minute, not one per request.
 */
export class RequestCounter {
  private readonly minutes = new Map<number, { routes: Map<string, number>; buckets: number[] }>();

  constructor(private readonly clock: () => number = Date.now) {}

  count(method: string, route: string, statusCode: number, elapsedMs: number): void {
    const minuteMs = Math.floor(this.clock() / 60_000) * 60_000;
    let m = this.minutes.get(minuteMs);
    if (!m)
      this.minutes.set(minuteMs, (m = { routes: new Map(), buckets: new Array<number>(REQUEST_LATENCY_BUCKETS_MS.length + 1).fill(0) }));
    const key = `${method} ${statusClass(statusCode)} ${route}`;
    m.routes.set(key, (m.routes.get(key) ?? 0) + 1);
    m.buckets[latencyBucket(elapsedMs)]! += 1;
  }

  /** Takes the finished minutes (all of them with `all`, e.g. at shutdown), oldest first. */
  take(all = false): MinuteCounts[] {
    const current = Math.floor(this.clock() / 60_000) * 60_000;
    const out: MinuteCounts[] = [];
    for (const [minuteMs, m] of [...this.minutes].sort(([a], [b]) => a - b)) {
      if (!all && minuteMs >= current) continue;
      this.minutes.delete(minuteMs);
      out.push({
        minuteMs,
        routes: [...m.routes].map(([key, count]) => {
          const [method, cls, ...route] = key.split(' ');
          return { method: method!, statusClass: cls!, route: route.join(' '), count };
        }),
        latencyBuckets: m.buckets,
      });
    }
    return out;
  }

  /** Puts back minutes that could not be sent (merged with anything counted since). */
  giveBack(batches: MinuteCounts[]): void {
    for (const b of batches) {
      let m = this.minutes.get(b.minuteMs);
      if (!m)
        this.minutes.set(
          b.minuteMs,
          (m = { routes: new Map(), buckets: new Array<number>(REQUEST_LATENCY_BUCKETS_MS.length + 1).fill(0) }),
        );
      for (const r of b.routes) {
        const key = `${r.method} ${r.statusClass} ${r.route}`;
        m.routes.set(key, (m.routes.get(key) ?? 0) + r.count);
      }
      b.latencyBuckets.forEach((c, i) => (m.buckets[i]! += c));
    }
  }
}
