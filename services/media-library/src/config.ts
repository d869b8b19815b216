import fs from 'node:fs';
import path from 'node:path';
import { baseSchema, env, loadConfig, storageSchema, z } from '@reelsmith/kit';

export const configSchema = baseSchema.extend(storageSchema.shape).extend({
  /** How many analyses run at once in this process (CPU-heavy). */
  ANALYSIS_CONCURRENCY: z.coerce.number().int().min(1).max(8).default(1),
  /** How often uploads no job used within a day are looked for and deleted. */
  UPLOAD_SWEEP_INTERVAL_MS: z.coerce
    .number()
    .int()
    .min(1000)
    .default(10 * 60_000),
  /** How often reels past their plan's retention are looked for and deleted. */
  REEL_SWEEP_INTERVAL_MS: z.coerce
    .number()
    .int()
    .min(1000)
    .default(60 * 60_000),
  /** Imported into the stock libraries at start when both are empty; 'none': nothing is. */
  LIBRARY_STARTER_DIR: z.string().default(path.resolve(__dirname, '..', '..', '..', 'media', 'starter')),
});
export type Config = z.infer<typeof configSchema>;

/** The only place this service reads the environment. */
export const loadServiceConfig = () => loadConfig(configSchema, process.env);

/** `npm run library:import`: the service's settings, plus where a running media-library listens. */
export const importSchema = configSchema.extend({
  /** The running media-library (else DATA_DIR/run/supervisor.json says whether `npm start` runs one). */
  MEDIA_LIBRARY_GRPC_ADDR: env.hostPort.optional(),
});

/**
 * The import CLI's environment, as `npm start` gives it to the service: its secrets from
 * DATA_DIR/secrets.json unless set, MEDIA_LIBRARY_DATABASE_URL as DATABASE_URL, quiet logs.
 */
export function loadImportConfig() {
  const e = process.env;
  const file = path.join(e.DATA_DIR || './data', 'secrets.json');
  const secrets = fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, string>) : {};
  return loadConfig(importSchema, {
    ...e,
    LOG_LEVEL: e.LOG_LEVEL || 'warn',
    SIGNING_SECRET: e.SIGNING_SECRET || secrets.SIGNING_SECRET,
    INTERNAL_TOKEN: e.INTERNAL_TOKEN || secrets.INTERNAL_TOKEN,
    DATABASE_URL: e.MEDIA_LIBRARY_DATABASE_URL || e.DATABASE_URL,
  });
}
