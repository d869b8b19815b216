import type { Bus } from '@reelsmith/kit';
import type { DeletionFacts } from '../domain/reels.service.js';

/** Reel and user-data deletions as events on the bus (events.media.*), for every gateway replica. */
export function deletionFacts(bus: Bus): DeletionFacts {
  return {
    reelDeleted: async (ownerId, reelId) => {
      await bus.publish(
        'events.media.reel_deleted',
        { reelId, ownerId, atUnixMs: BigInt(Date.now()) },
        { msgId: `reel_deleted.${reelId}` },
      );
    },
    userDataDeleted: async (ownerId) => {
      const at = Date.now();
      await bus.publish(
        'events.media.user_data_deleted',
        { ownerId, atUnixMs: BigInt(at) },
        { msgId: `user_data_deleted.${ownerId}.${at}` },
      );
    },
  };
}
