import type { Logger } from '@reelsmith/kit';
import type { JobRequest } from '@reelsmith/proto';
import { isEngineError, type EngineErrorCode } from '@reelsmith/engine/plan';
import type { ClipAnalysis, MusicAnalysis, Stage as EngineStage } from '@reelsmith/engine';
import { ChunkFailedError } from './render.ports.js';

/** The job as the orchestrator hands it to the worker that started it. */
export interface WorkerJob {
  id: string;
  ownerId: string;
  request: JobRequest;
}

export type ReportStage = 'preparing' | 'analysing' | 'rendering' | 'finalizing';

/** One chunk of a long reel's picture: which worker rendered it, its frames, how long it took. */
export interface RenderedChunk {
  index: number;
  worker: string;
  frames: number;
  seconds: number;
}

export interface RenderedFiles {
  output: string;
  thumbnail: string;
  durationSec: number;
  /** A reel rendered as chunks over the workers (empty or absent: one pass here). */
  chunks?: RenderedChunk[];
}

export interface StoredReel {
  outputKey: string;
  thumbnailKey: string;
  sizeBytes: number;
}

/** The one channel to the orchestrator: start, progress, completion, failure of a job. */
export interface JobReporter {
  /** The job, or null when it must not run (finished already, or a later delivery took it). */
  started(jobId: string, attempt: number): Promise<WorkerJob | null>;
  /** Fire and forget; a newer report replaces one not yet sent. */
  progress(jobId: string, attempt: number, stage: ReportStage, percent: number): void;
  /** False when the orchestrator refused it (the job had failed meanwhile). */
  completed(jobId: string, attempt: number, reel: StoredReel & { durationSec: number; chunks?: RenderedChunk[] }): Promise<boolean>;
  failed(jobId: string, attempt: number, reason: string): Promise<void>;
}

/** The job's files on local disk, and the analyses media-library made of them at upload. */
export interface JobInputs {
  fetch(
    job: WorkerJob,
    dir: string,
  ): Promise<{ clips: string[]; music?: string; analyses: { clips: Array<ClipAnalysis | undefined>; music?: MusicAnalysis } }>;
}

/** Where finished reels go (object storage). */
export interface ReelStore {
  save(job: WorkerJob, files: RenderedFiles): Promise<StoredReel>;
}

/** A scratch folder per job, removed afterwards. */
export interface Scratch {
  create(): Promise<string>;
  remove(dir: string): Promise<void>;
}

export interface RenderInput {
  job: WorkerJob;
  attempt: number;
  clips: string[];
  music?: string;
  request: JobRequest;
  analyses: { clips: Array<ClipAnalysis | undefined>; music?: MusicAnalysis };
  dir: string;
  signal: AbortSignal;
  onProgress: (percent: number, stage: EngineStage) => void;
}

/** The render engine. */
export interface Renderer {
  render(input: RenderInput): Promise<RenderedFiles>;
}

/** What became of one delivery of a job; the consumer maps it to ack, retry or drop. */
export type RunOutcome =
  | { kind: 'done' }
  /** Finished already, or taken by a later delivery: nothing to do. */
  | { kind: 'skipped' }
  /** The user cancelled the job: its render was stopped; nothing more to do. */
  | { kind: 'cancelled' }
  /** Stopped because the worker is shutting down: redeliver at once. */
  | { kind: 'handed_back' }
  /** The input cannot be rendered; the job failed and was refunded. */
  | { kind: 'rejected'; code: EngineErrorCode };

/** The abort reason when the user cancelled the job (not a shutdown: the job is not handed back). */
export const CANCELLED_BY_USER = 'cancelled by the user';

/** Engine failures that will fail the same way on every try: the job fails at once. */
const PERMANENT: ReadonlySet<EngineErrorCode> = new Set([
  'INPUT_NOT_FOUND',
  'INPUT_EMPTY',
  'NOT_MEDIA',
  'NO_VIDEO',
  'NO_AUDIO',
  'LIMIT_EXCEEDED',
  'INVALID_SETTINGS',
]);
export const isPermanent = (code: EngineErrorCode) => PERMANENT.has(code);

/** The engine's stages as the orchestrator's vocabulary. */
export const REPORT_STAGE: Record<EngineStage, ReportStage> = {
  probing: 'preparing',
  analysing: 'analysing',
  planning: 'analysing',
  rendering: 'rendering',
  finalizing: 'finalizing',
  done: 'finalizing',
};

/** Progress for the user: at most every `intervalMs`, always when the stage changes. */
export function throttle(
  intervalMs: number,
  send: (p: number, stage: ReportStage) => void,
  now: () => number = Date.now,
): (p: number, stage: ReportStage) => void {
  let lastAt = -Infinity;
  let lastP = -1;
  let lastStage = '';
  return (p, stage) => {
    const t = now();
    if (p === lastP && stage === lastStage) return;
    if (t - lastAt < intervalMs && stage === lastStage) return;
    lastAt = t;
    lastP = p;
    lastStage = stage;
    send(p, stage);
  };
}

/**
 * One delivery of a render job: take it (unless it finished or a later delivery took it), fetch
 * its inputs and cached analyses, render, store the reel and its thumbnail, and report it
 * complete; only then is the work message acked. Input that cannot be rendered fails the job at
 * once; anything else is thrown, to be retried with backoff. The scratch folder goes in every case.
 */
export class RenderJobService {
  constructor(
    private readonly d: {
      reporter: JobReporter;
      inputs: JobInputs;
      store: ReelStore;
      scratch: Scratch;
      renderer: Renderer;
      log: Logger;
      progressIntervalMs?: number;
      /**
       * The latest progress is re-sent at least this often, even when nothing moved (a long
       * download, a slow encode), so the orchestrator's watchdog can tell a live job from one
       * whose worker died. A third of the ack wait.
       */
      heartbeatMs?: number;
    },
  ) {}

  async run(jobId: string, attempt: number, signal: AbortSignal): Promise<RunOutcome> {
    const log = this.d.log.child({ job_id: jobId, attempt });
    if (signal.aborted) return signal.reason === CANCELLED_BY_USER ? { kind: 'cancelled' } : { kind: 'handed_back' };
    const job = await this.d.reporter.started(jobId, attempt);
    if (!job) {
      log.info('job finished already or taken by a later delivery; message dropped');
      return { kind: 'skipped' };
    }
    let last: { p: number; stage: ReportStage } = { p: 0, stage: 'preparing' };
    const heartbeat = setInterval(() => this.d.reporter.progress(jobId, attempt, last.stage, last.p), this.d.heartbeatMs ?? 10_000);
    const dir = await this.d.scratch.create().catch((e: unknown) => {
      clearInterval(heartbeat);
      throw e;
    });
    try {
      const inputs = await this.d.inputs.fetch(job, dir);
      const report = throttle(this.d.progressIntervalMs ?? 500, (p, stage) => {
        last = { p, stage };
        this.d.reporter.progress(jobId, attempt, stage, p);
      });
      const files = await this.d.renderer.render({
        ...inputs,
        job,
        attempt,
        request: job.request,
        dir,
        signal,
        onProgress: (p, stage) => report(p, REPORT_STAGE[stage]),
      });
      const stored = await this.d.store.save(job, files);
      const accepted = await this.d.reporter.completed(jobId, attempt, { ...stored, durationSec: files.durationSec, chunks: files.chunks });
      log.info({ seconds: files.durationSec, bytes: stored.sizeBytes, accepted }, 'job rendered');
      return { kind: 'done' };
    } catch (e) {
      if (signal.aborted && signal.reason === CANCELLED_BY_USER) {
        log.info('job cancelled by the user; render stopped');
        return { kind: 'cancelled' };
      }
      if (isEngineError(e) && e.code === 'CANCELLED') {
        log.info('shutting down; job handed back');
        return { kind: 'handed_back' };
      }
      if (e instanceof ChunkFailedError) {
        // A chunk failed on its every delivery: the job fails once (and is refunded once).
        log.error({ err: e }, 'a chunk of the job failed for good');
        await this.d.reporter.failed(jobId, attempt, '');
        return { kind: 'rejected', code: 'RENDER_FAILED' };
      }
      if (isEngineError(e) && isPermanent(e.code)) {
        log.warn({ err: e }, 'job input cannot be rendered');
        await this.d.reporter.failed(jobId, attempt, e.message);
        return { kind: 'rejected', code: e.code };
      }
      throw e;
    } finally {
      clearInterval(heartbeat);
      await this.d.scratch.remove(dir);
    }
  }

  /** The job failed on its last allowed delivery: it ends failed (and is refunded). */
  async giveUp(jobId: string, attempt: number, err: unknown): Promise<void> {
    this.d.log.error({ job_id: jobId, attempt, err }, 'job failed on every delivery');
    // No reason: the cause is ours, and the orchestrator words that for the user.
    await this.d.reporter.failed(jobId, attempt, '');
  }
}
