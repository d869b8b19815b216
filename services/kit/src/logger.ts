import pino, { type DestinationStream, type Logger } from 'pino';
import { SECRET_KEY, redactDeep } from './redact.js';
import { currentTraceId } from './tracing.js';

export type { Logger };

export interface LoggerOptions {
  service: string;
  level?: string;
  /** Where lines go; stdout by default. Tests pass a stream to read them back. */
  destination?: DestinationStream;
}

/**
 * The process logger. Child loggers add request, user and job ids as fields. Secrets are removed
 * from every logged object and every child binding at any depth (pino's own `redact` only knows
 * fixed paths, so a nested `password` would slip through it).
 */
export function createLogger(opts: LoggerOptions): Logger {
  return redactChildren(
    pino(
      {
        level: opts.level ?? 'info',
        base: { service: opts.service },
        timestamp: pino.stdTimeFunctions.isoTime,
        // Every line written inside a traced request, call or message carries its trace id.
        mixin: () => {
          const traceId = currentTraceId();
          return traceId ? { trace_id: traceId } : {};
        },
        formatters: {
          level: (label) => ({ level: label }),
          bindings: (b) => redactDeep(b) as Record<string, unknown>,
          log: (o) => redactDeep(o) as Record<string, unknown>,
        },
        serializers: {
          err: (e: unknown) => redactDeep(e),
          error: (e: unknown) => redactDeep(e),
        },
      },
      opts.destination,
    ),
  );
}

/** Bindings that need no copy: flat, with primitive values and no secret-looking key (request ids, user ids). */
function plainBindings(bindings: Record<string, unknown>): boolean {
  for (const k in bindings) {
    const v = bindings[k];
    if ((v !== null && typeof v === 'object') || typeof v === 'function' || SECRET_KEY.test(k)) return false;
  }
  return true;
}

/**
 * pino's bindings formatter does not see child bindings, so child() is wrapped. The wrapper is set
 * once on the root: a child is made with Object.create(parent), so every descendant inherits it
 * (a request's child logger costs no extra wrapping).
 */
function redactChildren(logger: Logger): Logger {
  const child = logger.child;
  logger.child = function (this: Logger, bindings: Record<string, unknown>, options?: object) {
    return child.call(this, plainBindings(bindings) ? bindings : (redactDeep(bindings) as Record<string, unknown>), options as never);
  } as unknown as Logger['child'];
  return logger;
}
