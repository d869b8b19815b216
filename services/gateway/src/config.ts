import path from 'node:path';
import { SERVICE_NAMES, baseSchema, env, grpcAddrVar, loadConfig, storageSchema, z } from '@reelsmith/kit';

const peerAddrs = Object.fromEntries(SERVICE_NAMES.filter((n) => n !== 'gateway').map((n) => [grpcAddrVar(n), env.hostPort])) as Record<
  string,
  typeof env.hostPort
>;

export const configSchema = baseSchema.extend(storageSchema.shape).extend({
  /** Public HTTP port: the API, the socket and the web app. */
  PORT: env.port.default(8080),
  HOST: z.string().default('0.0.0.0'),
  /** The built web app; served with an index.html fallback for client routes. */
  WEB_DIST: z.string().default(path.resolve(__dirname, '..', '..', '..', 'web', 'dist')),
  /** Browser origins allowed to open the socket; the public URL's origin is always allowed. */
  ALLOWED_ORIGINS: z
    .string()
    .default('')
    .transform((s) =>
      s
        .split(',')
        .map((o) => o.trim())
        .filter(Boolean),
    ),
  TRUST_PROXY: env.bool.default(false),
  HEALTH_CHECK_TIMEOUT_MS: z.coerce.number().int().positive().default(2000),
  ...peerAddrs,
});
export type Config = z.infer<typeof configSchema>;

/** The only place the gateway reads the environment. */
export const loadGatewayConfig = () => loadConfig(configSchema, process.env);
