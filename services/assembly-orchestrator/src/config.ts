import { baseSchema, env, loadConfig, renderDeliveryShape, z } from '@reelsmith/kit';

export const configSchema = baseSchema.extend({
  BILLING_GRPC_ADDR: env.hostPort,
  MEDIA_LIBRARY_GRPC_ADDR: env.hostPort,
  ...renderDeliveryShape,
  /** How often the sweeper looks for stalled jobs and unsettled reservations. */
  SWEEP_INTERVAL_MS: z.coerce.number().int().min(1000).default(10_000),
  /** First start with an empty showcase: render and feature demo reels from the starter library. */
  DEMO_REELS: env.bool.default(true),
  /** The product's public address: the download links in job.completed webhooks. */
  PUBLIC_URL: z.url().default('http://localhost:8080'),
  /** Webhooks may go to loopback and private addresses (local receivers in development and tests); off in production. */
  WEBHOOK_ALLOW_PRIVATE: env.bool.default(false),
  /** A webhook receiver must answer within this long, or the try counts as failed. */
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
  /** The wait after a webhook's first failed try (doubling after each further one, up to 3 hours); tests shorten it. */
  WEBHOOK_RETRY_FIRST_MS: z.coerce.number().int().min(100).default(30_000),
});
export type Config = z.infer<typeof configSchema>;

/** The only place this service reads the environment. */
export const loadServiceConfig = () => loadConfig(configSchema, process.env);
