import type { FastifyBaseLogger } from 'fastify';
import type { Logger } from '@reelsmith/kit';

type Bindings = Parameters<Logger['child']>[0];
type ChildLoggerOptions = Parameters<Logger['child']>[1];
type LevelWithSilentOrString = Logger['level'];

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';

/**
 * A request's logger, made when the request first writes a line. Fastify makes one for every
 * request (its request id bound), and the auth hook binds the user id; most requests never log, and
 * a pino child (its bindings serialised, set again when the user is bound) was a few per cent of a
 * poll's CPU. The lines are pino's own, from the child made on the first line (request id, user id
 * and whatever else was bound), in the context of that line (its trace id).
 */
export class RequestLogger {
  private made: Logger | undefined;
  private extra: Bindings | undefined;

  constructor(
    private readonly parent: Logger,
    private readonly own: Bindings,
  ) {}

  /** The pino child, made now if no line was written yet. */
  private logger(): Logger {
    return (this.made ??= this.parent.child(this.extra ? { ...this.own, ...this.extra } : this.own));
  }

  private write(level: Level, args: unknown[]): void {
    if (!this.parent.isLevelEnabled(level)) return;
    const l = this.logger();
    (l[level] as (...a: unknown[]) => void).apply(l, args);
  }

  fatal(...args: unknown[]): void {
    this.write('fatal', args);
  }
  error(...args: unknown[]): void {
    this.write('error', args);
  }
  warn(...args: unknown[]): void {
    this.write('warn', args);
  }
  info(...args: unknown[]): void {
    this.write('info', args);
  }
  debug(...args: unknown[]): void {
    this.write('debug', args);
  }
  trace(...args: unknown[]): void {
    this.write('trace', args);
  }
  silent(): void {}

  get level(): LevelWithSilentOrString {
    return this.made?.level ?? this.parent.level;
  }
  set level(level: LevelWithSilentOrString) {
    this.logger().level = level;
  }

  isLevelEnabled(level: LevelWithSilentOrString): boolean {
    return this.made ? this.made.isLevelEnabled(level) : this.parent.isLevelEnabled(level);
  }

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.logger().child(bindings, options) as FastifyBaseLogger;
  }

  /** More fields on every line of this request (pino's setBindings). */
  setBindings(bindings: Bindings): void {
    if (this.made) this.made.setBindings(bindings);
    else this.extra = this.extra ? { ...this.extra, ...bindings } : bindings;
  }

  bindings(): Bindings {
    return this.logger().bindings();
  }
}
