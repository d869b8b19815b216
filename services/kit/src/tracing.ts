import { context, propagation, trace, type Context, type Span } from '@opentelemetry/api';
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

export function currentTraceId(): string | undefined {
  return trace.getSpan(context.active())?.spanContext().traceId;
}
