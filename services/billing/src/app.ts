import { Interval, OutboxRelay, mailTransportFor, type App, type Platform } from '@reelsmith/kit';
import type { Config } from './config.js';
import { BillingService } from './domain/billing.service.js';
import { PaymentsService } from './domain/payments.service.js';
import { DrizzleBillingRepository } from './repositories/billing.repository.js';
import { createReceipts } from './repositories/mailer.js';
import { DrizzlePaymentsRepository } from './repositories/payments.repository.js';
import { createProviders } from './repositories/providers/index.js';
import { grpcBinding } from './transport/grpc.js';

/** Wires repositories and services together; no logic lives here. */
export function wire(p: Platform<Config>): App {
  const relay = new OutboxRelay(p.db.orm, p.bus, p.log);
  const clock = () => new Date();
  const kick = () => void relay.flush();
  const service = new BillingService(new DrizzleBillingRepository(p.db.orm), clock, kick);
  const c = p.config;
  const payments = new PaymentsService(
    new DrizzlePaymentsRepository(p.db.orm),
    createProviders(c, p.log, clock),
    createReceipts(mailTransportFor(c, p.log), c.PUBLIC_URL),
    clock,
    kick,
    p.log,
  );
  // Sandbox renewals: every replica runs it; row locks with skip-locked and the per-cycle payment
  // id make each due cycle renew once.
  const renewals = new Interval(() => payments.renewDue(), c.RENEWAL_INTERVAL_MS, p.log);
  return {
    grpc: [grpcBinding(service, payments)],
    start: async () => {
      await relay.start();
      renewals.start();
      void renewals.tick();
    },
    close: async () => {
      await renewals.stop();
      await relay.stop();
    },
  };
}
