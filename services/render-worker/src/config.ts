import os from 'node:os';
import { X264_PRESETS } from '@reelsmith/engine';
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
   * The x264 preset of reels and chunks: speed against file size at the same quality. Faster
   * presets make bigger files; the tests' products use `ultrafast` to spend less CPU per render.
   */
  RENDER_PRESET: z.enum(X264_PRESETS).default('veryfast'),
  /**
   * Segments per chunk of a long reel; unset: the engine's batch size (16, bounded by memory).
   * Tests set a small one to spread a short reel over several chunks.
   */
  RENDER_CHUNK_SEGMENTS: z.coerce.number().int().min(1).max(64).optional(),
  /**
   * Long reels (more than one batch) spread over every worker as chunk tasks (render.chunks), one
   * sound track and one join. Off: a long reel renders in batches on the worker that took it.
   */
  RENDER_FAN_OUT: env.bool.default(true),
});
export type Config = z.infer<typeof configSchema>;

/** The only place this service reads the environment. */
export const loadServiceConfig = () => loadConfig(configSchema, process.env);
