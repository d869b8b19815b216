import { baseSchema, loadConfig } from '@reelsmith/kit';

export const configSchema = baseSchema;
export type Config = ReturnType<typeof loadServiceConfig>;

/** The only place this service reads the environment. */
export const loadServiceConfig = () => loadConfig(configSchema, process.env);
