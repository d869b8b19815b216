import { createObjectStore, type App, type Platform } from '@reelsmith/kit';
import type { Config } from './config.js';
import { dialWorkerPeers } from './repositories/peers.js';
import { grpcBinding } from './transport/grpc.js';
import { RenderWorker } from './transport/jobs.consumer.js';

/** Wires repositories and services together; no logic lives here. */
export function wire(p: Platform<Config>): App {
  const { config } = p;
  const store = createObjectStore(config);
  const peers = dialWorkerPeers(
    { orchestrator: config.ASSEMBLY_ORCHESTRATOR_GRPC_ADDR, media: config.MEDIA_LIBRARY_GRPC_ADDR },
    config.GRPC_DEADLINE_MS,
    p.metrics,
  );
  const worker = new RenderWorker({
    bus: p.bus,
    store,
    peers,
    log: p.log,
    workDir: config.WORK_DIR,
    ackWaitMs: config.RENDER_ACK_WAIT_MS,
    maxDeliver: config.RENDER_MAX_DELIVER,
    concurrency: config.RENDER_CONCURRENCY,
  });
  return {
    grpc: [grpcBinding()],
    checks: [{ name: 'storage', check: () => store.ping() }],
    start: () => worker.start(),
    drain: () => worker.stop(),
    close: async () => peers.close(),
  };
}
