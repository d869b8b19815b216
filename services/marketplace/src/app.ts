import crypto from 'node:crypto';
import { Interval, OutboxRelay, createObjectStore, mailTransportFor, type App, type Platform, type RunningConsumer } from '@reelsmith/kit';
import type { Config } from './config.js';
import { MarketplaceService } from './domain/marketplace.service.js';
import { createMailer } from './repositories/mailer.js';
import { DrizzleMarketplaceRepository } from './repositories/marketplace.repository.js';
import { grpcPeers, objectClipStore } from './repositories/peers.js';
import { startConsumers } from './transport/events.js';
import { grpcBinding } from './transport/grpc.js';

/** Wires repositories and services together; no logic lives here. */
export function wire(p: Platform<Config>): App {
  const { config, log } = p;
  const relay = new OutboxRelay(p.db.orm, p.bus, log);
  const store = createObjectStore(config);
  const peers = grpcPeers({ identity: config.IDENTITY_GRPC_ADDR, billing: config.BILLING_GRPC_ADDR }, config.GRPC_DEADLINE_MS, p.metrics);
  const service = new MarketplaceService(
    new DrizzleMarketplaceRepository(p.db.orm),
    objectClipStore(store),
    peers,
    peers,
    createMailer(mailTransportFor(config, log), config.PUBLIC_URL),
    { clip: () => crypto.randomUUID(), payout: () => crypto.randomUUID() },
    log,
    () => new Date(),
    () => void relay.flush(),
  );
  const sweep = new Interval(() => service.settleGrants(), config.MARKETPLACE_SWEEP_INTERVAL_MS, log);
  let consumers: RunningConsumer[] = [];
  return {
    grpc: [grpcBinding(service)],
    checks: [{ name: 'storage', check: () => store.ping() }],
    start: async () => {
      relay.start();
      consumers = await startConsumers(p.bus, service, log);
      sweep.start();
      void sweep.tick();
    },
    drain: async () => {
      await Promise.all(consumers.map((c) => c.stop()));
      await sweep.stop();
    },
    close: async () => {
      await relay.stop();
      peers.close();
    },
  };
}
