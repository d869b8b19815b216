import path from 'node:path';
import { baseSchema, env, loadConfig, storageSchema, z } from '@reelsmith/kit';

export const configSchema = baseSchema.extend(storageSchema.shape).extend({
  IDENTITY_GRPC_ADDR: env.hostPort,
  BILLING_GRPC_ADDR: env.hostPort,
  /** smtp://user:pass@host:port; unset writes offer mails to DATA_DIR/mail as .eml files. */
  SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\//, 'expected smtp:// or smtps://')
    .optional(),
  MAIL_FROM: z.string().default('Reelsmith <no-reply@reelsmith.local>'),
  /** How often credits owed for accepted offers are (re)granted after a billing outage. */
  MARKETPLACE_SWEEP_INTERVAL_MS: z.coerce.number().int().min(1000).default(30_000),
});
export type Config = z.infer<typeof configSchema>;

export const mailDir = (c: Config) => path.join(c.DATA_DIR, 'mail');

/** The only place this service reads the environment. */
export const loadServiceConfig = () => loadConfig(configSchema, process.env);
