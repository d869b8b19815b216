import crypto from 'node:crypto';
import { TraceFlags, context, isSpanContextValid, propagation, trace, type Context, type Span } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { BasicTracerProvider, type SpanProcessor } from '@opentelemetry/sdk-trace-base';

let started = false;
/** Whether startTracing ran: the trace context then travels with async work (the async-context manager). */
export const tracingStarted = () => started;
/** Whether spans go anywhere (a span processor, e.g. an OTLP exporter, was given to startTracing). */
let recording = false;

/**
 * Sets up OpenTelemetry once per process: W3C trace context, async context propagation, and a
 * tracer provider. Spans are created and their context travels in gRPC metadata and NATS headers;
 * exporting them is a deployment concern (an OTLP exporter can be registered on the provider).
 */
export function startTracing(serviceName: string, spanProcessors: SpanProcessor[] = []): void {
  if (started) return;
  started = true;
  recording = spanProcessors.length > 0;
  const manager = new AsyncLocalStorageContextManager();
  manager.enable();
  context.setGlobalContextManager(manager);
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors }));
  tracerName = serviceName;
}

let tracerName = 'reelsmith';
export const tracer = () => trace.getTracer(tracerName);

/** Writes the active trace context into a string map (gRPC metadata, NATS headers). */
export function injectTrace(carrier: Record<string, string>, ctx: Context = context.active()): Record<string, string> {
  propagation.inject(ctx, carrier);
  return carrier;
}

/** Reads a trace context written by injectTrace. */
export function extractTrace(carrier: Record<string, string | undefined>): Context {
  // The W3C propagator (set by startTracing) reads nothing else: without a traceparent there is no
  // trace to continue.
  if (carrier.traceparent === undefined) return context.active();
  return propagation.extract(context.active(), carrier, {
    get: (c, k) => c[k],
    keys: (c) => Object.keys(c),
  });
}

/** Runs `fn` in a new span that is a child of `parent`. */
export async function inSpan<T>(name: string, parent: Context, fn: (span: Span) => Promise<T>): Promise<T> {
  const span = tracer().startSpan(name, undefined, parent);
  try {
    return await context.with(trace.setSpan(parent, span), () => fn(span));
  } finally {
    span.end();
  }
}

export function currentTraceId(ctx: Context = context.active()): string | undefined {
  const sc = trace.getSpan(ctx)?.spanContext();
  return sc && isSpanContextValid(sc) ? sc.traceId : undefined;
}

/** Random ids from a pool of random bytes (one getrandom call per few hundred spans). */
const pool = Buffer.alloc(4096);
let poolAt = pool.length;
function randomHex(bytes: number): string {
  for (;;) {
    if (poolAt + bytes > pool.length) {
      crypto.randomFillSync(pool);
      poolAt = 0;
    }
    const at = poolAt;
    poolAt += bytes;
    // An all-zero id is invalid in W3C trace context; take the next bytes instead.
    for (let i = at; i < at + bytes; i++) if (pool[i] !== 0) return pool.toString('hex', at, at + bytes);
  }
}

/**
 * Starts a span (child of `parent`) without entering it; the caller enters it with `context.with`.
 * While no span processor is registered, nothing would ever see a span's timings or attributes:
 * the span is then only its context (a new span id in the parent's trace, or a new trace), which
 * is what response headers, log lines, gRPC metadata and NATS headers carry on. That costs a
 * fraction of building a recording span, on every HTTP request of the gateway.
 */
export function startSpan(name: string, parent: Context): { span: Span; ctx: Context } {
  let span: Span;
  if (recording) span = tracer().startSpan(name, undefined, parent);
  else {
    const from = trace.getSpanContext(parent);
    const valid = from !== undefined && isSpanContextValid(from);
    span = trace.wrapSpanContext({
      traceId: valid ? from.traceId : randomHex(16),
      spanId: randomHex(8),
      // The default sampler (parent-based, else always on) decides the same way.
      traceFlags: valid ? from.traceFlags : TraceFlags.SAMPLED,
    });
  }
  return { span, ctx: trace.setSpan(parent, span) };
}

/** Runs `fn` with `ctx` as the active context (callbacks too: hooks call `done` inside it). */
export const withContext = <T>(ctx: Context, fn: () => T): T => context.with(ctx, fn);
export type { Context as TraceContext, Span as TraceSpan };
