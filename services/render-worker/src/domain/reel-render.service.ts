import path from 'node:path';
import type { Logger } from '@reelsmith/kit';
import { EngineError, cancelledError } from '@reelsmith/engine/plan';
import type { Batch, MediaInfo, PlanResult, X264Preset } from '@reelsmith/engine';
import { CANCELLED_BY_USER, type RenderInput, type RenderedFiles, type Renderer } from './render-job.service.js';
import { ChunkFailedError, type ChunkBoard, type ChunkQueue, type ChunkRecord, type EngineCalls, type HeavySlot } from './render.ports.js';

/** How a prepared plan renders: the one place that decides it. */
export type RenderRoute = 'whole' | 'chunks';

/**
 * A plan of one batch renders whole on this worker (one ffmpeg pass). A longer one is spread over
 * every worker as chunk tasks when fan-out is on; with fan-out off it renders whole here too, batch
 * after batch (the engine's renderReel: its peak stays one batch's).
 */
export const renderRoute = (batches: readonly Batch[], fanOut: boolean): RenderRoute => (batches.length > 1 && fanOut ? 'chunks' : 'whole');

export interface ReelRenderDeps {
  engine: EngineCalls;
  heavy: HeavySlot;
  log: Logger;
  /** Encoder threads (RENDER_THREADS); unset for the encoder's own choice. */
  threads?: number;
  /** The x264 preset (RENDER_PRESET); unset: the engine's. */
  preset?: X264Preset;
  /** Segments per chunk (RENDER_CHUNK_SEGMENTS); unset: the engine's batch size. */
  chunkSegments?: number;
  /**
   * Long reels over every worker (RENDER_FAN_OUT): where the chunks meet, the queue of their tasks,
   * and how often the coordinator looks at their records (default 1 s). Absent: every reel renders
   * whole here.
   */
  fanOut?: { board: ChunkBoard; queue: ChunkQueue; pollMs?: number };
}

/** The coordinator's overall cap: twice one worker's (renderLimits), for the wait for free workers. */
function coordinatorCap(engine: EngineCalls, reelSec: number, inputs: MediaInfo[], threads?: number) {
  const one = engine.renderLimits({ reelSec, inputBytes: inputs.reduce((sum, m) => sum + m.sizeBytes, 0), threads });
  return {
    timeoutMs: 2 * one.capMs,
    capReason: `overall cap ${Math.round((2 * one.capMs) / 1000)} s, twice one worker's ${one.capReason}`,
  };
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const t = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });

/**
 * The render worker's one render service: a job is prepared (probed, analysed, planned, or the
 * user's plan checked) once, and then rendered from that preparation, whole on this worker or as
 * chunks over every worker (`renderRoute`). For chunks this worker is the job's coordinator: it
 * publishes one task per chunk not stored yet, renders the sound track meanwhile, follows the
 * chunks' records (progress = share of chunk frames stored), and joins them when all are there.
 * Chunks are scratch: dropped when the job ends, kept when the coordinator hands the job back on
 * shutdown (the next one finds them: same plan, same key).
 */
export class ReelRenderService implements Renderer {
  constructor(private readonly d: ReelRenderDeps) {}

  async render(input: RenderInput): Promise<RenderedFiles> {
    const { engine } = this.d;
    const output = path.join(input.dir, 'reel.mp4');
    const thumbnail = path.join(input.dir, 'reel.jpg');
    const batch = this.d.chunkSegments ? { maxSegments: this.d.chunkSegments } : undefined;
    const prepared = await engine.prepare(
      {
        clips: input.clips,
        music: input.music,
        settings: input.request,
        analyses: input.analyses,
        targetSec: input.request.target_duration_sec ?? undefined,
        musicStartSec: input.request.music_start_sec ?? undefined,
        // A plan the user saw (and perhaps edited): rendered exactly, no planning of our own.
        plan: engine.planOf(input.request),
        signal: input.signal,
        // RENDER_THREADS bounds the analysis's decoders as it bounds the encoder.
        threads: this.d.threads,
      },
      input.onProgress,
    );
    const batches = engine.planBatches(prepared.plan, prepared.clips, batch);
    const fanOut = renderRoute(batches, this.d.fanOut !== undefined) === 'chunks' ? this.d.fanOut! : undefined;
    if (!fanOut) {
      // The render takes what was prepared above: each clip is probed once per job.
      const r = await this.d.heavy.run(() =>
        engine.renderReel({
          clips: input.clips,
          music: input.music,
          settings: input.request,
          output,
          thumbnail,
          prepared,
          signal: input.signal,
          tmpRoot: input.dir,
          onProgress: input.onProgress,
          threads: this.d.threads,
          preset: this.d.preset,
          batch,
        }),
      );
      return { output: r.output, thumbnail: r.thumbnail, durationSec: r.durationSec };
    }
    input.onProgress(10, 'rendering');
    const r = await this.coordinate(fanOut, {
      ...input,
      prepared,
      batches,
      output,
      thumbnail,
      onProgress: (p) => input.onProgress(p, p >= 95 ? 'finalizing' : 'rendering'),
    });
    return { output, thumbnail, durationSec: r.durationSec, chunks: r.chunks };
  }

  /** A long reel as chunks over every worker, coordinated from here (see the class). */
  async coordinate(
    { board, queue, pollMs = 1000 }: NonNullable<ReelRenderDeps['fanOut']>,
    x: Pick<RenderInput, 'job' | 'attempt' | 'dir' | 'signal'> & {
      prepared: Pick<PlanResult, 'clips' | 'music' | 'plan' | 'settings'>;
      batches: Batch[];
      output: string;
      thumbnail: string;
      /** 0..100 of the whole job. */
      onProgress: (percent: number) => void;
    },
  ): Promise<{ durationSec: number; chunks: ChunkRecord[] }> {
    const { engine } = this.d;
    const { job, batches, prepared } = x;
    const { clips, music, plan, settings } = prepared;
    const planKey = board.planKey(plan, settings, batches);
    const totalFrames = batches.reduce((s, b) => s + b.frames, 0);
    const log = this.d.log.child({ job_id: job.id, plan_key: planKey, chunks: batches.length });
    // A generous cap (each ffmpeg process is judged on stalled progress): twice one worker's, for
    // the wait for free workers.
    const cap = coordinatorCap(engine, plan.totalSec, [...clips, ...(music ? [music] : [])], this.d.threads);
    let keep = false;
    try {
      await board.open({ jobId: job.id, attempt: x.attempt, planKey }, { chunks: batches.length, totalFrames });
      const records = new Map<number, ChunkRecord>();
      for (const [i, batch] of batches.entries()) {
        const have = await board.record(job.id, planKey, i);
        if (have) {
          records.set(i, have);
          continue;
        }
        await queue.publish({
          jobId: job.id,
          ownerId: job.ownerId,
          attempt: x.attempt,
          planKey,
          index: i,
          count: batches.length,
          body: {
            request: job.request,
            plan,
            batch,
            totalFrames,
            thumbnailAtSec: engine.thumbnailTime(settings, plan.totalSec),
            clipKeys: job.request.media_files,
            media: clips.map(({ path: _local, ...info }) => info),
          },
        });
      }
      log.info({ reused: records.size }, 'chunks published');
      const doneFrames = () => [...records.values()].reduce((s, r) => s + r.frames, 0);
      x.onProgress(10 + (85 * doneFrames()) / totalFrames);
      // The sound track once, here, while the chunks render elsewhere.
      const audio = path.join(x.dir, 'sound.wav');
      const started = Date.now();
      const left = () => {
        const ms = cap.timeoutMs - (Date.now() - started);
        if (ms <= 0)
          throw new EngineError('TIMEOUT', `the render did not finish within ${Math.round(cap.timeoutMs / 1000)} s (${cap.capReason})`);
        return ms;
      };
      await engine.renderAudioTrack(
        { clips, music, plan, settings, totalFrames, output: audio, dir: x.dir },
        { timeoutMs: left(), capReason: cap.capReason, signal: x.signal },
      );
      while (records.size < batches.length) {
        if (x.signal.aborted) throw cancelledError();
        left();
        const failed = await board.failure(job.id, planKey);
        if (failed) throw new ChunkFailedError(`chunk ${failed.index} failed: ${failed.reason}`);
        for (let i = 0; i < batches.length; i++) {
          if (records.has(i)) continue;
          const r = await board.record(job.id, planKey, i);
          if (r) records.set(i, r);
        }
        x.onProgress(10 + (85 * doneFrames()) / totalFrames);
        if (records.size < batches.length) await sleep(pollMs, x.signal);
      }
      const chunks: Array<{ file: string; frames: number }> = [];
      for (let i = 0; i < batches.length; i++) {
        const file = `chunk-${String(i).padStart(4, '0')}.mp4`;
        await board.fetchChunk(job.id, planKey, i, path.join(x.dir, file));
        chunks.push({ file, frames: records.get(i)!.frames });
      }
      await board.fetchThumbnail(job.id, planKey, x.thumbnail);
      const joined = await this.d.heavy.run(() =>
        engine.joinChunks(
          { dir: x.dir, chunks, fps: plan.fps, audio, output: x.output },
          { timeoutMs: left(), capReason: cap.capReason, signal: x.signal, onProgress: (f) => x.onProgress(95 + 4 * f) },
        ),
      );
      const list = [...records.values()].sort((a, b) => a.index - b.index);
      log.info({ workers: [...new Set(list.map((r) => r.worker))], by_chunk: list.map((r) => r.worker) }, 'chunks joined');
      return { durationSec: joined.durationSec, chunks: list };
    } catch (e) {
      // Handed back on shutdown (not cancelled by the user): the next coordinator uses the chunks.
      keep = x.signal.aborted && x.signal.reason !== CANCELLED_BY_USER;
      throw e;
    } finally {
      if (!keep) await board.dropJob(job.id);
    }
  }
}
