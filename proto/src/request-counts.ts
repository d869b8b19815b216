/**
 * Upper bounds (milliseconds) of the latency buckets in the gateway's per-minute request counts
 * (`events.gateway.request_counts`); one more bucket counts everything slower. Shared by the
 * gateway that counts and telemetry that sums, so both read the same buckets.
 */
export const REQUEST_LATENCY_BUCKETS_MS = [5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000] as const;

/** The index of the bucket an answer time falls into (the last index: slower than every bound). */
export function latencyBucket(ms: number): number {
  const i = REQUEST_LATENCY_BUCKETS_MS.findIndex((b) => ms <= b);
  return i === -1 ? REQUEST_LATENCY_BUCKETS_MS.length : i;
}

/** 2xx, 3xx, 4xx or 5xx. */
export const statusClass = (code: number) => `${Math.min(5, Math.max(1, Math.floor(code / 100)))}xx`;
