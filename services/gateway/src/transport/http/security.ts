import type { IncomingMessage, ServerResponse } from 'node:http';
import rateLimit, { type RateLimitOptions } from '@fastify/rate-limit';
import { DomainError, ErrorCode } from '@reelsmith/kit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import helmet, { type HelmetOptions } from 'helmet';

/** Third-party origins the web app needs, and the pages that need them. */
export const THIRD_PARTY = {
  /** Stripe.js and its frames (payment dialog, 3-D Secure). */
  stripe: {
    script: ['https://js.stripe.com'],
    frame: ['https://js.stripe.com', 'https://hooks.stripe.com'],
    connect: ['https://api.stripe.com'],
  },
  /** PayPal's buttons (payment dialog). */
  paypal: { script: ['https://www.paypal.com'], frame: ['https://www.paypal.com'], connect: ['https://www.paypal.com'] },
  /** The demo gallery's and hall of fame's player: YouTube's privacy-enhanced embed and its thumbnails. */
  video: { frame: ['https://www.youtube-nocookie.com'], img: ['https://i.ytimg.com'] },
};

export interface SecurityOptions {
  publicUrl: string;
  /** Origins download links and thumbnails are served from besides the gateway (S3, PUBLIC_URL). */
  contentOrigins?: string[];
}

/** The helmet options of every response (see securityPlugin). */
export function helmetOptions(opts: SecurityOptions): HelmetOptions {
  const https = new URL(opts.publicUrl).protocol === 'https:';
  const content = [...new Set([new URL(opts.publicUrl).origin, ...(opts.contentOrigins ?? [])])];
  const { stripe, paypal, video } = THIRD_PARTY;
  return {
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'", ...stripe.script, ...paypal.script],
        // React sets style attributes through the DOM, which CSP does not restrict; no inline <style>.
        styleSrc: ["'self'"],
        imgSrc: ["'self'", 'data:', 'blob:', ...content, ...video.img],
        mediaSrc: ["'self'", 'blob:', ...content],
        fontSrc: ["'self'", 'data:'],
        connectSrc: ["'self'", ...stripe.connect, ...paypal.connect],
        frameSrc: [...stripe.frame, ...paypal.frame, ...video.frame],
        workerSrc: ["'self'", 'blob:'],
        objectSrc: ["'none'"],
        baseUri: ["'self'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
        ...(https ? { upgradeInsecureRequests: [] } : {}),
      },
    },
    // Popups of the payment providers must be able to talk back to the page.
    crossOriginOpenerPolicy: { policy: 'same-origin-allow-popups' },
    crossOriginEmbedderPolicy: false,
    crossOriginResourcePolicy: { policy: 'same-site' },
    referrerPolicy: { policy: 'strict-origin-when-cross-origin' },
    strictTransportSecurity: https ? { maxAge: 31_536_000, includeSubDomains: true } : false,
    xFrameOptions: { action: 'deny' },
  };
}

/**
 * The headers helmet sets with these options, computed once: none of our directives depends on the
 * request (no nonces), so every response gets the same set. (@fastify/helmet rebuilt helmet and
 * re-parsed the whole policy on every request, about a fifth of the gateway's time per request.)
 */
export function securityHeaders(opts: SecurityOptions): Record<string, string> {
  const headers: Record<string, string> = {};
  const res = {
    setHeader: (name: string, value: string | number) => (headers[name.toLowerCase()] = String(value)),
    removeHeader: (name: string) => delete headers[name.toLowerCase()],
  };
  helmet(helmetOptions(opts))({ headers: {} } as IncomingMessage, res as unknown as ServerResponse, (e?: unknown) => {
    if (e) throw e;
  });
  return headers;
}

/**
 * The security headers of an answer that is never rendered as a document: the API's JSON (OWASP's
 * REST Security Cheat Sheet, "Security Headers"). A policy that allows nothing (`default-src
 * 'none'`) and may be framed by no one, nosniff, X-Frame-Options for older browsers, the same
 * Cross-Origin-Resource-Policy and Referrer-Policy as the pages, and HSTS when PUBLIC_URL is https.
 * The page's directives (script, style and frame origins), COOP, Origin-Agent-Cluster, DNS
 * prefetch and the older document-only headers say how a document behaves, which JSON never is; on
 * the status route every client polls they were 0.6 KB of each answer's 1.2 KB of headers.
 */
export function apiSecurityHeaders(opts: SecurityOptions): Record<string, string> {
  const page = securityHeaders(opts);
  const headers: Record<string, string> = {
    'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
    'cross-origin-resource-policy': page['cross-origin-resource-policy']!,
    'referrer-policy': page['referrer-policy']!,
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
  };
  if (page['strict-transport-security']) headers['strict-transport-security'] = page['strict-transport-security'];
  return headers;
}

/** The API's own answers, JSON (the interactive documentation under /api/v1/docs is a page). */
const API = '/api/';
const API_DOCS = '/api/v1/docs';
export const isApiUrl = (url: string) => url.startsWith(API) && !url.startsWith(API_DOCS);

/** True when an answer's Content-Type is JSON (or none: an empty answer such as a 304 or 204). */
const isJsonOrEmpty = (type: unknown) =>
  type === undefined || (typeof type === 'string' && (type.startsWith('application/json') || type.startsWith('application/problem+json')));

export interface SecurityHeaderHooks {
  /** The first onRequest step: the API's set on /api/ URLs, the page's set on every other. */
  onRequest(req: FastifyRequest, reply: FastifyReply): void;
  /**
   * A step of the onSend hook: an API route that answers something other than JSON (a file, a
   * stream of media, an HTML error page) gets the page's headers too.
   */
  onSend(req: FastifyRequest, reply: FastifyReply): void;
}

/**
 * Security headers on every response (helmet's, computed once at start-up). Pages, assets and files
 * get the page's set: a strict Content-Security-Policy (no inline scripts; Stripe, PayPal and the
 * video player's origins only in the directives they need), COOP, nosniff, frame-ancestors 'none',
 * Referrer-Policy strict-origin-when-cross-origin, and HSTS when PUBLIC_URL is https. The web app
 * is one document whose pages change without a reload, so the payment and player origins are in the
 * one policy, limited to script/frame/connect/img. JSON answers of the API get apiSecurityHeaders.
 * Set in an onRequest hook, so errors, 404s, static files and HEAD answers carry them too.
 */
export function securityHeaderHooks(opts: SecurityOptions): SecurityHeaderHooks {
  const page = Object.entries(securityHeaders(opts));
  const api = Object.entries(apiSecurityHeaders(opts));
  const apiNames = new Set(api.map(([name]) => name));
  // What an API answer that is not JSON adds: the page's headers, the API's value where both set one.
  const pageOnly = page.filter(([name]) => !apiNames.has(name));
  const pagePolicy = page.find(([name]) => name === 'content-security-policy')!;
  const set = (reply: FastifyReply, headers: [string, string][]) => {
    for (let i = 0; i < headers.length; i++) void reply.header(headers[i]![0], headers[i]![1]);
  };
  return {
    onRequest: (req, reply) => set(reply, isApiUrl(req.url) ? api : page),
    onSend: (req, reply) => {
      if (!isApiUrl(req.url) || isJsonOrEmpty(reply.getHeader('content-type'))) return;
      set(reply, pageOnly);
      void reply.header(pagePolicy[0], pagePolicy[1]);
    },
  };
}

/**
 * The security headers' onRequest hook (see securityHeaderHooks). The app that registers it calls
 * `hooks.onSend` from its onSend hook (one onSend hook for every answer).
 */
export const securityPlugin = fp<SecurityOptions & { hooks: SecurityHeaderHooks }>(async (app: FastifyInstance, opts) => {
  const { hooks } = opts;
  app.addHook('onRequest', (req, reply, done) => {
    hooks.onRequest(req, reply);
    done();
  });
});

/** Who a rate limit counts: the signed-in user, otherwise the client's address. */
export const rateLimitKey = (req: FastifyRequest) => (req.caller ? `user:${req.caller.id}` : `ip:${req.ip}`);

export const rateLimitedError = (retryAfterSeconds: number) =>
  new DomainError(
    ErrorCode.RESOURCE_EXHAUSTED,
    `Too many requests. Please wait ${retryAfterSeconds} second${retryAfterSeconds === 1 ? '' : 's'} and try again.`,
    'rate_limited',
  );

/**
 * Named limits for write routes that cost work. A route opts in with
 * `config: { rateLimit: RATE_LIMITS.jobs }` (or its own `{ max, timeWindow }`); a 429 carries
 * Retry-After and `{ detail: 'Too many requests. Please wait N seconds and try again.', code: 'rate_limited' }`.
 */
export const RATE_LIMITS = {
  /** POST /uploads/file */
  uploads: { max: 60, timeWindow: 60_000 },
  /** POST /jobs/assemble */
  jobs: { max: 10, timeWindow: 60_000 },
  /** POST /jobs/plan (previews and re-rolls: cheap, clicked often) and POST /jobs/{id}/cancel. */
  plans: { max: 120, timeWindow: 60_000 },
  /** Payments: creating intents, captures, subscriptions. */
  payments: { max: 10, timeWindow: 60_000 },
  /** Marketplace offers. */
  offers: { max: 20, timeWindow: 60_000 },
  /** The contact form. */
  contact: { max: 5, timeWindow: 10 * 60_000 },
  /** Password reset requests (identity also limits them per account). */
  passwordReset: { max: 5, timeWindow: 15 * 60_000 },
} as const satisfies Record<string, RateLimitOptions>;

export interface RateLimitPluginOptions {
  /** Called on each 429 with the route template (metrics). */
  onLimited?: (route: string) => void;
  /**
   * An ioredis-like client (see repositories/redis.ts): counts shared by every gateway replica.
   * Without it, each process counts on its own. When Redis does not answer, requests pass.
   */
  redis?: unknown;
}

/**
 * @fastify/rate-limit for the routes that opt in (never global). It runs after the caller is
 * known (preHandler), keyed by user or address; counts are kept in Redis when configured
 * (RATE_LIMIT_REDIS_URL, shared across replicas), otherwise in this process.
 */
export const rateLimitPlugin = fp<RateLimitPluginOptions>(async (app: FastifyInstance, opts) => {
  await app.register(rateLimit, {
    global: false,
    hook: 'preHandler',
    ...(opts.redis ? { redis: opts.redis as never, nameSpace: 'reelsmith-rl-', skipOnError: true } : {}),
    keyGenerator: rateLimitKey,
    addHeadersOnExceeding: { 'x-ratelimit-limit': true, 'x-ratelimit-remaining': true, 'x-ratelimit-reset': true },
    addHeaders: { 'x-ratelimit-limit': true, 'x-ratelimit-remaining': true, 'x-ratelimit-reset': true, 'retry-after': true },
    errorResponseBuilder: (req, ctx) => {
      opts.onLimited?.(req.routeOptions.url ?? 'unmatched');
      return rateLimitedError(Math.max(1, Math.ceil(ctx.ttl / 1000)));
    },
  });
});
