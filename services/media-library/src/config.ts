import { baseSchema, loadConfig, storageSchema, z } from '@reelsmith/kit';

export const configSchema = baseSchema.extend(storageSchema.shape).extend({
  /** How many analyses run at once in this process (CPU-heavy). */
  ANALYSIS_CONCURRENCY: z.coerce.number().int().min(1).max(8).default(1),
  /** How often uploads no job used within a day are looked for and deleted. */
  UPLOAD_SWEEP_INTERVAL_MS: z.coerce
    .number()
    .int()
    .min(1000)
    .default(10 * 60_000),
});
export type Config = z.infer<typeof configSchema>;

/** The only place this service reads the environment. */
export const loadServiceConfig = () => loadConfig(configSchema, process.env);
