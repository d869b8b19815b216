import { ack, retry, type Bus, type Logger, type RunningConsumer } from '@reelsmith/kit';
import { streams } from '@reelsmith/proto';
import { CANCELLED_BY_USER, type Scratch } from '../domain/render-job.service.js';
import type { ChunkTaskService } from '../domain/chunk-task.service.js';
import { decodeChunkTask } from '../repositories/chunk-queue.js';
import type { ConsumerSettings } from './jobs.consumer.js';

/**
 * Pulls chunk tasks of long reels from `render.chunks` (any job's) beside the jobs: rendered and
 * stored -> ack; the job ended or the chunk is stored already -> ack; the user cancelled the job
 * -> its chunk stops at once and is acked; shutdown -> redeliver at once; anything thrown ->
 * retry with backoff, and after the last allowed delivery the chunk is marked failed for the
 * job's coordinator, which fails the job once. Each task gets its own scratch folder. A job that
 * ends without a reel (`jobs.<id>.cancel`: cancelled or failed) stops its chunks everywhere.
 */
export class RenderChunksConsumer {
  private consumer?: RunningConsumer;
  private readonly running = new Map<AbortController, string>();
  private cancels?: { unsubscribe(): void };
  /** Jobs cancelled lately: their chunk tasks still queued are dropped without a look. */
  private readonly cancelled = new Set<string>();
  private stopping = false;

  constructor(
    private readonly bus: Bus,
    private readonly chunks: ChunkTaskService,
    private readonly scratch: Scratch,
    private readonly s: ConsumerSettings,
    private readonly log: Logger,
  ) {}

  async start(): Promise<void> {
    // The job ended without a reel (cancelled, or failed: a chunk failed for good, or the
    // orchestrator gave up on a dead coordinator): its chunks stop here and its scratch goes, even
    // when no coordinator is left to delete it.
    this.cancels = this.bus.subscribeJobCancel((m) => {
      this.cancelled.add(m.jobId);
      if (this.cancelled.size > 1000) this.cancelled.delete(this.cancelled.values().next().value!);
      for (const [c, jobId] of this.running) if (jobId === m.jobId) c.abort(CANCELLED_BY_USER);
      void this.chunks.dropJob(m.jobId);
    });
    this.consumer = await this.bus.consume(
      'render.chunks',
      {
        stream: streams.RENDER,
        durable: 'render-chunk-workers',
        ackWaitMs: this.s.ackWaitMs,
        maxDeliver: this.s.maxDeliver,
        concurrency: this.s.concurrency,
        onDeadLetter: async (d, err) => {
          await this.chunks.failed(d.data, err instanceof Error ? err.message : String(err));
        },
      },
      async (d) => {
        if (this.stopping) return retry(0);
        if (this.cancelled.has(d.data.jobId)) return ack();
        const controller = new AbortController();
        this.running.set(controller, d.data.jobId);
        const log = this.log.child({ job_id: d.data.jobId, chunk: d.data.index, delivery: d.deliveryCount });
        const dir = await this.scratch.create();
        try {
          const outcome = await this.chunks.render(d.data, decodeChunkTask(d.data), dir, controller.signal);
          log.info({ outcome }, 'chunk task');
          return ack();
        } catch (e) {
          if (controller.signal.aborted && controller.signal.reason === CANCELLED_BY_USER) {
            log.info('chunk stopped: the job was cancelled');
            return ack();
          }
          if (controller.signal.aborted) return retry(0);
          throw e;
        } finally {
          this.running.delete(controller);
          await this.scratch.remove(dir);
        }
      },
    );
  }

  /** Stops pulling, hands the running chunks back, waits for their handlers to return. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.cancels?.unsubscribe();
    for (const c of this.running.keys()) c.abort();
    await this.consumer?.stop();
  }
}
