import { OutboxRelay, type App, type Platform } from '@reelsmith/kit';
import type { Config } from './config.js';
import { BillingService } from './domain/billing.service.js';
import { DrizzleBillingRepository } from './repositories/billing.repository.js';
import { grpcBinding } from './transport/grpc.js';

/** Wires repositories and services together; no logic lives here. */
export function wire(p: Platform<Config>): App {
  const relay = new OutboxRelay(p.db.orm, p.bus, p.log);
  const service = new BillingService(
    new DrizzleBillingRepository(p.db.orm),
    () => new Date(),
    () => void relay.flush(),
  );
  return {
    grpc: [grpcBinding(service)],
    start: async () => relay.start(),
    close: () => relay.stop(),
  };
}
