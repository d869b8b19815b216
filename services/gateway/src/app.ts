import { LocalObjectStore, bind, createObjectStore, describeHandler, type App, type Platform } from '@reelsmith/kit';
import { gateway } from '@reelsmith/proto';
import type { Config } from './config.js';
import { rollUp } from './domain/health.js';
import { jobStatusViews } from './domain/job-status.js';
import { installationId } from './repositories/installation.repository.js';
import { dialPeers } from './repositories/clients.js';
import { peerAddresses, peerStatuses } from './repositories/peers.repository.js';
import { buildHttpApp } from './transport/http/server.js';
import { mountSocket } from './transport/socket.js';

/** Wires the gateway: peers, storage, HTTP, socket. */
export async function wire(p: Platform<Config>): Promise<App> {
  const { config, log } = p;
  const instance = await installationId(p.db);
  const peers = peerAddresses(config);
  const store = createObjectStore(config);
  const clients = dialPeers(peers, config.GRPC_DEADLINE_MS, p.metrics);

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
    },
    peers: clients,
    store,
    trustProxy: config.TRUST_PROXY,
    files: store instanceof LocalObjectStore ? { store, signingSecret: config.SIGNING_SECRET! } : undefined,
  });
  const io = mountSocket(http.server, {
    log,
    allowedOrigins: [new URL(config.PUBLIC_URL).origin, ...config.ALLOWED_ORIGINS],
    peers: clients,
    bus: p.bus,
    views: jobStatusViews(store),
  });

  return {
    grpc: [bind(gateway.GatewayService, { describe: describeHandler('gateway') })],
    checks: [{ name: 'storage', check: () => store.ping() }],
    start: async () => {
      await http.listen({ port: config.PORT, host: config.HOST });
      log.info({ port: config.PORT }, 'gateway listening');
    },
    drain: async () => {
      await io.close();
      await http.close();
    },
    close: async () => clients.close(),
  };
}
