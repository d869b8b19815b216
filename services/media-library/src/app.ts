import os from 'node:os';
import { Interval, createObjectStore, type App, type Platform } from '@reelsmith/kit';
import type { Config } from './config.js';
import { MediaService } from './domain/media.service.js';
import { DrizzleMediaRepository } from './repositories/media.repository.js';
import { engineTools } from './repositories/media-tools.js';
import { grpcBinding } from './transport/grpc.js';

/** Wires repositories and services together; no logic lives here. */
export function wire(p: Platform<Config>): App {
  const store = createObjectStore(p.config);
  const service = new MediaService(new DrizzleMediaRepository(p.db.orm), store, engineTools, p.log, {
    concurrency: p.config.ANALYSIS_CONCURRENCY,
    replicaId: `${os.hostname()}/${process.pid}`,
  });
  const expiry = new Interval(() => service.expireUnused(new Date()), p.config.UPLOAD_SWEEP_INTERVAL_MS, p.log);
  return {
    grpc: [grpcBinding(service)],
    checks: [{ name: 'storage', check: () => store.ping() }],
    start: async () => {
      expiry.start();
      await service.resumePending();
    },
    drain: async () => {
      await expiry.stop();
      await service.drain();
    },
  };
}
