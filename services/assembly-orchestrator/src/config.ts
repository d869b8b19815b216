import { baseSchema, env, loadConfig, z } from '@reelsmith/kit';

export const configSchema = baseSchema.extend({
  BILLING_GRPC_ADDR: env.hostPort,
  MEDIA_LIBRARY_GRPC_ADDR: env.hostPort,
});
export type Config = z.infer<typeof configSchema>;

/** The only place this service reads the environment. */
export const loadServiceConfig = () => loadConfig(configSchema, process.env);
