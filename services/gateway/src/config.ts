import path from 'node:path';
import { SERVICE_NAMES, baseSchema, env, grpcAddrVar, loadConfig, storageSchema, z } from '@reelsmith/kit';

const peerAddrs = Object.fromEntries(SERVICE_NAMES.filter((n) => n !== 'gateway').map((n) => [grpcAddrVar(n), env.hostPort])) as Record<
  string,
  typeof env.hostPort
>;

export const configSchema = baseSchema.extend(storageSchema.shape).extend({
  /** Public HTTP port: the API, the socket and the web app. */
  PORT: env.port.default(8080),
  HOST: z.string().default('0.0.0.0'),
  /** The built web app; served with an index.html fallback for client routes. */
  WEB_DIST: z.string().default(path.resolve(__dirname, '..', '..', '..', 'web', 'dist')),
  /** Browser origins allowed to open the socket; the public URL's origin is always allowed. */
  ALLOWED_ORIGINS: z
    .string()
    .default('')
    .transform((s) =>
      s
        .split(',')
        .map((o) => o.trim())
        .filter(Boolean),
    ),
  TRUST_PROXY: env.bool.default(false),
  HEALTH_CHECK_TIMEOUT_MS: z.coerce.number().int().positive().default(2000),
  /** Session cache: sessions kept (LRU) and how long a verification is trusted (revocation ends it sooner). */
  SESSION_CACHE_MAX: z.coerce.number().int().positive().default(10_000),
  SESSION_CACHE_TTL_MS: z.coerce.number().int().nonnegative().default(30_000),
  /** Finished jobs whose status (and signed link) is kept in memory (LRU); a reel's deletion drops its own. */
  JOB_STATUS_CACHE_MAX: z.coerce.number().int().positive().default(20_000),
  /** Admission control: identity calls in flight and queued behind them; beyond, shed with 503 + Retry-After. */
  IDENTITY_MAX_IN_FLIGHT: z.coerce.number().int().positive().default(16),
  IDENTITY_MAX_QUEUE: z.coerce.number().int().nonnegative().default(200),
  /** The same for each other service the gateway calls. */
  GRPC_MAX_IN_FLIGHT: z.coerce.number().int().positive().default(64),
  GRPC_MAX_QUEUE: z.coerce.number().int().nonnegative().default(256),
  /** A queued call is shed after waiting this long. */
  ADMISSION_MAX_WAIT_MS: z.coerce.number().int().positive().default(2000),
  /** GET /auth/me's billing part is reused this long per user (billing's facts end it at once; 0: never). */
  ACCOUNT_CACHE_TTL_MS: z.coerce.number().int().nonnegative().default(1000),
  /** Redis for rate-limit counts shared by every gateway replica (e.g. redis://127.0.0.1:6379); per process when unset. */
  RATE_LIMIT_REDIS_URL: z.string().url().optional(),
  /** The budget of a request's gRPC calls together (the deadline passed on); uploads excepted. */
  REQUEST_DEADLINE_MS: z.coerce.number().int().positive().default(15_000),
  /** Demo gallery from a YouTube channel: both set, or the showcase alone. */
  YOUTUBE_API_KEY: z.string().default(''),
  /** A channel id (UC...) or a handle (@name). */
  YOUTUBE_CHANNEL: z.string().default(''),
  YOUTUBE_API_BASE_URL: z.url().default('https://www.googleapis.com/youtube/v3'),
  YOUTUBE_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
  ...peerAddrs,
});
export type Config = z.infer<typeof configSchema>;

/** The only place the gateway reads the environment. */
export const loadGatewayConfig = () => loadConfig(configSchema, process.env);
