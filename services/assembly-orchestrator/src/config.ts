import { baseSchema, env, loadConfig, renderDeliveryShape, z } from '@reelsmith/kit';

export const configSchema = baseSchema.extend({
  BILLING_GRPC_ADDR: env.hostPort,
  MEDIA_LIBRARY_GRPC_ADDR: env.hostPort,
  ...renderDeliveryShape,
  /** How often the sweeper looks for stalled jobs and unsettled reservations. */
  SWEEP_INTERVAL_MS: z.coerce.number().int().min(1000).default(10_000),
  /** First start with an empty showcase: render and feature demo reels from the starter library. */
  DEMO_REELS: env.bool.default(true),
});
export type Config = z.infer<typeof configSchema>;

/** The only place this service reads the environment. */
export const loadServiceConfig = () => loadConfig(configSchema, process.env);
