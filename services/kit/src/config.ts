import { z } from 'zod';

/** Raised when the environment does not satisfy a service's schema; names every bad variable. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

/**
 * Validates `env` against `schema` once. Empty strings count as unset so that `FOO=` falls back to
 * the default instead of failing a number or URL check.
 */
export function parseConfig<S extends z.ZodType>(schema: S, env: Record<string, string | undefined>): z.infer<S> {
  const cleaned: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined && v !== '') cleaned[k] = v;
  const result = schema.safeParse(cleaned);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => {
    const name = issue.path.join('.') || '(root)';
    const value = issue.path.length ? cleaned[String(issue.path[0])] : undefined;
    return value === undefined ? `${name}: ${issue.message} (not set)` : `${name}: ${issue.message}`;
  });
  throw new ConfigError(problems);
}

/** Like parseConfig, but a process that cannot be configured stops with the message. */
export function loadConfig<S extends z.ZodType>(schema: S, env: Record<string, string | undefined>): z.infer<S> {
  try {
    return parseConfig(schema, env);
  } catch (e) {
    if (e instanceof ConfigError) {
      process.stderr.write(`${e.message}\n`);
      process.exit(78); // EX_CONFIG
    }
    throw e;
  }
}

const port = z.coerce.number().int().min(0).max(65535);
const bool = z.enum(['true', 'false', '1', '0', 'yes', 'no']).transform((v) => v === 'true' || v === '1' || v === 'yes');

/** Pieces every service schema is built from. */
export const env = {
  port,
  bool,
  url: z.url(),
  hostPort: z.string().regex(/^[^\s:]+:\d+$/, 'expected host:port'),
  secret: z.string().min(16, 'must be at least 16 characters'),
  logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
};

/** What every service process needs, whatever it does. */
export const baseSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  LOG_LEVEL: env.logLevel,
  DATA_DIR: z.string().default('./data'),
  /** PostgreSQL URL of this service's own database; unset means an embedded PGlite under DATA_DIR. */
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'expected a postgres:// URL')
    .optional(),
  /** Most connections this service opens to DATABASE_URL at once (unused with the embedded PGlite). */
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(100).default(10),
  NATS_URL: z.string().default('nats://127.0.0.1:4222'),
  /** Prefix of every subject and stream name; lets several deployments or test runs share one NATS. */
  NATS_PREFIX: z
    .string()
    .regex(/^([a-z0-9_-]+\.)?$/i, 'expected letters, digits, - or _ followed by a dot')
    .default(''),
  /** NATS credentials (a token, or user and password), required by a NATS server that asks for them. */
  NATS_TOKEN: env.secret.optional(),
  NATS_USER: z.string().optional(),
  NATS_PASSWORD: env.secret.optional(),
  /**
   * Shared secret every internal gRPC call carries; a service with it set refuses calls without
   * it (UNAUTHENTICATED), except the standard health service probes use. `npm start` makes one.
   */
  INTERNAL_TOKEN: env.secret.optional(),
  GRPC_HOST: z.string().default('127.0.0.1'),
  GRPC_PORT: port.default(0),
  /** HTTP port for /metrics, /livez and /readyz. */
  OPS_PORT: port.default(0),
  /** Default deadline of outgoing gRPC calls. */
  GRPC_DEADLINE_MS: z.coerce.number().int().positive().default(5000),
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().positive().default(20_000),
});
export type BaseConfig = z.infer<typeof baseSchema>;

/** Object storage: local disk by default, any S3 API endpoint otherwise. */
export const storageSchema = z.object({
  STORAGE_DRIVER: z.enum(['local', 's3']).default('local'),
  S3_ENDPOINT: z.url().optional(),
  S3_REGION: z.string().default('us-east-1'),
  S3_BUCKET: z.string().default('reelsmith'),
  S3_ACCESS_KEY_ID: z.string().optional(),
  S3_SECRET_ACCESS_KEY: z.string().optional(),
  S3_FORCE_PATH_STYLE: bool.default(true),
  /** HMAC key for local-disk signed links (shared by the gateway, which serves them). */
  SIGNING_SECRET: env.secret.optional(),
  PUBLIC_URL: z.url().default('http://localhost:8080'),
});
export type StorageConfig = z.infer<typeof storageSchema>;

/**
 * The render work queue's delivery rules. The worker's consumer is declared with them and the
 * orchestrator's watchdog reads them to know when a silent job can no longer be redelivered.
 */
export const renderDeliveryShape = {
  /** How long a delivery may go without an in-progress ack before JetStream redelivers it. */
  RENDER_ACK_WAIT_MS: z.coerce.number().int().min(1000).default(30_000),
  /** Deliveries before a failing job is given up (failed and refunded). */
  RENDER_MAX_DELIVER: z.coerce.number().int().min(1).max(20).default(3),
};

export { z };
