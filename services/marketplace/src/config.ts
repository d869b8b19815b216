import { baseSchema, env, loadConfig, mailSchema, storageSchema, z } from '@reelsmith/kit';

/** Mail (SMTP_URL, MAIL_FROM): offer mail. */
export const configSchema = baseSchema
  .extend(storageSchema.shape)
  .extend(mailSchema.shape)
  .extend({
    IDENTITY_GRPC_ADDR: env.hostPort,
    BILLING_GRPC_ADDR: env.hostPort,
    /** How often credits owed for accepted offers are (re)granted after a billing outage. */
    MARKETPLACE_SWEEP_INTERVAL_MS: z.coerce.number().int().min(1000).default(30_000),
  });
export type Config = z.infer<typeof configSchema>;

/** The only place this service reads the environment. */
export const loadServiceConfig = () => loadConfig(configSchema, process.env);
