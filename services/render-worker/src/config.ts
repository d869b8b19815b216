import os from 'node:os';
import { baseSchema, env, loadConfig, renderDeliveryShape, storageSchema, z } from '@reelsmith/kit';

export const configSchema = baseSchema.extend(storageSchema.shape).extend({
  ASSEMBLY_ORCHESTRATOR_GRPC_ADDR: env.hostPort,
  MEDIA_LIBRARY_GRPC_ADDR: env.hostPort,
  /** Scratch space for inputs and outputs of one render; removed after each job. */
  WORK_DIR: z.string().default(os.tmpdir()),
  ...renderDeliveryShape,
  RENDER_CONCURRENCY: z.coerce.number().int().min(1).max(8).default(1),
  /** Encoder threads per render; unset: the encoder's own choice (about 1.5 per core). */
  RENDER_THREADS: z.coerce.number().int().min(1).max(64).optional(),
  /**
   * Segments per chunk of a long reel; unset: the engine's batch size (16, bounded by memory).
   * Tests set a small one to spread a short reel over several chunks.
   */
  RENDER_CHUNK_SEGMENTS: z.coerce.number().int().min(1).max(64).optional(),
  /**
   * Long reels spread over every worker as chunk tasks (render.chunks). Off by default until the
   * end-to-end test of a worker killed mid-chunk passes: off, a long reel renders in batches on
   * the worker that took it.
   */
  RENDER_FAN_OUT: env.bool.default(false),
});
export type Config = z.infer<typeof configSchema>;

/** The only place this service reads the environment. */
export const loadServiceConfig = () => loadConfig(configSchema, process.env);
