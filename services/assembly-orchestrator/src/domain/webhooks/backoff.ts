/**
 * When a failed delivery is tried again: 30 s after the first failure, doubling up to 3 hours
 * between tries; WEBHOOK_MAX_ATTEMPTS (20) tries span about 34 hours (at least 24, as promised).
 */
export const WEBHOOK_BACKOFF = { firstMs: 30_000, maxMs: 3 * 3600_000, maxAttempts: 20 } as const;

/** The wait after failed try number `attempt` (1-based). */
export const retryDelayMs = (attempt: number, b: { firstMs: number; maxMs: number } = WEBHOOK_BACKOFF) =>
  Math.min(b.maxMs, b.firstMs * 2 ** Math.max(0, attempt - 1));

/** From the first try to the last, when every try fails. */
export const retrySpanMs = (b: { firstMs: number; maxMs: number; maxAttempts: number } = WEBHOOK_BACKOFF) => {
  let total = 0;
  for (let a = 1; a < b.maxAttempts; a++) total += retryDelayMs(a, b);
  return total;
};
