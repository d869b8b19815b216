import { AsyncLocalStorage } from 'node:async_hooks';
import crypto from 'node:crypto';
import * as grpc from '@grpc/grpc-js';
import {
  create,
  fromBinary,
  toBinary,
  type DescMessage,
  type DescMethod,
  type DescService,
  type MessageInitShape,
  type MessageShape,
} from '@bufbuild/protobuf';
import type { GenService, GenServiceMethods } from '@bufbuild/protobuf/codegenv2';
import { context, createContextKey } from '@opentelemetry/api';
import type { Logger } from 'pino';
import { DomainError, ErrorCode, isDomainError } from './errors.js';
import type { Metrics } from './metrics.js';
import { extractTrace, injectTrace, inSpan, tracingStarted, withContext, type TraceContext } from './tracing.js';

// ---------------------------------------------------------------------------------------------
// Error mapping, once, both ways.

const toStatus: Record<ErrorCode, grpc.status> = {
  INVALID_ARGUMENT: grpc.status.INVALID_ARGUMENT,
  UNAUTHENTICATED: grpc.status.UNAUTHENTICATED,
  PERMISSION_DENIED: grpc.status.PERMISSION_DENIED,
  NOT_FOUND: grpc.status.NOT_FOUND,
  ALREADY_EXISTS: grpc.status.ALREADY_EXISTS,
  FAILED_PRECONDITION: grpc.status.FAILED_PRECONDITION,
  RESOURCE_EXHAUSTED: grpc.status.RESOURCE_EXHAUSTED,
  // gRPC has no "too large"; OUT_OF_RANGE plus the reason keeps it distinguishable.
  PAYLOAD_TOO_LARGE: grpc.status.OUT_OF_RANGE,
  UNAVAILABLE: grpc.status.UNAVAILABLE,
  DEADLINE_EXCEEDED: grpc.status.DEADLINE_EXCEEDED,
  INTERNAL: grpc.status.INTERNAL,
};
const REASON_KEY = 'x-error-reason';
const CODE_KEY = 'x-error-code';

/** The inverse of toStatus: one ErrorCode per gRPC status; a status no code maps to is INTERNAL. */
const fromStatusMap = new Map((Object.entries(toStatus) as Array<[ErrorCode, grpc.status]>).map(([code, status]) => [status, code]));

export function fromStatus(code: grpc.status): ErrorCode {
  return fromStatusMap.get(code) ?? ErrorCode.INTERNAL;
}

/**
 * An error as it may be logged: database drivers put a failed statement's parameters (e-mail
 * addresses, tokens) on the error and in its message; only the statement and the cause stay.
 */
export function loggableError(e: unknown): { type: string; message: string; stack?: string; code?: string; cause?: string } {
  if (!(e instanceof Error)) return { type: typeof e, message: String(e) };
  const code = (e as { code?: unknown }).code;
  const cause = e.cause instanceof Error ? e.cause.message : undefined;
  return {
    type: e.name,
    message: e.message.replace(/\n?params:[\s\S]*$/, ''),
    stack: e.stack?.replace(/\n?params:[\s\S]*?(?=\n\s+at |$)/, ''),
    ...(typeof code === 'string' ? { code } : {}),
    ...(cause ? { cause } : {}),
  };
}

function toServiceError(e: unknown, log: Logger, method: string): Partial<grpc.StatusObject> {
  const metadata = new grpc.Metadata();
  if (isDomainError(e)) {
    metadata.set(CODE_KEY, e.code);
    if (e.reason) metadata.set(REASON_KEY, e.reason);
    return { code: toStatus[e.code], details: e.message, metadata };
  }
  // A bug or an outage: log it here, never show its text to the caller.
  log.error({ err: loggableError(e), method }, 'unhandled error in gRPC handler');
  return { code: grpc.status.INTERNAL, details: 'internal error', metadata };
}

/** Turns a grpc-js error from a call into a DomainError carrying the same code and reason. */
export function toDomainError(e: unknown): DomainError {
  if (isDomainError(e)) return e;
  const se = e as Partial<grpc.ServiceError>;
  if (typeof se.code === 'number') {
    const declared = se.metadata?.get(CODE_KEY)[0];
    const reason = se.metadata?.get(REASON_KEY)[0];
    const code = typeof declared === 'string' && declared in toStatus ? (declared as ErrorCode) : fromStatus(se.code);
    return new DomainError(code, se.details || se.message || 'call failed', typeof reason === 'string' ? reason : undefined);
  }
  return new DomainError(ErrorCode.INTERNAL, e instanceof Error ? e.message : String(e));
}

// ---------------------------------------------------------------------------------------------
// Serving.

/** The context a handler gets: metadata, deadline awareness and a logger bound to the call. */
export interface CallContext {
  metadata: grpc.Metadata;
  log: Logger;
  signal: AbortSignal;
  /** When the caller stops waiting (ms since the epoch; Infinity without a deadline). */
  deadline: number;
}

/**
 * The deadline of the work in progress (an incoming gRPC call, or a gateway request): outgoing
 * calls made inside it never get more time than it has left, so a service does not work on
 * answers nobody waits for. Once tracing is started it is a value of the active trace context
 * (one async-context store for both: every async resource the process creates is given the
 * stores' values, and a request enters one context, not two); before, in a store of its own.
 */
const DEADLINE = createContextKey('reelsmith.deadline');
const inheritedDeadline = new AsyncLocalStorage<number>();

/** The deadline the current work inherited, if any. */
export const currentDeadline = (): number | undefined =>
  tracingStarted() ? (context.active().getValue(DEADLINE) as number | undefined) : inheritedDeadline.getStore();

/** Runs `fn` with `deadline` (ms since the epoch) as the latest deadline of every call it makes. */
export function withDeadline<R>(deadline: number, fn: () => R): R {
  return withContextAndDeadline(context.active(), deadline, fn);
}

/**
 * Runs `fn` in the trace context `ctx` and, if given, with `deadline` as the latest deadline of
 * every call it makes (the earlier of it and one it inherited): one context entered.
 */
export function withContextAndDeadline<R>(ctx: TraceContext, deadline: number | undefined, fn: () => R): R {
  if (deadline === undefined) return withContext(ctx, fn);
  const outer = currentDeadline();
  const latest = outer === undefined ? deadline : Math.min(outer, deadline);
  if (tracingStarted()) return withContext(ctx.setValue(DEADLINE, latest), fn);
  return withContext(ctx, () => inheritedDeadline.run(latest, fn));
}

function deadlineOf(call: { getDeadline(): grpc.Deadline }): number {
  const d = call.getDeadline();
  const ms = d instanceof Date ? d.getTime() : Number(d);
  return Number.isFinite(ms) ? ms : Infinity;
}

type UnaryImpl<M extends DescMethod> = M extends { methodKind: 'unary' }
  ? (req: MessageShape<M['input']>, ctx: CallContext) => Promise<MessageInitShape<M['output']>>
  : M extends { methodKind: 'server_streaming' }
    ? (req: MessageShape<M['input']>, send: (m: MessageInitShape<M['output']>) => void, ctx: CallContext) => Promise<void>
    : never;

/** The handlers of one service, typed from its generated descriptor. */
export type ServiceImpl<S extends DescService> = {
  [K in keyof S['method']]: S['method'][K] extends DescMethod ? UnaryImpl<S['method'][K]> : never;
};

export interface ServiceBinding {
  service: DescService;
  impl: Record<string, unknown>;
}

export function bind<T extends GenServiceMethods>(service: GenService<T>, impl: ServiceImpl<GenService<T>>): ServiceBinding {
  return { service, impl: impl as Record<string, unknown> };
}

function serializer<D extends DescMessage>(schema: D) {
  return {
    serialize: (m: MessageShape<D>) => Buffer.from(toBinary(schema, m)),
    deserialize: (b: Buffer) => fromBinary(schema, new Uint8Array(b.buffer, b.byteOffset, b.byteLength)),
  };
}

function metadataCarrier(md: grpc.Metadata): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(md.getMap())) if (typeof v === 'string') out[k] = v;
  return out;
}

export interface GrpcServerOptions {
  host: string;
  port: number;
  services: ServiceBinding[];
  log: Logger;
  metrics?: Metrics;
  serviceName: string;
  /** When set, every call but the standard health service's must carry it (see `useInternalToken`). */
  internalToken?: string;
}

/** Metadata key of the service-to-service token. */
export const INTERNAL_TOKEN_KEY = 'x-reelsmith-internal-token';
let outgoingToken: string | undefined;

/**
 * The token this process's outgoing calls carry (set once at start from INTERNAL_TOKEN). A
 * process-wide setting because every client a service dials speaks for the same service.
 */
export function useInternalToken(token: string | undefined): void {
  outgoingToken = token;
}

/** Health probes (kubelet's native gRPC probe, the gateway's roll-up) carry no token. */
const OPEN_SERVICES = new Set(['grpc.health.v1.Health']);

function tokenMatches(md: grpc.Metadata, expected: string): boolean {
  const given = md.get(INTERNAL_TOKEN_KEY)[0];
  if (typeof given !== 'string') return false;
  const a = crypto.createHash('sha256').update(given).digest();
  const b = crypto.createHash('sha256').update(expected).digest();
  return crypto.timingSafeEqual(a, b);
}

export interface RunningGrpcServer {
  server: grpc.Server;
  port: number;
  /** Stops accepting calls and waits for running ones, forcing after `timeoutMs`. */
  close(timeoutMs?: number): Promise<void>;
}

export async function serveGrpc(opts: GrpcServerOptions): Promise<RunningGrpcServer> {
  const server = new grpc.Server({ 'grpc.max_receive_message_length': 16 * 1024 * 1024 });
  for (const { service, impl } of opts.services) {
    const definition: Record<string, grpc.MethodDefinition<unknown, unknown>> = {};
    const handlers: grpc.UntypedServiceImplementation = {};
    for (const method of service.methods) {
      const fn = impl[method.localName] as ((...args: unknown[]) => Promise<unknown>) | undefined;
      if (!fn) throw new Error(`${service.typeName}.${method.name} has no implementation`);
      const inS = serializer(method.input);
      const outS = serializer(method.output);
      const streaming = method.methodKind === 'server_streaming';
      if (method.methodKind !== 'unary' && !streaming) throw new Error(`${method.methodKind} methods are not supported`);
      definition[method.name] = {
        path: `/${service.typeName}/${method.name}`,
        requestStream: false,
        responseStream: streaming,
        requestSerialize: inS.serialize as never,
        requestDeserialize: inS.deserialize,
        responseSerialize: outS.serialize as never,
        responseDeserialize: outS.deserialize,
        originalName: method.localName,
      };
      const label = { service: service.typeName, method: method.name };
      const run = async (
        call: grpc.ServerUnaryCall<unknown, unknown> | grpc.ServerWritableStream<unknown, unknown>,
        body: (ctx: CallContext) => Promise<void>,
      ) => {
        const started = process.hrtime.bigint();
        const controller = new AbortController();
        if (call.cancelled) controller.abort();
        call.on('cancelled', () => controller.abort());
        const parent = extractTrace(metadataCarrier(call.metadata));
        const deadline = deadlineOf(call);
        const ctx: CallContext = {
          metadata: call.metadata,
          signal: controller.signal,
          deadline,
          log: opts.log.child({ rpc: method.name, request_id: call.metadata.get('x-request-id')[0] }),
        };
        let code = 'OK';
        try {
          if (opts.internalToken && !OPEN_SERVICES.has(service.typeName) && !tokenMatches(call.metadata, opts.internalToken))
            throw new DomainError(ErrorCode.UNAUTHENTICATED, 'internal calls need the service token', 'internal_token');
          // A caller that has gone (cancelled, or its deadline passed while the call waited in a
          // busy process) gets no work done: the handler, and its database, are not reached.
          if (controller.signal.aborted || Date.now() >= deadline) {
            opts.metrics?.grpcServerSkipped?.inc({ ...label });
            throw new DomainError(ErrorCode.DEADLINE_EXCEEDED, 'the caller stopped waiting before the call started', 'caller_gone');
          }
          // The caller's trace, with the call's deadline, is the span's parent (the deadline is a
          // value of the trace context once tracing runs: a span made from `parent` alone would drop it).
          await withContextAndDeadline(parent, deadline, () =>
            inSpan(`${service.typeName}/${method.name}`, context.active(), () => body(ctx)),
          );
        } catch (e) {
          const err = toServiceError(e, ctx.log, method.name);
          code = grpc.status[err.code ?? grpc.status.UNKNOWN] ?? 'UNKNOWN';
          throw err;
        } finally {
          opts.metrics?.grpcServerSeconds.observe({ ...label, code }, Number(process.hrtime.bigint() - started) / 1e9);
        }
      };
      handlers[method.name] = streaming
        ? (call: grpc.ServerWritableStream<unknown, unknown>) => {
            run(call, async (ctx) => {
              await fn.call(
                impl,
                create(method.input, call.request as never),
                (m: unknown) => call.write(create(method.output, m as never)),
                ctx,
              );
            }).then(
              () => call.end(),
              (err: Partial<grpc.StatusObject>) => call.destroy(Object.assign(new Error(err.details), err)),
            );
          }
        : (call: grpc.ServerUnaryCall<unknown, unknown>, callback: grpc.sendUnaryData<unknown>) => {
            let reply: unknown;
            run(call, async (ctx) => {
              reply = create(method.output, (await fn.call(impl, call.request, ctx)) as never);
            }).then(
              () => callback(null, reply),
              (err: Partial<grpc.StatusObject>) => callback(err),
            );
          };
    }
    server.addService(definition as grpc.ServiceDefinition, handlers);
  }
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(`${opts.host}:${opts.port}`, grpc.ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))),
  );
  return {
    server,
    port,
    close: (timeoutMs = 10_000) =>
      new Promise<void>((resolve) => {
        const force = setTimeout(() => {
          server.forceShutdown();
          resolve();
        }, timeoutMs);
        force.unref();
        server.tryShutdown(() => {
          clearTimeout(force);
          resolve();
        });
      }),
  };
}

// ---------------------------------------------------------------------------------------------
// Dialing.

export interface CallOptions {
  /** Overrides the client's default deadline for this call. */
  deadlineMs?: number;
  /** A latest deadline (ms since the epoch), e.g. what the caller's own request has left. */
  deadline?: number;
  requestId?: string;
  metadata?: Record<string, string>;
}

type ClientMethod<M extends DescMethod> = M extends { methodKind: 'unary' }
  ? (req: MessageInitShape<M['input']>, opts?: CallOptions) => Promise<MessageShape<M['output']>>
  : M extends { methodKind: 'server_streaming' }
    ? (req: MessageInitShape<M['input']>, opts?: CallOptions) => AsyncIterable<MessageShape<M['output']>>
    : never;

export type Client<S extends DescService> = {
  [K in keyof S['method']]: S['method'][K] extends DescMethod ? ClientMethod<S['method'][K]> : never;
} & {
  close(): void;
};

export interface DialOptions {
  /** Default deadline for every call; no call goes out without one. */
  deadlineMs: number;
  metrics?: Metrics;
}

/** A typed client for `service` at `address`; every call carries a deadline and the trace context. */
export function dial<T extends GenServiceMethods>(service: GenService<T>, address: string, opts: DialOptions): Client<GenService<T>> {
  const raw = new grpc.Client(address, grpc.credentials.createInsecure(), {
    'grpc.keepalive_time_ms': 30_000,
    'grpc.service_config': JSON.stringify({ loadBalancingConfig: [{ round_robin: {} }] }),
  });
  const out: Record<string, unknown> = { close: () => raw.close() };
  for (const method of service.methods) {
    const inS = serializer(method.input);
    const outS = serializer(method.output);
    const path = `/${service.typeName}/${method.name}`;
    const prepare = (o?: CallOptions) => {
      const md = new grpc.Metadata();
      for (const [k, v] of Object.entries(injectTrace({}, context.active()))) md.set(k, v);
      if (o?.requestId) md.set('x-request-id', o.requestId);
      if (outgoingToken) md.set(INTERNAL_TOKEN_KEY, outgoingToken);
      for (const [k, v] of Object.entries(o?.metadata ?? {})) md.set(k, v);
      // Never longer than the work this call is part of has left (an incoming call, a request).
      const deadline = Math.min(Date.now() + (o?.deadlineMs ?? opts.deadlineMs), o?.deadline ?? Infinity, currentDeadline() ?? Infinity);
      return { md, options: { deadline } };
    };
    if (method.methodKind === 'unary') {
      out[method.localName] = (req: unknown, o?: CallOptions) => {
        const { md, options } = prepare(o);
        const started = process.hrtime.bigint();
        return new Promise((resolve, reject) => {
          raw.makeUnaryRequest(
            path,
            inS.serialize as never,
            outS.deserialize,
            create(method.input, req as never),
            md,
            options,
            (err, value) => {
              opts.metrics?.grpcClientSeconds.observe(
                { service: service.typeName, method: method.name, code: err ? (grpc.status[err.code] ?? 'UNKNOWN') : 'OK' },
                Number(process.hrtime.bigint() - started) / 1e9,
              );
              if (err) reject(toDomainError(err));
              else resolve(value);
            },
          );
        });
      };
      // The streaming call takes the same arguments as the unary one above: grpc-js has a method per kind.
    } else if (method.methodKind === 'server_streaming') {
      out[method.localName] = (req: unknown, o?: CallOptions) => {
        const { md, options } = prepare(o);
        const stream = raw.makeServerStreamRequest(
          path,
          inS.serialize as never,
          outS.deserialize,
          create(method.input, req as never),
          md,
          options,
        );
        return (async function* () {
          try {
            for await (const m of stream) yield m;
          } catch (e) {
            throw toDomainError(e);
          }
        })();
      };
    }
  }
  return out as Client<GenService<T>>;
}
