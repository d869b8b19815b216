import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { LocalObjectStore, type Bus, type Logger, type ObjectStore } from '@reelsmith/kit';
import {
  EngineError,
  cancelledError,
  joinChunks,
  parseSettings,
  prepareTitle,
  probe,
  renderAudioTrack,
  renderChunk,
  renderLimits,
  type Batch,
  type EditPlan,
  type MediaInfo,
  type RenderSettings,
} from '@reelsmith/engine';
import type { JobRequest, assemblyEvents } from '@reelsmith/proto';
import { CANCELLED_BY_USER, type WorkerJob } from '../domain/render-job.service.js';

/** What a chunk task carries (RenderChunk.task_json): everything a worker needs, nothing it must look up. */
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
  media?: Array<Omit<MediaInfo, 'path'>>;
}

/** What a stored chunk's record says: its frames, and which worker rendered it how fast. */
export interface ChunkRecord {
  index: number;
  frames: number;
  worker: string;
  seconds: number;
  thumbnail: boolean;
}

/** This process as the job's records name it: the host (the pod on a cluster) and the pid. */
export const WORKER_NAME = `${os.hostname()}/${process.pid}`;

/** A chunk failed on its last delivery: the job fails (once), no retry of the whole job. */
export class ChunkFailedError extends Error {
  override readonly name = 'ChunkFailedError';
}

const pad = (k: number) => String(k).padStart(4, '0');
/** Scratch objects of one job; everything under it is deleted when the job ends. */
export const jobScratchPrefix = (jobId: string) => `scratch/${jobId}/`;
const keys = (jobId: string, planKey: string) => {
  const base = `${jobScratchPrefix(jobId)}${planKey}/`;
  return {
    manifest: `${base}manifest.json`,
    failed: `${base}failed.json`,
    thumbnail: `${base}thumb.jpg`,
    chunk: (k: number) => `${base}chunk-${pad(k)}.mp4`,
    record: (k: number) => `${base}chunk-${pad(k)}.json`,
  };
};

async function readJson<T>(store: ObjectStore, key: string): Promise<T | null> {
  if (!(await store.stat(key))) return null;
  const parts: Buffer[] = [];
  for await (const c of await store.get(key)) parts.push(c as Buffer);
  return JSON.parse(Buffer.concat(parts).toString('utf8')) as T;
}

async function download(store: ObjectStore, key: string, target: string): Promise<string> {
  if (store instanceof LocalObjectStore) return store.pathOf(key);
  await pipeline(await store.get(key), fs.createWriteStream(target));
  return target;
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

/** One heavy ffmpeg at a time per worker (a chunk or a single pass): its peak stays one batch's. */
export class HeavySlot {
  private tail: Promise<unknown> = Promise.resolve();
  run<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.tail.then(fn, fn);
    this.tail = next.catch(() => undefined);
    return next;
  }
}

export interface CoordinateInput {
  job: WorkerJob;
  attempt: number;
  clips: MediaInfo[];
  music?: MediaInfo;
  plan: EditPlan;
  settings: RenderSettings;
  batches: Batch[];
  thumbnailAtSec: number;
  dir: string;
  output: string;
  thumbnail: string;
  signal: AbortSignal;
  /** The overall cap (generous: each ffmpeg process is judged on stalled progress) and what it is. */
  timeoutMs: number;
  capReason?: string;
  /** 0..100 of the whole job. */
  onProgress: (percent: number) => void;
}

/**
 * A long reel over many workers: the coordinator (the worker that took the job) publishes one
 * task per chunk on `render.chunks`, renders the sound track meanwhile, follows the chunks'
 * records in object storage (progress = share of chunk frames stored), and joins them when all are
 * there. Any worker (this one included) renders chunks (`renderTask`). Chunks are scratch under
 * `scratch/<job>/`: deleted when the job ends, kept when the coordinator hands the job back (the
 * next one uses them: same plan, same key).
 */
export class ChunkWork {
  constructor(private readonly d: { store: ObjectStore; bus: Bus; log: Logger; heavy: HeavySlot; threads?: number; pollMs?: number }) {}

  planKey(plan: EditPlan, settings: RenderSettings, batches: Batch[]): string {
    return crypto.createHash('sha256').update(JSON.stringify({ plan, settings, batches })).digest('hex').slice(0, 16);
  }

  async coordinate(x: CoordinateInput): Promise<{ durationSec: number; chunks: ChunkRecord[] }> {
    const { job, batches } = x;
    const planKey = this.planKey(x.plan, x.settings, batches);
    const k = keys(job.id, planKey);
    const totalFrames = batches.reduce((s, b) => s + b.frames, 0);
    const log = this.d.log.child({ job_id: job.id, plan_key: planKey, chunks: batches.length });
    let keep = false;
    try {
      // A failure left by an earlier coordinator is not this one's: its chunks are retried.
      await this.d.store.delete(k.failed).catch(() => undefined);
      await this.d.store.put(k.manifest, Buffer.from(JSON.stringify({ attempt: x.attempt, chunks: batches.length, totalFrames })));
      const records = new Map<number, ChunkRecord>();
      for (const [i, batch] of batches.entries()) {
        const have = await readJson<ChunkRecord>(this.d.store, k.record(i));
        if (have) {
          records.set(i, have);
          continue;
        }
        const body: ChunkTaskBody = {
          request: job.request,
          plan: x.plan,
          batch,
          totalFrames,
          thumbnailAtSec: x.thumbnailAtSec,
          clipKeys: job.request.media_files,
          media: x.clips.map(({ path: _local, ...info }) => info),
        };
        await this.d.bus.publish(
          'render.chunks',
          {
            jobId: job.id,
            ownerId: job.ownerId,
            attempt: x.attempt,
            planKey,
            index: i,
            count: batches.length,
            taskJson: JSON.stringify(body),
          },
          { msgId: `${job.id}.${x.attempt}.${planKey}.${i}` },
        );
      }
      log.info({ reused: records.size }, 'chunks published');
      const doneFrames = () => [...records.values()].reduce((s, r) => s + r.frames, 0);
      x.onProgress(10 + (85 * doneFrames()) / totalFrames);
      // The sound track once, here, while the chunks render elsewhere.
      const audio = path.join(x.dir, 'sound.wav');
      const started = Date.now();
      const left = () => {
        const ms = x.timeoutMs - (Date.now() - started);
        if (ms <= 0)
          throw new EngineError(
            'TIMEOUT',
            `the render did not finish within ${Math.round(x.timeoutMs / 1000)} s (${x.capReason ?? 'its overall cap'})`,
          );
        return ms;
      };
      await renderAudioTrack(
        { clips: x.clips, music: x.music, plan: x.plan, settings: x.settings, totalFrames, output: audio, dir: x.dir },
        { timeoutMs: left(), capReason: x.capReason, signal: x.signal },
      );
      while (records.size < batches.length) {
        if (x.signal.aborted) throw cancelledError();
        left();
        const failed = await readJson<{ index: number; reason: string }>(this.d.store, k.failed);
        if (failed) throw new ChunkFailedError(`chunk ${failed.index} failed: ${failed.reason}`);
        for (let i = 0; i < batches.length; i++) {
          if (records.has(i)) continue;
          const r = await readJson<ChunkRecord>(this.d.store, k.record(i));
          if (r) records.set(i, r);
        }
        x.onProgress(10 + (85 * doneFrames()) / totalFrames);
        if (records.size < batches.length) await sleep(this.d.pollMs ?? 1000, x.signal);
      }
      const chunks: Array<{ file: string; frames: number }> = [];
      for (let i = 0; i < batches.length; i++) {
        const file = `chunk-${pad(i)}.mp4`;
        const local = await download(this.d.store, k.chunk(i), path.join(x.dir, file));
        if (local !== path.join(x.dir, file)) fs.symlinkSync(local, path.join(x.dir, file));
        chunks.push({ file, frames: records.get(i)!.frames });
      }
      const thumb = await download(this.d.store, k.thumbnail, path.join(x.dir, 'thumb-dl.jpg'));
      fs.copyFileSync(thumb, x.thumbnail);
      const joined = await this.d.heavy.run(() =>
        joinChunks(
          { dir: x.dir, chunks, fps: x.plan.fps, audio, output: x.output },
          { timeoutMs: left(), capReason: x.capReason, signal: x.signal, onProgress: (f) => x.onProgress(95 + 4 * f) },
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
      if (!keep) await this.dropJob(job.id);
    }
  }

  /** The job's scratch objects, all of them. */
  async dropJob(jobId: string): Promise<void> {
    await this.d.store
      .deletePrefix(jobScratchPrefix(jobId))
      .catch((e: unknown) => this.d.log.warn({ err: e, job_id: jobId }, 'scratch not deleted'));
  }

  /**
   * One chunk task: skipped when its job has ended (no manifest) or the chunk is stored already;
   * else its clips fetched and probed, the chunk rendered in `dir` and stored with its record.
   */
  async renderTask(t: assemblyEvents.RenderChunk, dir: string, signal: AbortSignal): Promise<'done' | 'skipped'> {
    const k = keys(t.jobId, t.planKey);
    if (!(await this.d.store.stat(k.manifest)) || (await this.d.store.stat(k.record(t.index)))) return 'skipped';
    const body = JSON.parse(t.taskJson) as ChunkTaskBody;
    const settings = parseSettings(body.request);
    const segs = body.plan.segments.slice(body.batch.first, body.batch.end);
    const clips: MediaInfo[] = [];
    for (const c of new Set(segs.map((s) => s.clip))) {
      const key = body.clipKeys[c]!;
      const file = await download(this.d.store, key, path.join(dir, `in-${c}${path.extname(key)}`));
      const known = body.media?.[c];
      clips[c] = known ? { ...known, path: file } : await probe(file, 'clip');
    }
    const { title, fontEnv } = prepareTitle(settings, body.plan, dir);
    const output = path.join(dir, `chunk-${pad(t.index)}.mp4`);
    const thumbFile = path.join(dir, 'thumb.jpg');
    const started = Date.now();
    const r = await this.d.heavy.run(() => {
      if (signal.aborted) throw cancelledError();
      return renderChunk(
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
        },
        chunkLimits(body.batch.frames / body.plan.fps, clips, this.d.threads, signal),
      );
    });
    if (r.thumbnail) await this.d.store.put(k.thumbnail, fs.createReadStream(thumbFile), { contentType: 'image/jpeg' });
    await this.d.store.put(k.chunk(t.index), fs.createReadStream(output), { contentType: 'video/mp4' });
    const record: ChunkRecord = {
      index: t.index,
      frames: r.frames,
      worker: WORKER_NAME,
      seconds: (Date.now() - started) / 1000,
      thumbnail: r.thumbnail,
    };
    // The record last: a coordinator that sees it finds the chunk complete.
    await this.d.store.put(k.record(t.index), Buffer.from(JSON.stringify(record)), { contentType: 'application/json' });
    // The job ended meanwhile (its scratch was dropped before this chunk was stored): drop it again.
    if (!(await this.d.store.stat(k.manifest))) await this.dropJob(t.jobId);
    return 'done';
  }

  /** A chunk failed on its last delivery: the coordinator fails the job (once). */
  async chunkFailed(t: assemblyEvents.RenderChunk, reason: string): Promise<void> {
    const k = keys(t.jobId, t.planKey);
    // Only a failure of the attempt being coordinated counts: the chunks of an attempt handed
    // back are retried by the next coordinator.
    const current = async () => (await readJson<{ attempt: number }>(this.d.store, k.manifest))?.attempt === t.attempt;
    if (!(await current())) return;
    await this.d.store.put(k.failed, Buffer.from(JSON.stringify({ index: t.index, reason })), { contentType: 'application/json' });
    // The job ended meanwhile (another chunk's failure ended it first): drop what this wrote.
    if (!(await this.d.store.stat(k.manifest))) await this.dropJob(t.jobId);
  }
}

/** A chunk's generous overall cap, from its length, its clips' size and the threads (renderLimits). */
function chunkLimits(chunkSec: number, clips: MediaInfo[], threads: number | undefined, signal: AbortSignal) {
  const l = renderLimits({ reelSec: chunkSec, inputBytes: clips.reduce((sum, m) => sum + (m?.sizeBytes ?? 0), 0), threads });
  return { timeoutMs: l.capMs, capReason: `overall cap ${Math.round(l.capMs / 1000)} s, ${l.capReason}`, stallMs: l.stallMs, signal };
}
