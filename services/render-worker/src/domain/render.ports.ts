import type * as Engine from '@reelsmith/engine';
import type { Batch, EditPlan } from '@reelsmith/engine';
import type { JobRequest, ProbedMedia } from '@reelsmith/proto';

/**
 * The engine calls the render services make, injected (repositories/engine.ts binds the real
 * engine): the domain imports no ffmpeg, probe or analysis code of its own.
 */
export type EngineCalls = Pick<
  typeof Engine,
  | 'prepare'
  | 'renderReel'
  | 'planBatches'
  | 'thumbnailTime'
  | 'renderLimits'
  | 'renderAudioTrack'
  | 'joinChunks'
  | 'renderChunk'
  | 'prepareTitle'
  | 'parseSettings'
  | 'probe'
> & {
  /** The plan the user saw (and perhaps edited), from the job request; undefined: the engine plans. */
  planOf(request: JobRequest): EditPlan | undefined;
};

/** Which chunk of which coordinated attempt: the chunk task's envelope (RenderChunk's fields). */
export interface ChunkRef {
  jobId: string;
  attempt: number;
  /** Names the plan the chunks belong to (a hash of plan, settings and batches). */
  planKey: string;
  index: number;
}

/** What a chunk task carries: everything a worker needs, nothing it must look up. */
export interface ChunkTaskBody {
  request: JobRequest;
  plan: EditPlan;
  batch: Batch;
  totalFrames: number;
  /** The reel's thumbnail time: the chunk holding it writes the thumbnail too. */
  thumbnailAtSec: number;
  /** Object keys of the job's clips, by clip index (only the batch's are fetched). */
  clipKeys: string[];
  /**
   * The coordinator's probe of each clip, by clip index, without its local path: a chunk's worker
   * fetches the same object and renders from this, so a clip is probed once per job. Absent
   * (a task from an older worker): the worker probes its copy.
   */
  media?: ProbedMedia[];
}

/** A chunk task as the coordinator publishes it. */
export interface ChunkTask extends ChunkRef {
  ownerId: string;
  /** How many chunks the reel has. */
  count: number;
  body: ChunkTaskBody;
}

/** What a stored chunk's record says: its frames, and which worker rendered it how fast. */
export interface ChunkRecord {
  index: number;
  frames: number;
  worker: string;
  seconds: number;
  thumbnail: boolean;
}

/** The note a chunk that failed for good leaves for its coordinator. */
export interface ChunkFailure {
  index: number;
  reason: string;
}

/**
 * The chunks of a coordinated plan in shared storage (object storage), where every worker and the
 * coordinator meet: the manifest says the job is being coordinated (by which attempt), each
 * chunk's record says it is stored complete, a failure note says one failed for good.
 */
export interface ChunkBoard {
  /** The key of a plan's chunks: the same plan, settings and batches give the same key. */
  planKey(plan: EditPlan, settings: unknown, batches: Batch[]): string;
  /** Starts coordinating `attempt`: an earlier coordinator's failure note goes, the manifest is written. */
  open(ref: Omit<ChunkRef, 'index'>, manifest: { chunks: number; totalFrames: number }): Promise<void>;
  /** The attempt being coordinated, or null when the job has ended (no manifest). */
  coordinatedAttempt(jobId: string, planKey: string): Promise<number | null>;
  record(jobId: string, planKey: string, index: number): Promise<ChunkRecord | null>;
  failure(jobId: string, planKey: string): Promise<ChunkFailure | null>;
  markFailed(jobId: string, planKey: string, failure: ChunkFailure): Promise<void>;
  /** Stores a rendered chunk (and the reel's thumbnail, when it wrote it), then its record, last. */
  storeChunk(ref: ChunkRef, files: { chunk: string; thumbnail?: string }, record: ChunkRecord): Promise<void>;
  /** The stored chunk at `target` (a local file there, downloaded or linked). */
  fetchChunk(jobId: string, planKey: string, index: number, target: string): Promise<void>;
  /** The stored thumbnail copied to `target`. */
  fetchThumbnail(jobId: string, planKey: string, target: string): Promise<void>;
  /** A clip of the job as a local file (downloaded to `target` when the store is not local). */
  fetchClip(key: string, target: string): Promise<string>;
  /** Every scratch object of the job. */
  dropJob(jobId: string): Promise<void>;
}

/** The work queue of chunk tasks (render.chunks), which every worker pulls. */
export interface ChunkQueue {
  publish(task: ChunkTask): Promise<void>;
}

/** A chunk failed on its last delivery: the job fails (once), no retry of the whole job. */
export class ChunkFailedError extends Error {
  override readonly name = 'ChunkFailedError';
}

/** One heavy ffmpeg at a time per worker (a chunk, a single pass or a join): its peak stays one batch's. */
export class HeavySlot {
  private tail: Promise<unknown> = Promise.resolve();
  run<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.tail.then(fn, fn);
    this.tail = next.catch(() => undefined);
    return next;
  }
}
