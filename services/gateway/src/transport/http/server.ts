import crypto from 'node:crypto';
import http from 'node:http';
import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyReply } from 'fastify';
import {
  extractTrace,
  newObjectKey,
  startSpan,
  withContextAndDeadline,
  type Logger,
  type Metrics,
  type ObjectStore,
  type TraceContext,
  type TraceSpan,
} from '@reelsmith/kit';
import { API_PREFIX, documentRoute, transform, transformObject } from './contract.js';
import { clientErrorHandler, errorHandler, isFailureLogged } from './errors.js';
import { validatorCompiler } from './input-text.js';
import { serializerCompiler } from './serializer.js';
import { RequestLogger } from './request-log.js';
import type { UserBody } from './schemas.js';
import { jobStatusViews } from '../../domain/job-status.js';
import { LiveJobs } from '../../domain/live-jobs.js';
import { FinishedJobs, finishedJobsLimits } from '../../domain/finished-jobs.js';
import { SESSION_CACHE_DEFAULTS, SessionVerifier } from '../../domain/sessions.js';
import { ShortCache } from '../../domain/short-cache.js';
import { UploadsService } from '../../domain/uploads.service.js';
import { AccountDeletion } from '../../domain/account-deletion.js';
import { Checkout } from '../../domain/checkout.js';
import { accountDeletionPorts, checkoutPorts } from '../../repositories/account-flows.js';
import type { Peers } from '../../repositories/clients.js';
import { verifyWithIdentity } from '../../repositories/sessions.js';
import { uploadPorts } from '../../repositories/uploads.js';
import { adminRoutes } from './admin/index.js';
import { apiKeysRoutes } from './api-keys.routes.js';
import { webhooksRoutes } from './webhooks.routes.js';
import { apiKeyScheme, webhooksDocument } from './webhooks.openapi.js';
import { idempotencyPlugin } from './idempotency.js';
import type { Idempotency } from '../../domain/idempotency.js';
import { assemblyRoutes } from './assembly.routes.js';
import { authPlugin } from './auth.js';
import { authRoutes } from './auth.routes.js';
import { billingRoutes } from './billing.routes.js';
import { filesRoutes, type FilesDeps } from './files.routes.js';
import { healthRoutes, type HealthDeps } from './health.routes.js';
import { apiSecurityHeaders, rateLimitPlugin, securityHeaderHooks, securityHeaders, securityPlugin } from './security.js';
import { finishedStatusFastPath, STATUS_ROUTE } from './fast-status.js';
import { reelsRoutes } from './reels.routes.js';
import { marketplaceRoutes } from './marketplace.routes.js';
import { publicRoutes } from './public.routes.js';
import { showcaseUserRoutes } from './showcase-user.routes.js';
import type { DemosService } from '../../domain/demos.service.js';
import { showcaseOnly } from '../../repositories/demos.wiring.js';
import { mediaLibraryRoutes } from './media-library.routes.js';
import { paymentsRoutes } from './payments.routes.js';
import { serveWebApp } from './web-app.js';

export { API_PREFIX, operationId } from './contract.js';

/** No request of ours nests deeper than a few levels; 32 leaves room and stops abuse. */
export const MAX_JSON_DEPTH = 32;

/** The deepest nesting of arrays and objects in a JSON text (strings skipped), without parsing it. */
export function jsonDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92)
        i++; // backslash: skip the escaped character
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) {
      depth++;
      if (depth > max) max = depth;
    } else if (c === 125 || c === 93) depth--;
  }
  return max;
}

export interface HttpDeps {
  log: Logger;
  metrics: Metrics;
  webDist: string;
  health: HealthDeps;
  files?: FilesDeps;
  /** Typed clients of the other services; absent in tests that only need the shell. */
  peers?: Peers;
  /** Object storage for uploads and downloads. */
  store?: ObjectStore;
  /** The demo gallery and Hall of Fame source (YouTube or the showcase). */
  demos?: DemosService;
  trustProxy?: boolean;
  /** The session cache (shared with the socket); made from `peers` when absent. */
  sessions?: SessionVerifier;
  /** Status of live jobs heard from the orchestrator; an empty one when absent. */
  live?: LiveJobs;
  /** Finished jobs' status views (dropped on the bus's reel deletions); an empty one when absent. */
  finished?: FinishedJobs;
  /** Every request's gRPC calls share this budget (the deadline passed on); not for uploads. */
  requestDeadlineMs?: number;
  /** The public URL (HSTS when https, and an origin of links in the CSP); http://localhost:8080 when absent. */
  publicUrl?: string;
  /** Further origins download links and thumbnails come from (S3). */
  contentOrigins?: string[];
  /** Called on each 429 of a rate limit (metrics). */
  onRateLimited?: (route: string) => void;
  /** Tests only: every route's rate limit allows this many requests per window (races that really race). */
  rateLimitMax?: number;
  /** Rate-limit counts shared across replicas (a MiniRedis); per process when absent. */
  rateLimitRedis?: unknown;
  /** Counts every answer per minute for the dashboard (published by the app). */
  requestCounts?: { count(method: string, route: string, statusCode: number, elapsedMs: number): void };
  /** GET /auth/me's answers, briefly, per user; none cached when absent. */
  accounts?: ShortCache<UserBody>;
  /** Idempotency-Key's store (the gateway's database); keys are ignored when absent. */
  idempotency?: Idempotency;
}

/** A request's trace: its span and context, and the deadline its gRPC calls inherit. */
interface RequestTrace {
  ctx: TraceContext;
  deadline?: number;
  span: TraceSpan;
  route: string | undefined;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the first onRequest hook (null before it ran: a framework error). */
    trace: RequestTrace | null;
  }
  interface FastifyInstance {
    /**
     * A route that changed a user's credits or plan calls this, so this replica's next
     * GET /auth/me asks billing (other replicas hear billing's facts on NATS).
     */
    accountChanged(userId: string): void;
    /**
     * A route that deleted a reel calls this, so this replica's next status of its job has no
     * link (other replicas hear media-library's events.media.reel_deleted on NATS).
     */
    reelDeleted(jobId: string): void;
  }
}

/** A caller's request id is kept (bounded and safe), otherwise a new one is made. */
const requestId = (req: http.IncomingMessage): string => {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && /^[\w.-]{1,64}$/.test(given) ? given : crypto.randomUUID();
};

/** The public HTTP surface: /api/v1 routes, the signed file route and the web app. */
export async function buildHttpApp(deps: HttpDeps): Promise<FastifyInstance> {
  const security = { publicUrl: deps.publicUrl ?? 'http://localhost:8080', contentOrigins: deps.contentOrigins };
  const frameworkHeaders = securityHeaders(security);
  const securityHooks = securityHeaderHooks(security);
  const app = Fastify({
    // Errors the router meets before any route or hook (an over-long path parameter, a malformed
    // URL) answer in our error shape and never echo the URL back.
    frameworkErrors: (error, _req, res) => {
      const tooLong = (error as { code?: string }).code === 'FST_ERR_MAX_PARAM_LENGTH';
      const reply = res as FastifyReply;
      void reply
        .headers(frameworkHeaders)
        .code(tooLong ? 414 : 400)
        .send(
          tooLong ? { detail: 'The address is too long.', code: 'uri_too_long' } : { detail: 'The address is not valid.', code: 'bad_url' },
        );
    },
    // A request the HTTP parser refuses (headers or query string over 16 KB: 431; malformed: 400)
    // answers in our error shape too.
    clientErrorHandler,
    loggerInstance: deps.log.child({ component: 'http' }) as FastifyBaseLogger,
    // Our onResponse hook logs failures and records metrics; per-request info lines are noise.
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: 'request_id' }),
    routerOptions: { ignoreTrailingSlash: true },
    bodyLimit: 1024 * 1024,
    // Behind a load balancer, TRUST_PROXY lets rate limits see the client's address.
    trustProxy: deps.trustProxy ?? false,
    // A request's logger is made when it first writes a line (most never do: request-log.ts).
    // Fastify always passes an options object ({} unless a route sets a log level or serialisers).
    childLoggerFactory: (logger, bindings, opts) =>
      opts.level !== undefined || opts.serializers !== undefined
        ? logger.child(bindings, opts)
        : (new RequestLogger(logger as unknown as Logger, bindings) as unknown as FastifyBaseLogger),
    genReqId: requestId,
    // The poll of a finished job is answered before the routing when it can be (fast-status.ts);
    // every other request goes to the app. The server is made as Fastify makes it.
    serverFactory: (handler, options) => {
      // Fastify has filled in its defaults (a keep-alive of 72 s, no request timeout).
      const opts = options as unknown as { keepAliveTimeout: number; requestTimeout: number; connectionTimeout: number };
      // (Fastify binds a second address for HOST=localhost only when it makes the server; HOST is
      // 0.0.0.0 unless set.)
      const server = http.createServer((req, res) => {
        let answered = false;
        try {
          answered = fastPath?.(req, res) ?? false;
        } catch (e) {
          // Nothing in it is known to throw; if it does, the app answers (or, once headers went, the
          // connection is closed), never the process.
          deps.log.error({ err: e, url: req.url }, 'the fast status path failed');
          if (res.headersSent) return void res.destroy();
        }
        if (!answered) handler(req, res);
      });
      server.keepAliveTimeout = opts.keepAliveTimeout;
      server.requestTimeout = opts.requestTimeout;
      server.setTimeout(opts.connectionTimeout);
      return server;
    },
  });
  let fastPath: ((req: http.IncomingMessage, res: http.ServerResponse) => boolean) | undefined;
  let closing = false;
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });

  // One trace per request (continuing the caller's traceparent, if any): the gRPC calls it makes,
  // and the NATS messages those publish, carry it on to the other services. The deadline a request
  // has left is passed on to every gRPC call it makes (uploads excepted: they stream for as long as
  // the file takes).
  const budget = deps.requestDeadlineMs ?? 15_000;
  const enter = (t: RequestTrace, done: () => void) => withContextAndDeadline(t.ctx, t.deadline, done);
  // The request's trace on the request itself (a WeakMap entry per request cost the garbage
  // collector more than the property).
  app.decorateRequest('trace', null);
  app.addHook('onRequest', (req, reply, done) => {
    const route = req.routeOptions.url;
    const { span, ctx } = startSpan(`${req.method} ${route ?? 'unmatched'}`, extractTrace(req.headers as Record<string, string>));
    const multipart = req.headers['content-type']?.startsWith('multipart/');
    const t: RequestTrace = {
      ctx,
      deadline: multipart ? undefined : Date.now() + Math.max(budget, req.routeOptions.config.deadlineMs ?? 0),
      span,
      route,
    };
    req.trace = t;
    // startSpan made the span's context valid (the caller's trace, or a new one).
    void reply.header('x-request-id', req.id).header('x-trace-id', span.spanContext().traceId);
    enter(t, done);
  });
  // The body arrives on the socket's own async context: enter the request's trace and deadline again.
  // (A request without a body went on from onRequest inside them: nothing to do.)
  app.addHook('preHandler', (req, _reply, done) => {
    const t = req.trace;
    if (t && (req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] !== undefined)) enter(t, done);
    else done();
  });
  // JSON bodies: the default parser (prototype-poisoning safe), after a depth check, so a small
  // body nested thousands of levels deep is a 400 instead of a stack overflow further on.
  const parseJson = app.getDefaultJsonParser('error', 'remove');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    if (jsonDepth(body as string) > MAX_JSON_DEPTH) {
      const e = Object.assign(new Error(`Request body is nested too deeply (more than ${MAX_JSON_DEPTH} levels)`), { statusCode: 400 });
      return done(e, undefined);
    }
    parseJson(req, body as string, done);
  });
  const healthRoute = `${API_PREFIX}/health`;
  app.addHook('onResponse', (req, reply, done) => {
    const t = req.trace;
    // Route templates, never raw URLs, as labels.
    const route = (t ? t.route : req.routeOptions.url) ?? 'unmatched';
    const elapsed = reply.elapsedTime;
    deps.metrics.httpRequestSeconds.observe({ method: req.method, route, status_code: String(reply.statusCode) }, elapsed / 1000);
    // The dashboard counts what clients asked, not the liveness polls of GET /health (a start-up
    // or a load balancer's probe would otherwise show as traffic and errors).
    if (route !== healthRoute) deps.requestCounts?.count(req.method, route, reply.statusCode, elapsed);
    t?.span.end();
    // The error handler logged the 5xx it answered (with the cause); one a route sent itself is logged here.
    if (reply.statusCode >= 500 && !isFailureLogged(req))
      req.log.error({ route, status: reply.statusCode, cause: 'answered by the route without an error' }, 'request failed');
    done();
  });
  app.setErrorHandler(errorHandler);
  await app.register(securityPlugin, { ...security, hooks: securityHooks });
  if (deps.rateLimitMax !== undefined) {
    const max = deps.rateLimitMax;
    // Before the rate-limit plugin's own onRoute hook reads each route's limit.
    app.addHook('onRoute', (route) => {
      const limit = route.config?.rateLimit;
      if (limit && typeof limit === 'object') route.config = { ...route.config, rateLimit: { ...limit, max } };
    });
  }
  await app.register(rateLimitPlugin, { onLimited: deps.onRateLimited, redis: deps.rateLimitRedis });
  // One onSend hook for every answer (each hook is a step of every request):
  // - an API route's answer that is not JSON (a file, media) gets the page's security headers;
  // - an answer that carries a session token is never stored by a browser or a proxy;
  // - public reads marked cacheable (Cache-Control: public) carry an ETag; a matching If-None-Match gets 304.
  app.addHook('onSend', (req, reply, payload, done) => {
    securityHooks.onSend(req, reply);
    if (typeof payload !== 'string' || reply.statusCode >= 300) return done(null, payload);
    if (payload.includes('"session_token"')) {
      void reply.header('cache-control', 'no-store');
      void reply.header('pragma', 'no-cache');
    }
    if ((req.method !== 'GET' && req.method !== 'HEAD') || reply.statusCode !== 200) return done(null, payload);
    const cacheControl = reply.getHeader('cache-control');
    if (typeof cacheControl !== 'string' || !cacheControl.startsWith('public')) return done(null, payload);
    const etag = `W/"${crypto.createHash('sha1').update(payload).digest('base64url')}"`;
    void reply.header('etag', etag);
    if (req.headers['if-none-match'] === etag) {
      void reply.code(304);
      return done(null, '');
    }
    done(null, payload);
  });
  // Requests are validated and responses serialised with the routes' zod schemas, which are also
  // the OpenAPI document the web client's types are generated from (plain response schemas are
  // compiled to fast-json-stringify: see serializer.ts).
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  // Every API operation in the OpenAPI document gets an operationId and a tag from its path, the
  // session requirement of its access and every status it can answer, and a request schema the
  // document could not state is refused (contract.ts), before @fastify/swagger (whose own onRoute
  // hook comes later) reads the route.
  app.addHook('onRoute', documentRoute);
  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Reelsmith API', version: '1', description: 'The REST API of Reelsmith, the automatic highlight-reel editor.' },
      components: {
        securitySchemes: {
          session: { type: 'http', scheme: 'bearer', description: 'The session_token from POST /auth/login or /auth/verify-email' },
          apiKey: apiKeyScheme,
        },
      },
      webhooks: webhooksDocument(),
    },
    transform,
    transformObject,
    hideUntagged: false,
  });
  await app.register(fastifySwaggerUi, { routePrefix: `${API_PREFIX}/docs`, staticCSP: true });
  app.get(`${API_PREFIX}/openapi.json`, { schema: { hide: true } }, async () => app.swagger());

  // At the root, so the caller hook and the admin route list cover every route.
  const accounts = deps.accounts ?? new ShortCache<UserBody>(0);
  app.decorate('accountChanged', (userId: string) => accounts.invalidate(userId));
  const finished = deps.finished ?? new FinishedJobs(finishedJobsLimits(1000));
  app.decorate('reelDeleted', (jobId: string) => finished.reelDeleted(jobId));
  const sessions = deps.sessions ?? (deps.peers ? new SessionVerifier(verifyWithIdentity(deps.peers), SESSION_CACHE_DEFAULTS) : undefined);
  if (sessions) {
    await app.register(authPlugin, { sessions });
    fastPath = finishedStatusFastPath({
      sessions,
      finished,
      securityHeaders: Object.entries(apiSecurityHeaders(security)),
      requestId,
      observe: (statusCode, elapsedMs) => {
        deps.metrics.httpRequestSeconds.observe({ method: 'GET', route: STATUS_ROUTE, status_code: String(statusCode) }, elapsedMs / 1000);
        deps.requestCounts?.count('GET', STATUS_ROUTE, statusCode, elapsedMs);
      },
      open: () => !closing,
    });
  }
  await app.register(idempotencyPlugin, { idempotency: deps.idempotency });
  await app.register(
    async (api) => {
      await api.register(healthRoutes, deps.health);
      if (deps.files) await api.register(filesRoutes, deps.files);
      if (deps.peers) {
        const checkout = new Checkout(checkoutPorts(deps.peers));
        const deletion = new AccountDeletion(accountDeletionPorts(deps.peers));
        await api.register(authRoutes, { peers: deps.peers, sessions: sessions!, accounts, deletion, checkout });
        await api.register(billingRoutes, { peers: deps.peers });
        await api.register(paymentsRoutes, { peers: deps.peers, checkout });
        await api.register(adminRoutes, { peers: deps.peers, store: deps.store });
        await api.register(apiKeysRoutes, { peers: deps.peers, sessions });
        await api.register(webhooksRoutes, { peers: deps.peers });
        if (deps.store) {
          const uploads = new UploadsService(uploadPorts(deps.peers, deps.store, newObjectKey));
          const views = jobStatusViews(deps.store);
          await api.register(assemblyRoutes, {
            peers: deps.peers,
            uploads,
            views,
            live: deps.live ?? new LiveJobs(),
            finished,
            signer: deps.store,
          });
          await api.register(reelsRoutes, { peers: deps.peers, store: deps.store });
          await api.register(marketplaceRoutes, { peers: deps.peers, store: deps.store });
          await api.register(publicRoutes, { peers: deps.peers, store: deps.store, demos: deps.demos ?? showcaseOnly(deps.peers) });
          await api.register(showcaseUserRoutes, { peers: deps.peers });
          await api.register(mediaLibraryRoutes, { peers: deps.peers, store: deps.store });
        }
      }
    },
    { prefix: API_PREFIX },
  );

  // The web app: assets, robots.txt, the favicon and its pages (unknown pages: its page with 404).
  if (!(await serveWebApp(app, deps.webDist))) deps.log.warn({ web_dist: deps.webDist }, 'web app not built; only the API is served');

  app.setNotFoundHandler((_req, reply) => reply.status(404).send({ detail: 'Not found', code: 'not_found' }));
  return app;
}
