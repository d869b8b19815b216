import { LocalObjectStore, bind, createObjectStore, describeHandler, type App, type Platform } from '@reelsmith/kit';
import { gateway } from '@reelsmith/proto';
import type { Config } from './config.js';
import { detailedHealth } from './domain/detailed-health.js';
import { rollUp } from './domain/health.js';
import { RequestCounter } from './domain/request-counter.js';
import { jobStatusViews } from './domain/job-status.js';
import { LiveJobs } from './domain/live-jobs.js';
import { FinishedJobs, finishedJobsLimits } from './domain/finished-jobs.js';
import { SessionVerifier } from './domain/sessions.js';
import { ShortCache } from './domain/short-cache.js';
import { installationId } from './repositories/installation.repository.js';
import { followBillingFacts } from './repositories/billing-facts.js';
import { admitted, dialPeers } from './repositories/clients.js';
import { gatewayMetrics } from './repositories/gateway-metrics.js';
import { jobStatusFacts } from './repositories/jobs.js';
import { followMediaFacts } from './repositories/media-facts.js';
import { MiniRedis } from './repositories/redis.js';
import { followRevocations, verifyWithIdentity } from './repositories/sessions.js';
import { peerAddresses, peerStatuses } from './repositories/peers.repository.js';
import { RequestCountsPublisher } from './repositories/request-counts.publisher.js';
import { probeServices, probeStorage, renderQueue, supervisorRestarts, systemResources } from './repositories/system.repository.js';
import type { UserBody } from './transport/http/schemas.js';
import { buildHttpApp } from './transport/http/server.js';
import { Idempotency } from './domain/idempotency.js';
import { DbIdempotencyStore } from './repositories/idempotency.repository.js';
import { demosService } from './repositories/demos.wiring.js';
import { mountSocket, revokeSessionSockets } from './transport/socket.js';

/** Wires the gateway: peers, storage, HTTP, socket. */
export async function wire(p: Platform<Config>): Promise<App> {
  const { config, log } = p;
  const instance = await installationId(p.db);
  const peers = peerAddresses(config);
  const store = createObjectStore(config);
  const observers = gatewayMetrics(p.metrics);
  // Every call to another service goes through admission control (bounded, queued, shed).
  const clients = admitted(
    dialPeers(peers, config.GRPC_DEADLINE_MS, p.metrics),
    {
      identity: {
        maxInFlight: config.IDENTITY_MAX_IN_FLIGHT,
        maxQueue: config.IDENTITY_MAX_QUEUE,
        maxWaitMs: config.ADMISSION_MAX_WAIT_MS,
      },
      others: { maxInFlight: config.GRPC_MAX_IN_FLIGHT, maxQueue: config.GRPC_MAX_QUEUE, maxWaitMs: config.ADMISSION_MAX_WAIT_MS },
    },
    observers,
  );
  const sessions = new SessionVerifier(
    verifyWithIdentity(clients),
    { maxEntries: config.SESSION_CACHE_MAX, ttlMs: config.SESSION_CACHE_TTL_MS },
    observers,
  );
  const live = new LiveJobs();
  const finished = new FinishedJobs(finishedJobsLimits(config.JOB_STATUS_CACHE_MAX));
  const mediaFacts = followMediaFacts(p.bus, finished);
  const accounts = new ShortCache<UserBody>(config.ACCOUNT_CACHE_TTL_MS);
  const billingFacts = followBillingFacts(p.bus, (userId) => (userId ? accounts.invalidate(userId) : accounts.clear()));
  const redis = config.RATE_LIMIT_REDIS_URL ? new MiniRedis(config.RATE_LIMIT_REDIS_URL) : undefined;
  const liveFeed = p.bus.subscribeCore('jobStatus', (m) => live.heard(m.ownerId, jobStatusFacts(m)));
  const requestCounts = new RequestCountsPublisher(new RequestCounter(), p.bus, log);

  const http = await buildHttpApp({
    log,
    metrics: p.metrics,
    webDist: config.WEB_DIST,
    health: {
      report: async () => {
        const own = (await p.health.status()).status;
        const others = await peerStatuses(peers, config.HEALTH_CHECK_TIMEOUT_MS);
        return { ...rollUp({ gateway: own, ...others }), instance };
      },
      detailed: async () => {
        const [services, storage, system, queue, summary] = await Promise.all([
          probeServices(peers, { db: p.db, version: '0.1.0' }, config.HEALTH_CHECK_TIMEOUT_MS, supervisorRestarts(config.DATA_DIR)),
          probeStorage(store),
          systemResources(config.DATA_DIR),
          renderQueue(p.bus).catch(() => ({ pending: 0, inProgress: 0 })),
          clients.telemetry.summary({ hours: 24 }).catch(() => null),
        ]);
        return detailedHealth({ services, storage, system, queue: { ...queue, deadLettered: Number(summary?.deadLettered ?? 0) } });
      },
    },
    requestCounts,
    peers: clients,
    store,
    demos: demosService(config, p.db, clients, log),
    trustProxy: config.TRUST_PROXY,
    sessions,
    live,
    finished,
    requestDeadlineMs: config.REQUEST_DEADLINE_MS,
    publicUrl: config.PUBLIC_URL,
    contentOrigins: config.STORAGE_DRIVER === 's3' && config.S3_ENDPOINT ? [new URL(config.S3_ENDPOINT).origin] : [],
    onRateLimited: observers.rateLimited,
    rateLimitRedis: redis,
    accounts,
    files: store instanceof LocalObjectStore ? { store, signingSecret: config.SIGNING_SECRET! } : undefined,
    idempotency: new Idempotency(new DbIdempotencyStore(p.db)),
  });
  const io = mountSocket(http.server, {
    log,
    allowedOrigins: [new URL(config.PUBLIC_URL).origin, ...config.ALLOWED_ORIGINS],
    peers: clients,
    sessions,
    live,
    bus: p.bus,
    views: jobStatusViews(store),
  });
  const revocations = followRevocations(p.bus, sessions, log, (r) =>
    revokeSessionSockets(http.server, r.tokenHashes, r.userId || undefined),
  );

  return {
    grpc: [bind(gateway.GatewayService, { describe: describeHandler('gateway') })],
    checks: [{ name: 'storage', check: () => store.ping() }],
    start: async () => {
      requestCounts.start();
      await http.listen({ port: config.PORT, host: config.HOST });
      log.info({ port: config.PORT }, 'gateway listening');
    },
    drain: async () => {
      revocations.unsubscribe();
      billingFacts.unsubscribe();
      mediaFacts.unsubscribe();
      liveFeed.unsubscribe();
      await io.close();
      await http.close();
      await requestCounts.stop();
    },
    close: async () => {
      clients.close();
      redis?.close();
    },
  };
}
