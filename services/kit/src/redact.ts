/** Keys whose values never reach a log line, at any depth. */
export const SECRET_KEY = /pass(word)?|secret|token|authorization|cookie|api[-_]?key|credential|signature|^sig$|session/i;
export const REDACTED = '[redacted]';

/** A copy of `value` with every secret-looking key replaced, however deeply nested. */
export function redactDeep(value: unknown, seen = new WeakSet<object>()): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (seen.has(value)) return '[circular]';
  seen.add(value);
  if (value instanceof Error) {
    return { type: value.name, message: value.message, stack: value.stack, ...(redactDeep({ ...value }, seen) as object) };
  }
  if (Buffer.isBuffer(value)) return `[${value.length} bytes]`;
  if (Array.isArray(value)) return value.map((v) => redactDeep(v, seen));
  if (value instanceof Date) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = SECRET_KEY.test(k) ? REDACTED : redactDeep(v, seen);
  return out;
}
