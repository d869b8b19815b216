import type { IncomingMessage, ServerResponse } from 'node:http';
import rateLimit, { type RateLimitOptions } from '@fastify/rate-limit';
import { DomainError, ErrorCode } from '@reelsmith/kit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
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
 * Security headers on every response (helmet): a strict Content-Security-Policy (no inline
 * scripts; Stripe, PayPal and the video player's origins only in the directives they need),
 * nosniff, frame-ancestors 'none', Referrer-Policy strict-origin-when-cross-origin, and HSTS when
 * PUBLIC_URL is https. The web app is one document whose pages change without a reload, so the
 * payment and player origins are in the one policy, limited to script/frame/connect/img. Set in the
 * first onRequest hook, so errors, 404s, static files and HEAD answers carry them too.
 */
export const securityPlugin = fp<SecurityOptions>(async (app: FastifyInstance, opts) => {
  const headers = Object.entries(securityHeaders(opts));
  app.addHook('onRequest', (_req, reply, done) => {
    for (let i = 0; i < headers.length; i++) void reply.header(headers[i]![0], headers[i]![1]);
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
