import { context, isSpanContextValid, propagation, trace, type Context, type Span } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';

let started = false;

/**
 * Sets up OpenTelemetry once per process: W3C trace context, async context propagation, and a
 * tracer provider. Spans are created and their context travels in gRPC metadata and NATS headers;
 * exporting them is a deployment concern (an OTLP exporter can be registered on the provider).
 */
export function startTracing(serviceName: string): void {
  if (started) return;
  started = true;
  const manager = new AsyncLocalStorageContextManager();
  manager.enable();
  context.setGlobalContextManager(manager);
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(new BasicTracerProvider());
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

/** Starts a span (child of `parent`) without entering it; the caller enters it with `context.with`. */
export function startSpan(name: string, parent: Context): { span: Span; ctx: Context } {
  const span = tracer().startSpan(name, undefined, parent);
  return { span, ctx: trace.setSpan(parent, span) };
}

/** Runs `fn` with `ctx` as the active context (callbacks too: hooks call `done` inside it). */
export const withContext = <T>(ctx: Context, fn: () => T): T => context.with(ctx, fn);
export type { Context as TraceContext };
