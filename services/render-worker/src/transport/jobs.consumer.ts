import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import {
  LocalObjectStore,
  ack,
  drop,
  retry,
  type Bus,
  type Delivery,
  type Logger,
  type ObjectStore,
  type RunningConsumer,
} from '@reelsmith/kit';
import { streams, type assemblyEvents } from '@reelsmith/proto';
import { engineSettings, isPermanent, throttle } from '../domain/render-job.js';
import type { ClipAnalysis } from '@reelsmith/engine';
import type { MusicAnalysis } from '@reelsmith/engine';
import { isEngineError } from '@reelsmith/engine';
import { renderReel } from '@reelsmith/engine';
import type { WorkerPeers } from '../repositories/peers.js';

export interface WorkerDeps {
  bus: Bus;
  store: ObjectStore;
  peers: WorkerPeers;
  log: Logger;
  workDir: string;
  ackWaitMs: number;
  maxDeliver: number;
  concurrency: number;
}

/**
 * The render worker: pulls jobs from the RENDER work queue. For each: take the job (skip it if it
 * finished already), fetch the inputs and their cached analyses, render, store the reel and its
 * thumbnail, publish events.job.completed, and only then ack. In-progress acks keep the delivery
 * alive while rendering. On shutdown the running render is stopped and the job handed back.
 */
export class RenderWorker {
  private consumer?: RunningConsumer;
  private readonly running = new Set<AbortController>();
  private stopping = false;

  constructor(private readonly d: WorkerDeps) {}

  async start(): Promise<void> {
    this.consumer = await this.d.bus.consume(
      'render.jobs',
      {
        stream: streams.RENDER,
        durable: 'render-workers',
        ackWaitMs: this.d.ackWaitMs,
        maxDeliver: this.d.maxDeliver,
        concurrency: this.d.concurrency,
        // Failed on its last allowed delivery: the job ends failed (and is refunded). No reason is
        // given: the cause is ours, and the orchestrator words that for the user.
        onDeadLetter: async (del, err) => {
          this.d.log.error({ job_id: del.data.jobId, err }, 'job failed on every delivery');
          await this.fail(del.data.jobId, del.data.userId, '');
        },
      },
      (del) => this.handle(del),
    );
  }

  /** Stops pulling, hands the running job back, waits for the handler to return. */
  async stop(): Promise<void> {
    this.stopping = true;
    for (const c of this.running) c.abort();
    await this.consumer?.stop();
  }

  private async fail(jobId: string, userId: string, reason: string): Promise<void> {
    await this.d.bus.publish(
      'events.job.failed',
      { jobId, userId, reason, failedAtUnixMs: BigInt(Date.now()) },
      { msgId: `job.failed.${jobId}` },
    );
    this.d.bus.publishProgress(jobId, { jobId, status: 'failed', progress: 0, message: reason });
  }

  private async handle(del: Delivery<assemblyEvents.RenderJob>) {
    const { jobId } = del.data;
    const log = this.d.log.child({ job_id: jobId, delivery: del.deliveryCount });
    if (this.stopping) return retry(0);
    const { started, job } = await this.d.peers.orchestrator.startJob({ jobId });
    if (!started || !job) {
      log.info('job finished already; message dropped');
      return ack();
    }
    const controller = new AbortController();
    this.running.add(controller);
    const dir = await fs.promises.mkdtemp(path.join(this.d.workDir, 'reelsmith-job-'));
    try {
      const request = JSON.parse(job.requestJson) as Record<string, unknown> & { media_files: string[]; music_file?: string | null };
      const keys = [...request.media_files, ...(request.music_file ? [request.music_file] : [])];
      const { items } = await this.d.peers.media.getMedia({ ownerId: job.ownerId, objectKeys: keys });
      const files = await Promise.all(keys.map((k, i) => this.localFile(k, path.join(dir, `in-${i}${path.extname(k)}`))));
      const analyses = items.map((m) =>
        m.analysisStatus === 'done' && m.analysisJson ? (JSON.parse(m.analysisJson) as unknown) : undefined,
      );
      const clipCount = request.media_files.length;

      const report = throttle(500, (p, stage) => {
        const message = stage === 'rendering' ? 'Processing' : stage === 'finalizing' || stage === 'done' ? 'Finalizing' : 'Initializing';
        this.d.bus.publishProgress(jobId, { jobId, status: 'processing', progress: Math.min(p, 99), message });
      });
      let lastSaved = 0;
      const result = await renderReel({
        clips: files.slice(0, clipCount),
        music: request.music_file ? files[clipCount] : undefined,
        settings: engineSettings(request),
        output: path.join(dir, 'reel.mp4'),
        thumbnail: path.join(dir, 'reel.jpg'),
        analyses: {
          clips: analyses.slice(0, clipCount) as Array<ClipAnalysis | undefined>,
          music: request.music_file ? (analyses[clipCount] as MusicAnalysis | undefined) : undefined,
        },
        signal: controller.signal,
        tmpRoot: dir,
        onProgress: (p, stage) => {
          report(p, stage);
          if (Date.now() - lastSaved > 1000) {
            lastSaved = Date.now();
            void this.d.peers.orchestrator.updateProgress({ jobId, progress: Math.min(p, 99), message: stage }).catch(() => undefined);
          }
        },
      });
      // Store first; the completion fact and the ack come only after the reel is safe.
      const outputKey = `reels/${job.ownerId}/${jobId}.mp4`;
      const thumbnailKey = `reels/${job.ownerId}/${jobId}.jpg`;
      const stored = await this.d.store.put(outputKey, fs.createReadStream(result.output), { contentType: 'video/mp4' });
      await this.d.store.put(thumbnailKey, fs.createReadStream(result.thumbnail), { contentType: 'image/jpeg' });
      await this.d.bus.publish(
        'events.job.completed',
        {
          jobId,
          userId: job.ownerId,
          outputKey,
          thumbnailKey,
          durationSeconds: result.durationSec,
          sizeBytes: BigInt(stored.size),
          completedAtUnixMs: BigInt(Date.now()),
          attempt: del.deliveryCount,
        },
        { msgId: `job.completed.${jobId}` },
      );
      this.d.bus.publishProgress(jobId, { jobId, status: 'completed', progress: 100, message: 'Complete' });
      log.info({ seconds: result.durationSec, bytes: stored.size }, 'job rendered');
      return ack();
    } catch (e) {
      if (isEngineError(e) && e.code === 'CANCELLED') {
        log.info('shutting down; job handed back');
        return retry(0);
      }
      if (isEngineError(e) && isPermanent(e.code)) {
        log.warn({ err: e }, 'job input cannot be rendered');
        await this.fail(jobId, job.ownerId, e.message);
        return drop(e.code);
      }
      throw e; // retried with backoff; dead-lettered after the last delivery
    } finally {
      this.running.delete(controller);
      await fs.promises.rm(dir, { recursive: true, force: true });
    }
  }

  /** A local path for an object: the file itself on local disk, a download otherwise. */
  private async localFile(key: string, target: string): Promise<string> {
    if (this.d.store instanceof LocalObjectStore) return this.d.store.pathOf(key);
    await pipeline(await this.d.store.get(key), fs.createWriteStream(target));
    return target;
  }
}
