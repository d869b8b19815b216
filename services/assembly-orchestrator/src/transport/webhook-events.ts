import { ack, retry, type Bus, type Logger, type RunningConsumer } from '@reelsmith/kit';
import { streams } from '@reelsmith/proto';
import type { DeliveryQueue, WebhooksService } from '../domain/webhooks/webhooks.service.js';

/** The WEBHOOKS work queue: one message per delivery and round (JetStream drops a repeat). */
export const busDeliveryQueue = (bus: Bus): DeliveryQueue => ({
  enqueue: async (deliveryId, round) => {
    await bus.publish('webhooks.deliveries', { deliveryId, round }, { msgId: `${deliveryId}:${round}` });
  },
});

/**
 * Webhooks' durable consumers: each job fact (completed, failed, cancelled) becomes deliveries;
 * each delivery is tried from the WEBHOOKS work queue, and a failed try goes back on it with the
 * back-off's delay (the message stays in the stream until done: a restart loses none). The tries
 * are counted in the database, so JetStream's own redelivery limit is set far above them.
 */
export async function startWebhookConsumers(bus: Bus, svc: WebhooksService, log: Logger): Promise<RunningConsumer[]> {
  const facts = { stream: streams.EVENTS, ackWaitMs: 30_000, maxDeliver: 20 };
  const completed = await bus.consume(
    'events.job.completed',
    { ...facts, durable: 'orchestrator-webhooks-completed' },
    async ({ data }) => {
      await svc.onJobFact({
        type: 'job.completed',
        jobId: data.jobId,
        ownerId: data.userId,
        at: new Date(Number(data.completedAtUnixMs)),
        durationSec: data.durationSeconds,
        sizeBytes: Number(data.sizeBytes),
      });
      return ack();
    },
  );
  const failed = await bus.consume('events.job.failed', { ...facts, durable: 'orchestrator-webhooks-failed' }, async ({ data }) => {
    await svc.onJobFact({
      type: 'job.failed',
      jobId: data.jobId,
      ownerId: data.userId,
      at: new Date(Number(data.failedAtUnixMs)),
      reason: data.reason,
    });
    return ack();
  });
  const cancelled = await bus.consume(
    'events.job.cancelled',
    { ...facts, durable: 'orchestrator-webhooks-cancelled' },
    async ({ data }) => {
      await svc.onJobFact({ type: 'job.cancelled', jobId: data.jobId, ownerId: data.userId, at: new Date(Number(data.cancelledAtUnixMs)) });
      return ack();
    },
  );
  const deliveries = await bus.consume(
    'webhooks.deliveries',
    { stream: streams.WEBHOOKS, durable: 'orchestrator-webhooks', ackWaitMs: 60_000, maxDeliver: 1000, concurrency: 8 },
    async ({ data }) => {
      const r = await svc.deliver(data.deliveryId, data.round);
      if (r.done) return ack();
      log.info({ delivery_id: data.deliveryId, retry_in_ms: r.retryInMs }, 'webhook delivery failed; tried again later');
      return retry(r.retryInMs);
    },
  );
  return [completed, failed, cancelled, deliveries];
}
