import { ack, drop, extractTrace, inSpan, retry, type Bus, type Metrics, type RunningConsumer } from '@reelsmith/kit';
import { streams } from '@reelsmith/proto';
import { CANCELLED_BY_USER, type RenderJobService } from '../domain/render-job.service.js';

export interface ConsumerSettings {
  ackWaitMs: number;
  maxDeliver: number;
  concurrency: number;
}

/**
 * Pulls render jobs from the RENDER work queue and maps what became of each delivery to the
 * message: done or skipped -> ack, handed back on shutdown -> redeliver at once, input that
 * cannot be rendered -> drop, anything thrown -> retry with backoff, and after the last allowed
 * delivery the job is given up (failed and refunded). In-progress acks keep a long render alive.
 */
export class RenderJobsConsumer {
  private consumer?: RunningConsumer;
  private readonly running = new Set<AbortController>();
  /** The job each running delivery renders, to stop it when the user cancels. */
  private readonly byJob = new Map<string, AbortController>();
  private cancels?: { unsubscribe(): void };
  private stopping = false;

  constructor(
    private readonly bus: Bus,
    private readonly jobs: RenderJobService,
    private readonly s: ConsumerSettings,
    private readonly metrics?: Metrics,
  ) {}

  async start(): Promise<void> {
    // A job that ended without a reel (cancelled, or failed meanwhile) stops at once (ffmpeg is
    // killed); its delivery is then acked.
    this.cancels = this.bus.subscribeJobCancel((m) => this.byJob.get(m.jobId)?.abort(CANCELLED_BY_USER));
    this.consumer = await this.bus.consume(
      'render.jobs',
      {
        stream: streams.RENDER,
        durable: 'render-workers',
        ackWaitMs: this.s.ackWaitMs,
        maxDeliver: this.s.maxDeliver,
        concurrency: this.s.concurrency,
        onDeadLetter: async (d, err) => {
          this.metrics?.renderDeadLetters.inc();
          await this.jobs.giveUp(d.data.jobId, d.deliveryCount, err);
          // The dashboard's dead-letter count; the id makes a repeated give-up count once.
          await this.bus
            .publish(
              'events.render.dead_lettered',
              { jobId: d.data.jobId, attempt: d.deliveryCount, atUnixMs: BigInt(Date.now()) },
              { msgId: `render.dead_lettered.${d.data.jobId}` },
            )
            .catch(() => undefined);
        },
      },
      async (d) => {
        if (this.stopping) return retry(0);
        const controller = new AbortController();
        this.running.add(controller);
        this.byJob.set(d.data.jobId, controller);
        if (d.deliveryCount === 1 && d.data.queuedAtUnixMs > 0n)
          this.metrics?.renderQueueWaitSeconds.observe(Math.max(0, Date.now() - Number(d.data.queuedAtUnixMs)) / 1000);
        const endTimer = this.metrics?.renderSeconds.startTimer();
        try {
          // The render continues the trace of the request that submitted the job.
          const parent = extractTrace({ traceparent: d.data.traceparent || undefined });
          const outcome = await inSpan('render job', parent, () => this.jobs.run(d.data.jobId, d.deliveryCount, controller.signal));
          endTimer?.({ outcome: outcome.kind });
          switch (outcome.kind) {
            case 'done':
            case 'skipped':
            case 'cancelled':
              return ack();
            case 'handed_back':
              return retry(0);
            case 'rejected':
              return drop(outcome.code);
          }
        } finally {
          this.running.delete(controller);
          if (this.byJob.get(d.data.jobId) === controller) this.byJob.delete(d.data.jobId);
        }
      },
    );
  }

  /** Stops pulling, hands the running jobs back, waits for their handlers to return. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.cancels?.unsubscribe();
    for (const c of this.running) c.abort();
    await this.consumer?.stop();
  }
}
