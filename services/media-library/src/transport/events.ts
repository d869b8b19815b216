import { DomainError, ErrorCode, ack, drop, type Bus, type Logger, type RunningConsumer } from '@reelsmith/kit';
import { streams } from '@reelsmith/proto';
import type { LibraryService } from '../domain/library.service.js';

/**
 * media-library's event consumers: a clip bought from the footage marketplace joins the stock
 * video library. Durable, so a restart resumes where it stopped; safe to repeat (JetStream may
 * redeliver, and the library holds each clip once).
 */
export async function startConsumers(bus: Bus, library: LibraryService, log: Logger): Promise<RunningConsumer[]> {
  const purchases = await bus.consume(
    'events.marketplace.clip_purchased',
    { stream: streams.EVENTS, durable: 'media-library-clip-purchases', ackWaitMs: 120_000, maxDeliver: 10 },
    async ({ data }) => {
      const clip = {
        clipId: data.clipId,
        objectKey: data.objectKey,
        filename: data.filename,
        uploaderUserId: data.uploaderUserId,
        uploaderEmail: data.uploaderEmail,
      };
      try {
        const r = await library.importPurchased(clip);
        if (r === 'missing') {
          log.warn({ clip_id: clip.clipId, object_key: clip.objectKey }, 'purchased clip is gone from storage; not added to the library');
          return drop('the purchased clip no longer exists');
        }
        log.info({ clip_id: clip.clipId, key: r.item.key, outcome: r.outcome }, 'purchased clip in the stock library');
        return ack();
      } catch (e) {
        // A file the library cannot use stays unusable however often it is delivered.
        if (e instanceof DomainError && e.code === ErrorCode.INVALID_ARGUMENT) {
          log.warn({ clip_id: clip.clipId, err: e }, 'purchased clip cannot join the library');
          return drop(e.message);
        }
        throw e;
      }
    },
  );
  return [purchases];
}
