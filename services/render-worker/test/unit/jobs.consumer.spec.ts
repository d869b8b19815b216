import type { Bus, ConsumerOptions, Delivery, Outcome, RunningConsumer } from '@reelsmith/kit';
import { streams } from '@reelsmith/proto';
import { CANCELLED_BY_USER, type RenderJobService, type RunOutcome } from '../../src/domain/render-job.service';
import { RenderJobsConsumer } from '../../src/transport/jobs.consumer';

/**
 * The consumer's one job: turn what became of a delivery into what happens to the message.
 * The bus and the job service are stand-ins; JetStream itself is covered by the kit's medium tests.
 */

type Work = { jobId: string };

/** A bus that hands the test the consumer's handler and options instead of pulling from NATS. */
class FakeBus {
  handler?: (d: Delivery<Work>) => Promise<Outcome>;
  opts?: ConsumerOptions<Work>;
  subject?: string;
  stopped = 0;
  /** The subscriber of jobs.<id>.cancel (core NATS). */
  onCancel?: (m: { jobId: string }) => void;
  subscribeJobCancel(fn: (m: { jobId: string }) => void) {
    this.onCancel = fn;
    return { unsubscribe: () => (this.onCancel = undefined) };
  }
  published: { subject: string; message: unknown; msgId: string }[] = [];
  async publish(subject: string, message: unknown, opts: { msgId: string }) {
    this.published.push({ subject, message, msgId: opts.msgId });
    return { seq: this.published.length, duplicate: false };
  }
  async consume(subject: string, opts: ConsumerOptions<Work>, handler: (d: Delivery<Work>) => Promise<Outcome>): Promise<RunningConsumer> {
    this.subject = subject;
    this.opts = opts;
    this.handler = handler;
    return { stop: async () => void this.stopped++, inFlight: () => 0 };
  }
}

const delivery = (jobId: string, deliveryCount = 1, maxDeliver = 5): Delivery<Work> => ({
  data: { jobId },
  subject: 'render.jobs',
  msgId: `render.${jobId}`,
  deliveryCount,
  maxDeliver,
  lastAttempt: deliveryCount >= maxDeliver,
  working: () => undefined,
});

/** The job service, answering each run with a scripted outcome (or error). */
class ScriptedJobs {
  readonly runs: Array<{ jobId: string; attempt: number; signal: AbortSignal }> = [];
  readonly givenUp: Array<{ jobId: string; attempt: number; err: unknown }> = [];
  answer: (signal: AbortSignal) => Promise<RunOutcome> = async () => ({ kind: 'done' });
  async run(jobId: string, attempt: number, signal: AbortSignal) {
    this.runs.push({ jobId, attempt, signal });
    return this.answer(signal);
  }
  async giveUp(jobId: string, attempt: number, err: unknown) {
    this.givenUp.push({ jobId, attempt, err });
  }
}

async function started() {
  const bus = new FakeBus();
  const jobs = new ScriptedJobs();
  const consumer = new RenderJobsConsumer(bus as unknown as Bus, jobs as unknown as RenderJobService, {
    ackWaitMs: 30_000,
    maxDeliver: 5,
    concurrency: 2,
  });
  await consumer.start();
  return { bus, jobs, consumer, handle: (d: Delivery<Work>) => bus.handler!(d) };
}

describe('RenderJobsConsumer', () => {
  it('pulls render jobs from the RENDER work queue with the configured bound on deliveries', async () => {
    const { bus } = await started();
    expect(bus.subject).toBe('render.jobs');
    expect(bus.opts).toMatchObject({ stream: streams.RENDER, ackWaitMs: 30_000, maxDeliver: 5, concurrency: 2 });
  });

  it.each<[RunOutcome, Outcome]>([
    [{ kind: 'done' }, { kind: 'ack' }],
    [{ kind: 'skipped' }, { kind: 'ack' }],
    [{ kind: 'handed_back' }, { kind: 'retry', delayMs: 0 }],
    [
      { kind: 'rejected', code: 'NOT_MEDIA' },
      { kind: 'drop', reason: 'NOT_MEDIA' },
    ],
  ])('a run that ends %o becomes %o', async (outcome, expected) => {
    const { jobs, handle } = await started();
    jobs.answer = async () => outcome;
    expect(await handle(delivery('job-1', 3))).toEqual(expected);
    expect(jobs.runs.map(({ jobId, attempt }) => ({ jobId, attempt }))).toEqual([{ jobId: 'job-1', attempt: 3 }]);
  });

  it('lets a crash propagate, so the bus retries it with backoff', async () => {
    const { jobs, handle } = await started();
    const err = new Error('object storage down');
    jobs.answer = async () => {
      throw err;
    };
    await expect(handle(delivery('job-2', 1))).rejects.toBe(err);
    expect(jobs.givenUp).toEqual([]);
  });

  it('gives the job up (failed and refunded) when the bus dead-letters its last delivery', async () => {
    const { bus, jobs } = await started();
    const err = new Error('ffmpeg exited 139');
    await bus.opts!.onDeadLetter!(delivery('job-3', 5), err);
    expect(jobs.givenUp).toEqual([{ jobId: 'job-3', attempt: 5, err }]);
    // The dashboard's dead-letter fact, once per job however often it is given up.
    expect(bus.published).toEqual([
      {
        subject: 'events.render.dead_lettered',
        message: expect.objectContaining({ jobId: 'job-3', attempt: 5 }),
        msgId: 'render.dead_lettered.job-3',
      },
    ]);
  });

  it("a user's cancel aborts that job's render (not the others) and its delivery is acked, not handed back", async () => {
    const { bus, jobs, handle } = await started();
    jobs.answer = (signal) =>
      new Promise((resolve) =>
        signal.addEventListener(
          'abort',
          () => resolve(signal.reason === CANCELLED_BY_USER ? { kind: 'cancelled' } : { kind: 'handed_back' }),
          {
            once: true,
          },
        ),
      );
    const a = handle(delivery('job-a', 1));
    void handle(delivery('job-b', 1));
    bus.onCancel!({ jobId: 'job-a' });
    expect(await a).toEqual({ kind: 'ack' });
    expect(jobs.runs.map((r) => [r.jobId, r.signal.aborted])).toEqual([
      ['job-a', true],
      ['job-b', false],
    ]);
  });

  it('on stop, aborts the running render, and hands back deliveries that arrive afterwards without running them', async () => {
    const { bus, jobs, consumer, handle } = await started();
    jobs.answer = (signal) =>
      new Promise((resolve) => signal.addEventListener('abort', () => resolve({ kind: 'handed_back' }), { once: true }));
    const running = handle(delivery('job-4', 1));
    expect(jobs.runs).toHaveLength(1);
    expect(jobs.runs[0]?.signal.aborted).toBe(false);

    await consumer.stop();
    expect(jobs.runs[0]?.signal.aborted).toBe(true);
    expect(await running).toEqual({ kind: 'retry', delayMs: 0 });
    expect(bus.stopped).toBe(1);

    expect(await handle(delivery('job-5', 1))).toEqual({ kind: 'retry', delayMs: 0 });
    expect(jobs.runs.map((r) => r.jobId)).toEqual(['job-4']);
  });
});
