/**
 * Setup shared by the medium tests that compose several services in one process: each service
 * runs with the kit's `runService` (as `main.ts` does) on its own fresh database, and the
 * gateway's HTTP app listens on a free loopback port.
 */
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { z } from 'zod';
import { createMetrics, parseConfig, runService, type RunningService } from '@reelsmith/kit';
import { createTestDatabase, quietLogger, type TestDatabase } from '@reelsmith/kit/testing';
import { dialPeers, type Peers } from '../../services/gateway/src/repositories/clients';

const ROOT = path.resolve(__dirname, '..', '..');

/** The folder name under services/ of a service that runs with `runService`. */
export type ServiceName = 'identity' | 'billing' | 'media-library' | 'assembly-orchestrator' | 'marketplace' | 'telemetry';

export interface InProcessSpec {
  name: ServiceName;
  /** The service's `configSchema`, parsed with `parseConfig` as in production. */
  schema: z.ZodType;
  /** The service's `wire` (from its app.ts). */
  wire: (p: never) => unknown;
  /** Its environment (DATABASE_URL is added when `db` is given). */
  env: Record<string, string>;
  /** The service records events with the transactional outbox. */
  outbox?: boolean;
  /** Its database (made fresh by `startService`, or one the test keeps across restarts). */
  db?: TestDatabase;
  log?: Logger;
}

export interface InProcessService {
  running: RunningService;
  db: TestDatabase;
  /** `127.0.0.1:<grpc port>`, for another service's or the gateway's configuration. */
  address: string;
}

/** Runs one service in this process on a fresh database (or `spec.db`), migrations applied. */
export async function startService(spec: InProcessSpec): Promise<InProcessService> {
  const db = spec.db ?? (await createTestDatabase(spec.name.replace(/-/g, '_')));
  const running = await runService(
    {
      name: spec.name,
      config: parseConfig(spec.schema, { ...spec.env, DATABASE_URL: db.url }) as never,
      migrationsDir: migrationsOf(spec.name),
      outbox: spec.outbox ?? false,
      wire: spec.wire as never,
    },
    { handleSignals: false, log: spec.log ?? quietLogger() },
  );
  return { running, db, address: `127.0.0.1:${running.grpcPort}` };
}

/** A service's migrations folder. */
export const migrationsOf = (name: ServiceName) => path.join(ROOT, 'services', name, 'migrations');

/**
 * The gateway's gRPC clients. Services a test does not run get an address where nothing listens:
 * channels connect lazily, so a test that never calls them never notices.
 */
export function gatewayPeers(addresses: Partial<Record<ServiceName, string>>, deadlineMs = 10_000): Peers {
  return dialPeers(
    { identity: NOWHERE, billing: NOWHERE, 'media-library': NOWHERE, 'assembly-orchestrator': NOWHERE, ...addresses },
    deadlineMs,
    createMetrics('gw'),
  );
}

const NOWHERE = '127.0.0.1:1';

/** The gateway's health for tests that do not look at it: always healthy. */
export const healthyReport = { report: async () => ({ status: 'healthy' as const, services: {}, unavailable: [], instance: 't' }) };

/** Listens on a free loopback port; resolves with `http://127.0.0.1:<port>`. */
export async function listenLocal(app: FastifyInstance): Promise<string> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
}

/** A mail as sent over SMTP, quoted-printable soft breaks and escapes undone. */
export const decodeQuotedPrintable = (raw: string) =>
  raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)));
