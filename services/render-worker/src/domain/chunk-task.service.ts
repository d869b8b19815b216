import path from 'node:path';
import type { Logger } from '@reelsmith/kit';
import { cancelledError } from '@reelsmith/engine/plan';
import type { MediaInfo, X264Preset } from '@reelsmith/engine';
import type { ChunkBoard, ChunkRef, ChunkTaskBody, EngineCalls, HeavySlot } from './render.ports.js';

export interface ChunkTaskDeps {
  engine: EngineCalls;
  board: ChunkBoard;
  heavy: HeavySlot;
  log: Logger;
  /** This worker as the chunks' records name it (host/pid). */
  worker: string;
  /** Encoder threads (RENDER_THREADS). */
  threads?: number;
  /** The x264 preset (RENDER_PRESET); unset: the engine's. */
  preset?: X264Preset;
}

/**
 * One chunk of a long reel on any worker, whichever job it belongs to: skipped when its job has
 * ended (no manifest) or the chunk is stored already; else its clips fetched, the chunk rendered
 * in the task's folder and stored with its record. A chunk that fails on its last delivery leaves
 * a failure note for the coordinator, which fails the job once.
 */
export class ChunkTaskService {
  constructor(private readonly d: ChunkTaskDeps) {}

  async render(ref: ChunkRef, body: ChunkTaskBody, dir: string, signal: AbortSignal): Promise<'done' | 'skipped'> {
    const { engine, board } = this.d;
    if ((await board.coordinatedAttempt(ref.jobId, ref.planKey)) === null || (await board.record(ref.jobId, ref.planKey, ref.index)))
      return 'skipped';
    const settings = engine.parseSettings(body.request);
    const segs = body.plan.segments.slice(body.batch.first, body.batch.end);
    const clips: MediaInfo[] = [];
    for (const c of new Set(segs.map((s) => s.clip))) {
      const key = body.clipKeys[c]!;
      const file = await board.fetchClip(key, path.join(dir, `in-${c}${path.extname(key)}`));
      const known = body.media?.[c];
      clips[c] = known ? { ...known, path: file } : await engine.probe(file, 'clip');
    }
    const { title, fontEnv } = engine.prepareTitle(settings, body.plan, dir);
    const output = path.join(dir, `chunk-${String(ref.index).padStart(4, '0')}.mp4`);
    const thumbFile = path.join(dir, 'thumb.jpg');
    const started = Date.now();
    // A chunk's generous overall cap, from its length, its clips' size and the threads.
    const l = engine.renderLimits({
      reelSec: body.batch.frames / body.plan.fps,
      inputBytes: clips.reduce((sum, m) => sum + (m?.sizeBytes ?? 0), 0),
      threads: this.d.threads,
    });
    const r = await this.d.heavy.run(() => {
      if (signal.aborted) throw cancelledError();
      return engine.renderChunk(
        {
          clips,
          plan: body.plan,
          settings,
          batch: body.batch,
          totalFrames: body.totalFrames,
          output,
          title,
          fontEnv,
          thumbnail: { path: thumbFile, atSec: body.thumbnailAtSec },
          threads: this.d.threads,
          preset: this.d.preset,
        },
        { timeoutMs: l.capMs, capReason: `overall cap ${Math.round(l.capMs / 1000)} s, ${l.capReason}`, stallMs: l.stallMs, signal },
      );
    });
    await board.storeChunk(
      ref,
      { chunk: output, thumbnail: r.thumbnail ? thumbFile : undefined },
      {
        index: ref.index,
        frames: r.frames,
        worker: this.d.worker,
        seconds: (Date.now() - started) / 1000,
        thumbnail: r.thumbnail,
      },
    );
    // The job ended meanwhile (its scratch was dropped before this chunk was stored): drop it again.
    if ((await board.coordinatedAttempt(ref.jobId, ref.planKey)) === null) await board.dropJob(ref.jobId);
    return 'done';
  }

  /** A chunk failed on its last delivery: the coordinator fails the job (once). */
  async failed(ref: ChunkRef, reason: string): Promise<void> {
    const { board } = this.d;
    // Only a failure of the attempt being coordinated counts: the chunks of an attempt handed
    // back are retried by the next coordinator.
    if ((await board.coordinatedAttempt(ref.jobId, ref.planKey)) !== ref.attempt) return;
    const written = await board.markFailed(ref.jobId, ref.planKey, { index: ref.index, reason }).then(
      () => ({ ok: true as const }),
      (error: unknown) => ({ ok: false as const, error }),
    );
    // The job ended meanwhile (another chunk's failure ended it first): drop what this wrote. Its
    // scratch may have gone while this was being written, which is no error then.
    if ((await board.coordinatedAttempt(ref.jobId, ref.planKey)) === null) await board.dropJob(ref.jobId);
    else if (!written.ok) throw written.error;
  }

  /** The job ended without a reel (cancelled or failed): its scratch objects go. */
  dropJob(jobId: string): Promise<void> {
    return this.d.board.dropJob(jobId);
  }
}
