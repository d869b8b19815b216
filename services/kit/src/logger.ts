import pino, { type DestinationStream, type Logger } from 'pino';
import { redactDeep } from './redact.js';
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

/** pino's bindings formatter does not see child bindings, so every child() is wrapped. */
function redactChildren(logger: Logger): Logger {
  const child = logger.child.bind(logger);
  logger.child = ((bindings: Record<string, unknown>, options?: object) =>
    redactChildren(child(redactDeep(bindings) as Record<string, unknown>, options))) as unknown as Logger['child'];
  return logger;
}
