import { ack, drop, type Bus, type RunningConsumer } from '@reelsmith/kit';
import { streams } from '@reelsmith/proto';
import type { Logger } from '@reelsmith/kit';
import type { MarketplaceService } from '../domain/marketplace.service.js';

/**
 * The marketplace's event consumers: opted-in uploads (from the orchestrator) become clips; an
 * offer made (our own fact, from the outbox) is mailed to the clip's owner. Both are durable
 * JetStream consumers, so a restart resumes where it stopped, and both are safe to repeat.
 */
export async function startConsumers(bus: Bus, svc: MarketplaceService, log: Logger): Promise<RunningConsumer[]> {
  const optIns = await bus.consume(
    'events.marketplace.opted_in',
    { stream: streams.EVENTS, durable: 'marketplace-opt-ins', ackWaitMs: 60_000, maxDeliver: 10 },
    async ({ data }) => {
      const r = await svc.optIn({
        uploadKey: data.uploadKey,
        userId: data.userId,
        jobId: data.jobId,
        filename: data.filename,
        sizeBytes: Number(data.sizeBytes),
        thumbnailKey: data.thumbnailKey,
        consentedAt: new Date(Number(data.consentedAtUnixMs)),
      });
      log.info({ upload_key: data.uploadKey, user_id: data.userId, outcome: r }, 'footage opt-in');
      return r === 'missing' ? drop('the upload no longer exists') : ack();
    },
  );
  const mails = await bus.consume(
    'events.marketplace.offer_made',
    { stream: streams.EVENTS, durable: 'marketplace-offer-mail', ackWaitMs: 30_000, maxDeliver: 5 },
    async ({ data }) => {
      await svc.notifyOffer(data.clipId);
      return ack();
    },
  );
  return [optIns, mails];
}
