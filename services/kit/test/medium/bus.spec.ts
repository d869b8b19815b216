import type { StreamSpec } from '@reelsmith/proto';
import { Bus, ack, drop, retry, type Delivery } from '../../src/bus';
import { createMetrics } from '../../src/metrics';
import { TEST_NATS_URL, natsPrefix, quietLogger, waitFor } from '../../src/testing';
import type { assemblyEvents } from '@reelsmith/proto';
import { ROOT_CONTEXT } from '@opentelemetry/api';
import { currentTraceId, inSpan, startTracing } from '../../src/tracing';

type RenderJob = assemblyEvents.RenderJob;

const work: StreamSpec = {
  name: 'RENDER',
  subjects: ['render.jobs'],
  retention: 'workqueue',
  duplicateWindowMs: 60_000,
  maxAgeMs: 3600_000,
};
const events: StreamSpec = { name: 'EVENTS', subjects: ['events.>'], retention: 'limits', duplicateWindowMs: 60_000, maxAgeMs: 3600_000 };

describe('bus on real NATS JetStream', () => {
  let bus: Bus;
  let prefix: string;
  beforeEach(async () => {
    prefix = natsPrefix();
    bus = await Bus.connect({ url: TEST_NATS_URL, name: 'test', log: quietLogger(), prefix });
    await bus.ensureStream(work);
    await bus.ensureStream(events);
  });
  afterEach(async () => {
    await bus.deleteStream(work);
    await bus.deleteStream(events);
    await bus.close();
  });

  it('drops a second message with the same id inside the duplicate window', async () => {
    const a = await bus.publish('render.jobs', { jobId: 'j1', userId: 'u1' }, { msgId: 'job-j1' });
    const b = await bus.publish('render.jobs', { jobId: 'j1', userId: 'u1' }, { msgId: 'job-j1' });
    expect(a.duplicate).toBe(false);
    expect(b.duplicate).toBe(true);
    const seen: string[] = [];
    const c = await bus.consume('render.jobs', { stream: work, durable: 'w', ackWaitMs: 2000, maxDeliver: 3 }, async (d) => {
      seen.push(d.data.jobId);
      return ack();
    });
    await waitFor(() => seen.length >= 1);
    await new Promise((r) => setTimeout(r, 500));
    await c.stop();
    expect(seen).toEqual(['j1']);
  });

  it('redelivers a message its handler hands back', async () => {
    await bus.publish('render.jobs', { jobId: 'j2', userId: 'u1' }, { msgId: 'job-j2' });
    const deliveries: number[] = [];
    const c = await bus.consume('render.jobs', { stream: work, durable: 'w', ackWaitMs: 1000, maxDeliver: 5 }, async (d) => {
      deliveries.push(d.deliveryCount);
      // First delivery: the handler hands the message back (as a worker does on shutdown).
      if (d.deliveryCount === 1) return retry(0);
      return ack();
    });
    await waitFor(() => deliveries.length >= 2, 10_000);
    await c.stop();
    expect(deliveries.slice(0, 2)).toEqual([1, 2]);
  });

  it('redelivers to another consumer when the first never answers (crash)', async () => {
    await bus.publish('render.jobs', { jobId: 'j3', userId: 'u1' }, { msgId: 'job-j3' });
    // A raw pull that takes the message and then never acks or signals progress.
    const jsm = await bus.nc.jetstreamManager();
    await jsm.consumers.add(bus.streamName(work), {
      durable_name: 'w',
      ack_policy: 'explicit' as never,
      ack_wait: 1_000_000_000,
      max_deliver: 5,
      filter_subject: bus.subject('render.jobs'),
    });
    const crashed = await (await bus.nc.jetstream().consumers.get(bus.streamName(work), 'w')).next({ expires: 2000 });
    expect(crashed?.info.deliveryCount).toBe(1);
    const got: Delivery<RenderJob>[] = [];
    const c = await bus.consume('render.jobs', { stream: work, durable: 'w', ackWaitMs: 1000, maxDeliver: 5 }, async (d) => {
      got.push(d);
      return ack();
    });
    await waitFor(() => got.length >= 1, 10_000);
    await c.stop();
    expect(got).toHaveLength(1);
    expect(got[0]!.data.jobId).toBe('j3');
    // The server's own count: the one message went out twice (to the crashed pull, then to the
    // live consumer) and nothing is left pending. The delivery count JetStream 2.9 puts in a
    // redelivered message's reply subject is sometimes one behind under load, so it is not used here.
    const info = await jsm.consumers.info(bus.streamName(work), 'w');
    expect(info.delivered.stream_seq).toBe(1);
    expect(info.delivered.consumer_seq).toBe(2);
    expect(info.num_ack_pending).toBe(0);
    expect(info.num_pending).toBe(0);
  });

  it('an idle consumer stops at once (its long pull is not waited for); the next one gets what comes after', async () => {
    const first = await bus.consume('render.jobs', { stream: work, durable: 'w', ackWaitMs: 5000, maxDeliver: 3 }, async () => ack());
    await new Promise((r) => setTimeout(r, 200)); // its pull is waiting on the server
    const started = Date.now();
    await first.stop();
    expect(Date.now() - started).toBeLessThan(1000);
    await bus.publish('render.jobs', { jobId: 'after', userId: 'u1' }, { msgId: 'job-after' });
    const seen: string[] = [];
    const next = await bus.consume('render.jobs', { stream: work, durable: 'w', ackWaitMs: 5000, maxDeliver: 3 }, async (d) => {
      seen.push(d.data.jobId);
      return ack();
    });
    await waitFor(() => seen.length > 0, 5000);
    await next.stop();
    expect(seen).toEqual(['after']);
  });

  it('never redelivers a message its handler drops', async () => {
    await bus.publish('render.jobs', { jobId: 'bad', userId: 'u1' }, { msgId: 'job-bad' });
    const deliveries: number[] = [];
    const c = await bus.consume('render.jobs', { stream: work, durable: 'w', ackWaitMs: 500, maxDeliver: 5 }, async (d) => {
      deliveries.push(d.deliveryCount);
      return drop('not a render job');
    });
    await waitFor(() => deliveries.length >= 1);
    // Several ack waits and the shortest retry back-off: a message left unanswered would be back.
    await new Promise((r) => setTimeout(r, 2500));
    await c.stop();
    expect(deliveries).toEqual([1]);
    const info = await (await bus.nc.jetstreamManager()).consumers.info(bus.streamName(work), 'w');
    expect(info.num_ack_pending).toBe(0);
  });

  it('keeps a long job alive with in-progress acks instead of redelivering it', async () => {
    await bus.publish('render.jobs', { jobId: 'j4', userId: 'u1' }, { msgId: 'job-j4' });
    let deliveries = 0;
    const c = await bus.consume('render.jobs', { stream: work, durable: 'w', ackWaitMs: 800, maxDeliver: 5 }, async () => {
      deliveries += 1;
      await new Promise((r) => setTimeout(r, 3000)); // almost four ack waits
      return ack();
    });
    await waitFor(() => deliveries >= 1);
    await new Promise((r) => setTimeout(r, 3500));
    await c.stop();
    expect(deliveries).toBe(1);
  });

  it('stops after a bounded number of deliveries and dead-letters the message once', async () => {
    await bus.publish('render.jobs', { jobId: 'poison', userId: 'u1' }, { msgId: 'job-poison' });
    const counts: number[] = [];
    const dead: string[] = [];
    const c = await bus.consume(
      'render.jobs',
      { stream: work, durable: 'w', ackWaitMs: 2000, maxDeliver: 3, onDeadLetter: async (d) => void dead.push(d.data.jobId) },
      async (d) => {
        counts.push(d.deliveryCount);
        throw new Error('ffmpeg failed');
      },
    );
    await waitFor(() => dead.length >= 1, 15_000);
    await new Promise((r) => setTimeout(r, 1500));
    await c.stop();
    // Three deliveries in all, the last one counted as the third (JetStream's delivery count is
    // occasionally reported late on the middle one under load, so only the bound and the end are asserted).
    expect(counts).toHaveLength(3);
    expect(counts[2]).toBe(3);
    expect(dead).toEqual(['poison']);
  });

  it('goes on with the next message when the dead-letter handler itself fails, and counts it', async () => {
    const metrics = createMetrics('test');
    const counted = await Bus.connect({ url: TEST_NATS_URL, name: 'test-metrics', log: quietLogger(), prefix, metrics });
    await counted.publish('render.jobs', { jobId: 'poison', userId: 'u1' }, { msgId: 'job-poison' });
    const seen: string[] = [];
    const c = await counted.consume(
      'render.jobs',
      {
        stream: work,
        durable: 'w',
        ackWaitMs: 2000,
        maxDeliver: 1,
        onDeadLetter: async () => {
          throw new Error('storage gone');
        },
      },
      async (d) => {
        if (d.data.jobId === 'poison') throw new Error('ffmpeg failed');
        seen.push(d.data.jobId);
        return ack();
      },
    );
    await new Promise((r) => setTimeout(r, 300));
    await counted.publish('render.jobs', { jobId: 'next', userId: 'u1' }, { msgId: 'job-next' });
    await waitFor(() => seen.length >= 1, 5_000);
    await c.stop();
    await counted.close();
    expect(seen).toEqual(['next']);
    const outcomes = (await metrics.natsHandlerSeconds.get()).values
      .filter((v) => v.metricName === 'nats_handler_seconds_count')
      .map((v) => [v.labels.outcome, v.value]);
    expect(outcomes).toEqual(
      expect.arrayContaining([
        ['dead_letter_failed', 1],
        ['ack', 1],
      ]),
    );
  });

  it('carries trace context in headers and delivers events on the events stream', async () => {
    startTracing('test');
    let publishedTrace: string | undefined;
    await inSpan('publisher', ROOT_CONTEXT, async () => {
      publishedTrace = currentTraceId();
      await bus.publish('events.job.completed', { jobId: 'j5', userId: 'u1', outputKey: 'reels/x.mp4' }, { msgId: 'completed-j5' });
    });
    expect(publishedTrace).toMatch(/^[0-9a-f]{32}$/);
    let consumedTrace: string | undefined;
    const jsm = await bus.nc.jetstreamManager();
    const info = await jsm.streams.info(bus.streamName(events));
    expect(info.state.messages).toBe(1);
    const got: string[] = [];
    const c = await bus.consume('events.job.completed', { stream: events, durable: 'tele', ackWaitMs: 2000, maxDeliver: 3 }, async (d) => {
      got.push(d.data.outputKey);
      consumedTrace = currentTraceId();
      return ack();
    });
    await waitFor(() => got.length === 1);
    await c.stop();
    expect(got).toEqual(['reels/x.mp4']);
    expect(consumedTrace).toBe(publishedTrace);
  });

  it('fans job status out to subscribers on core NATS', async () => {
    const seen: number[] = [];
    bus.subscribeCore('jobStatus', (m) => seen.push(m.progress));
    bus.publishCore('jobStatus', { jobId: 'j6', status: 'processing', progress: 40 });
    bus.publishCore('jobStatus', { jobId: 'j6', status: 'processing', progress: 60 });
    await waitFor(() => seen.length === 2);
    expect(seen).toEqual([40, 60]);
  });

  it("publishes each core kind on its own subject, which only that kind's subscribers hear", async () => {
    const raw: string[] = [];
    bus.subscribeFacts('>', (subject) => raw.push(subject));
    const statuses: string[] = [];
    const cancels: string[] = [];
    const revoked: string[][] = [];
    bus.subscribeCore('jobStatus', (m) => statuses.push(m.jobId));
    bus.subscribeJobCancel((m) => cancels.push(`${m.jobId}/${m.userId}`));
    bus.subscribeCore('sessionsRevoked', (m) => revoked.push(m.tokenHashes));
    await bus.flush();
    bus.publishCore('jobCancel', { jobId: 'j7', userId: 'u7', cancelledAtUnixMs: 1n });
    bus.publishCore('sessionsRevoked', { tokenHashes: ['h1', 'h2'], userId: 'u7', atUnixMs: 2n });
    bus.publishCore('jobStatus', { jobId: 'j8', status: 'queued' });
    await waitFor(() => raw.length === 3 && statuses.length === 1 && cancels.length === 1 && revoked.length === 1);
    expect(raw.sort()).toEqual(['jobs.j7.cancel', 'jobs.j8.status', 'sessions.revoked']);
    expect(statuses).toEqual(['j8']);
    expect(cancels).toEqual(['j7/u7']);
    expect(revoked).toEqual([['h1', 'h2']]);
  });

  it('skips a core message that does not decode and keeps listening', async () => {
    const seen: string[] = [];
    bus.subscribeCore('jobStatus', (m) => seen.push(m.jobId));
    await bus.flush();
    // Not a JobStatus: field 1 announced as a length-delimited string longer than the bytes left.
    bus.nc.publish(bus.subject('jobs.bad.status'), new Uint8Array([0x0a, 0x7f, 0x01]));
    bus.publishCore('jobStatus', { jobId: 'j9', status: 'processing' });
    await waitFor(() => seen.length === 1);
    await bus.flush();
    expect(seen).toEqual(['j9']);
  });
});
