import http from 'node:http';
import path from 'node:path';
import type { Logger } from 'pino';
import { Bus } from './bus.js';
import type { BaseConfig } from './config.js';
import { migrate, openDatabase, readMigrations, type Database } from './db.js';
import { serveGrpc, useInternalToken, type RunningGrpcServer, type ServiceBinding } from './grpc.js';
import { HealthMonitor, type DependencyCheck } from './health.js';
import { createLogger } from './logger.js';
import { createMetrics, type Metrics } from './metrics.js';
import { outboxMigration } from './outbox.js';
import { probeBinding } from './probe.js';
import { startTracing } from './tracing.js';

/** What a service gets to wire its app with. */
export interface Platform<C extends BaseConfig> {
  name: string;
  config: C;
  log: Logger;
  metrics: Metrics;
  db: Database;
  bus: Bus;
  health: HealthMonitor;
}

/** What a service's app.ts returns: its gRPC services and anything with a lifetime. */
export interface App {
  grpc: ServiceBinding[];
  /** Extra dependencies whose failure makes the service NOT_SERVING. */
  checks?: DependencyCheck[];
  /** Starts work that is not request driven (consumers, HTTP listeners). Runs after gRPC listens. */
  start?: () => Promise<void>;
  /** Stops taking new work and hands back or finishes what it holds. Runs first on shutdown. */
  drain?: () => Promise<void>;
  /** Closes what the app opened itself. Runs after gRPC has closed. */
  close?: () => Promise<void>;
}

export interface ServiceSpec<C extends BaseConfig> {
  name: string;
  config: C;
  /** Folder of NNNN_name.sql files; every service owns its database. */
  migrationsDir: string;
  /** The service records events with the transactional outbox: the kit creates its table. */
  outbox?: boolean;
  wire: (p: Platform<C>) => Promise<App> | App;
}

export interface RunningService {
  grpcPort: number;
  opsPort: number;
  stop(reason?: string): Promise<void>;
}

function opsServer(metrics: Metrics, health: HealthMonitor, log: Logger): http.Server {
  return http.createServer((req, res) => {
    const route = (req.url ?? '/').split('?')[0];
    const send = (code: number, body: string, type = 'text/plain') => {
      res.writeHead(code, { 'content-type': type });
      res.end(body);
    };
    if (route === '/metrics') {
      metrics.registry.metrics().then(
        (text) => send(200, text, metrics.registry.contentType),
        (e: unknown) => {
          log.error({ err: e }, 'metrics failed');
          send(500, 'metrics unavailable');
        },
      );
    } else if (route === '/livez') send(200, 'ok');
    else if (route === '/readyz')
      health
        .status()
        .then(({ status, failures }) => send(status === 'SERVING' ? 200 : 503, JSON.stringify({ status, failures }), 'application/json'));
    else send(404, 'not found');
  });
}

/**
 * Starts one service: tracing -> logger -> metrics -> database (migrated) -> bus -> app -> gRPC
 * (with health) -> ops HTTP -> signals. Shutdown runs the other way: not ready, drain the app,
 * close gRPC, the app, the bus, the database, the ops server.
 */
export async function runService<C extends BaseConfig>(
  spec: ServiceSpec<C>,
  opts: { handleSignals?: boolean; log?: Logger } = {},
): Promise<RunningService> {
  startTracing(spec.name);
  const { config } = spec;
  const log = opts.log ?? createLogger({ service: spec.name, level: config.LOG_LEVEL });
  const metrics = createMetrics(spec.name);

  const db = await openServiceDatabase(spec);
  const applied = await migrate(db, serviceMigrations(spec));
  if (applied.length) log.info({ applied }, 'migrations applied');

  // Outgoing gRPC calls of this process carry the internal token; incoming ones must (below).
  // Listening beyond loopback (a cluster) without one would let anyone who reaches the port in.
  if (!config.INTERNAL_TOKEN && !isLoopback(config.GRPC_HOST))
    throw new Error(`INTERNAL_TOKEN is required when GRPC_HOST (${config.GRPC_HOST}) is not a loopback address`);
  useInternalToken(config.INTERNAL_TOKEN);
  const bus = await Bus.connect({
    url: config.NATS_URL,
    name: spec.name,
    log,
    prefix: config.NATS_PREFIX,
    token: config.NATS_TOKEN,
    user: config.NATS_USER,
    password: config.NATS_PASSWORD,
    metrics,
  });
  await bus.ensureDeclaredStreams();

  const checks: DependencyCheck[] = [
    { name: 'database', check: () => db.ping() },
    { name: 'nats', check: () => bus.ping() },
  ];
  const health = new HealthMonitor({ checks });
  const app = await spec.wire({ name: spec.name, config, log, metrics, db, bus, health });
  checks.push(...(app.checks ?? []));

  let grpcServer: RunningGrpcServer;
  try {
    grpcServer = await serveGrpc({
      host: config.GRPC_HOST,
      port: config.GRPC_PORT,
      services: [health.binding(), probeBinding(spec.name, db, bus), ...app.grpc],
      log,
      metrics,
      serviceName: spec.name,
      internalToken: config.INTERNAL_TOKEN,
    });
  } catch (e) {
    await Promise.allSettled([bus.close(), db.close()]);
    throw e;
  }
  const ops = opsServer(metrics, health, log);
  await new Promise<void>((resolve) => ops.listen(config.OPS_PORT, config.GRPC_HOST, resolve));
  const opsPort = (ops.address() as { port: number }).port;
  await app.start?.();
  log.info({ grpc_port: grpcServer.port, ops_port: opsPort }, 'service started');

  let stopping: Promise<void> | undefined;
  const stop = (reason = 'stop') =>
    (stopping ??= (async () => {
      log.info({ reason }, 'shutting down');
      health.drain();
      const step = async (what: string, fn?: () => Promise<void>) => {
        try {
          await fn?.();
        } catch (e) {
          log.error({ err: e, step: what }, 'shutdown step failed');
        }
      };
      await step('drain', app.drain);
      await step('grpc', () => grpcServer.close(config.SHUTDOWN_TIMEOUT_MS / 2));
      await step('app', app.close);
      await step('bus', () => bus.close());
      await step('database', () => db.close());
      await step('ops', () => new Promise<void>((r) => ops.close(() => r())));
      log.info('stopped');
    })());

  if (opts.handleSignals !== false) {
    const onSignal = (sig: NodeJS.Signals) => {
      const timer = setTimeout(() => {
        log.error('shutdown timed out; exiting');
        process.exit(1);
      }, config.SHUTDOWN_TIMEOUT_MS);
      timer.unref();
      void stop(sig).then(() => process.exit(0));
    };
    process.once('SIGTERM', onSignal);
    process.once('SIGINT', onSignal);
  }
  return { grpcPort: grpcServer.port, opsPort, stop };
}

const openServiceDatabase = <C extends BaseConfig>(spec: ServiceSpec<C>) =>
  openDatabase({
    url: spec.config.DATABASE_URL,
    pgliteDir: path.join(spec.config.DATA_DIR, 'db', spec.name),
    poolSize: spec.config.DATABASE_POOL_SIZE,
  });

/** The service's migrations in the order start-up applies them (the kit's outbox table first). */
const serviceMigrations = <C extends BaseConfig>(spec: ServiceSpec<C>) => [
  ...(spec.outbox ? [outboxMigration()] : []),
  ...readMigrations(spec.migrationsDir),
];

/**
 * Applies the service's migrations with the same runner and files as start-up, then closes the
 * database: what a cluster's pre-install/pre-upgrade hook Job runs (`main.js --migrate-only`).
 * Returns the names applied now.
 */
export async function migrateService<C extends BaseConfig>(spec: ServiceSpec<C>, opts: { log?: Logger } = {}): Promise<string[]> {
  const log = opts.log ?? createLogger({ service: spec.name, level: spec.config.LOG_LEVEL });
  const db = await openServiceDatabase(spec);
  try {
    const applied = await migrate(db, serviceMigrations(spec));
    log.info({ applied }, applied.length ? 'migrations applied' : 'database is up to date');
    return applied;
  } finally {
    await db.close();
  }
}

/**
 * Entry point helper: runs the service, and a start-up failure ends the process with its reason.
 * With `--migrate-only` it applies the migrations and exits instead (0 when the database is up to date).
 */
export function main<C extends BaseConfig>(spec: ServiceSpec<C>, argv: readonly string[] = process.argv.slice(2)): void {
  if (argv.includes('--migrate-only')) {
    migrateService(spec).then(
      () => process.exit(0),
      (e: unknown) => {
        process.stderr.write(`${spec.name} migrations failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
        process.exit(1);
      },
    );
    return;
  }
  runService(spec).catch((e: unknown) => {
    process.stderr.write(`${spec.name} failed to start: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exit(1);
  });
}

/** 127.0.0.0/8, ::1 and localhost: reachable from this machine only. */
export const isLoopback = (host: string) => /^(127\.\d+\.\d+\.\d+|::1|localhost)$/.test(host);
