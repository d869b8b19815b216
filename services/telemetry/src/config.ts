import { baseSchema, loadConfig, z } from '@reelsmith/kit';

export const configSchema = baseSchema.extend({
  /** Recorded facts and request counts older than this are deleted. */
  TELEMETRY_RETENTION_DAYS: z.coerce.number().int().positive().default(30),
  /** How often the old rows are deleted. */
  TELEMETRY_PRUNE_INTERVAL_MS: z.coerce.number().int().positive().default(3_600_000),
});
export type Config = ReturnType<typeof loadServiceConfig>;

/** The only place this service reads the environment. */
export const loadServiceConfig = () => loadConfig(configSchema, process.env);
