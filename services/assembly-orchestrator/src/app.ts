import { OutboxRelay, type App, type Platform, type RunningConsumer } from '@reelsmith/kit';
import type { Config } from './config.js';
import { JobsService } from './domain/jobs.service.js';
import { DrizzleJobsRepository } from './repositories/jobs.repository.js';
import { grpcPeers } from './repositories/peers.js';
import { consumeJobEvents } from './transport/events.js';
import { grpcBinding } from './transport/grpc.js';

/** Wires repositories and services together; no logic lives here. */
export function wire(p: Platform<Config>): App {
  const relay = new OutboxRelay(p.db.orm, p.bus, p.log);
  const peers = grpcPeers(
    { billing: p.config.BILLING_GRPC_ADDR, media: p.config.MEDIA_LIBRARY_GRPC_ADDR },
    p.config.GRPC_DEADLINE_MS,
    p.metrics,
  );
  const service = new JobsService(new DrizzleJobsRepository(p.db.orm, () => void relay.flush()), peers, p.log);
  let consumers: RunningConsumer[] = [];
  return {
    grpc: [grpcBinding(service)],
    start: async () => {
      relay.start();
      consumers = await consumeJobEvents(p.bus, service);
    },
    drain: async () => {
      await Promise.all(consumers.map((c) => c.stop()));
    },
    close: async () => {
      await relay.stop();
      peers.close();
    },
  };
}
