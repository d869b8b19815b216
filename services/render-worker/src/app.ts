import { Interval, createObjectStore, type App, type Platform } from '@reelsmith/kit';
import { streams } from '@reelsmith/proto';
import type { Config } from './config.js';
import { ChunkTaskService } from './domain/chunk-task.service.js';
import { ReelRenderService } from './domain/reel-render.service.js';
import { RenderJobService } from './domain/render-job.service.js';
import { HeavySlot } from './domain/render.ports.js';
import { WORKER_NAME, chunkBoard } from './repositories/chunk-board.js';
import { chunkQueue } from './repositories/chunk-queue.js';
import { engineCalls } from './repositories/engine.js';
import { jobInputs, reelStore, scratchDirs } from './repositories/job-files.js';
import { orchestratorReporter } from './repositories/orchestrator.reporter.js';
import { dialWorkerPeers } from './repositories/peers.js';
import { grpcBinding } from './transport/grpc.js';
import { RenderChunksConsumer } from './transport/chunks.consumer.js';
import { RenderJobsConsumer } from './transport/jobs.consumer.js';

/** Wires repositories and services together; no logic lives here. */
export function wire(p: Platform<Config>): App {
  const { config } = p;
  const store = createObjectStore(config);
  const peers = dialWorkerPeers(
    { orchestrator: config.ASSEMBLY_ORCHESTRATOR_GRPC_ADDR, media: config.MEDIA_LIBRARY_GRPC_ADDR },
    config.GRPC_DEADLINE_MS,
    p.metrics,
  );
  const scratch = scratchDirs(config.WORK_DIR);
  // One heavy ffmpeg at a time in this process (a chunk, a single pass or a join).
  const heavy = new HeavySlot();
  const board = chunkBoard(store, p.log);
  const chunks = new ChunkTaskService({
    engine: engineCalls,
    board,
    heavy,
    log: p.log,
    worker: WORKER_NAME,
    threads: config.RENDER_THREADS,
    preset: config.RENDER_PRESET,
  });
  const jobs = new RenderJobService({
    reporter: orchestratorReporter(peers.orchestrator, p.log),
    inputs: jobInputs(store, peers.media),
    store: reelStore(store),
    scratch,
    renderer: new ReelRenderService({
      engine: engineCalls,
      heavy,
      log: p.log,
      fanOut: config.RENDER_FAN_OUT ? { board, queue: chunkQueue(p.bus) } : undefined,
      threads: config.RENDER_THREADS,
      preset: config.RENDER_PRESET,
      chunkSegments: config.RENDER_CHUNK_SEGMENTS,
    }),
    log: p.log,
    heartbeatMs: Math.floor(config.RENDER_ACK_WAIT_MS / 3),
  });
  const consumer = new RenderJobsConsumer(
    p.bus,
    jobs,
    {
      ackWaitMs: config.RENDER_ACK_WAIT_MS,
      maxDeliver: config.RENDER_MAX_DELIVER,
      concurrency: config.RENDER_CONCURRENCY,
    },
    p.metrics,
  );
  const chunkConsumer = new RenderChunksConsumer(
    p.bus,
    chunks,
    scratch,
    { ackWaitMs: config.RENDER_ACK_WAIT_MS, maxDeliver: config.RENDER_MAX_DELIVER, concurrency: 1 },
    p.log,
  );
  // The render queue's depth for Prometheus (reelsmith_render_queue_depth), every 15 s.
  const depth = new Interval(
    async () => {
      const q = await p.bus.queueDepth(streams.RENDER, 'render-workers');
      p.metrics.renderQueueDepth.set({ state: 'pending' }, q.pending);
      p.metrics.renderQueueDepth.set({ state: 'in_progress' }, q.inProgress);
    },
    15_000,
    p.log,
  );
  return {
    grpc: [grpcBinding()],
    checks: [{ name: 'storage', check: () => store.ping() }],
    start: async () => {
      // Folders of jobs a killed worker was running (their jobs are redelivered and start afresh).
      const swept = await scratch.sweep();
      if (swept) p.log.info({ swept }, 'stale scratch folders removed');
      await consumer.start();
      await chunkConsumer.start();
      depth.start();
    },
    drain: async () => {
      await depth.stop();
      await Promise.all([consumer.stop(), chunkConsumer.stop()]);
    },
    close: async () => peers.close(),
  };
}
