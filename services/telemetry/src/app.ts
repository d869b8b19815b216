import { Interval, type App, type Platform, type RunningConsumer } from '@reelsmith/kit';
import type { Config } from './config.js';
import { TelemetryService } from './domain/telemetry.service.js';
import { TelemetryRepository } from './repositories/telemetry.repository.js';
import { consumeEvents } from './transport/events.consumer.js';
import { grpcBinding } from './transport/grpc.js';

/** Wires repositories and services together; no logic lives here. */
export function wire(p: Platform<Config>): App {
  const service = new TelemetryService(new TelemetryRepository(p.db.orm), { retentionDays: p.config.TELEMETRY_RETENTION_DAYS });
  const pruner = new Interval(
    async () => {
      const n = await service.prune();
      if (n) p.log.info({ rows: n }, 'old telemetry pruned');
    },
    p.config.TELEMETRY_PRUNE_INTERVAL_MS,
    p.log,
  );
  let consumers: RunningConsumer[] = [];
  return {
    grpc: [grpcBinding(service)],
    start: async () => {
      consumers = await consumeEvents(p.bus, service, p.log);
      await pruner.tick();
      pruner.start();
    },
    drain: async () => {
      await pruner.stop();
      await Promise.all(consumers.map((c) => c.stop()));
    },
  };
}
