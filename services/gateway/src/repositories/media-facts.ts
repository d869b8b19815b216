import { fromBinary } from '@bufbuild/protobuf';
import type { Bus } from '@reelsmith/kit';
import { subjects } from '@reelsmith/proto';
import type { FinishedJobs } from '../domain/finished-jobs.js';

/**
 * media-library's deletions (events.media.*) as every replica hears them: the cached status of a
 * job whose reel was deleted is dropped, and all of a user's when their data goes. A fact that
 * does not decode drops everything (nothing cached can be trusted then), and so does a reconnect
 * to NATS: core NATS does not replay what was published while this replica was away.
 */
export function followMediaFacts(bus: Bus, finished: Pick<FinishedJobs, 'reelDeleted' | 'ownerDeleted' | 'clear'>) {
  const sub = bus.subscribeFacts('events.media.>', (subject, data) => {
    try {
      if (subject === 'events.media.reel_deleted') finished.reelDeleted(fromBinary(subjects[subject], data).reelId);
      else if (subject === 'events.media.user_data_deleted') finished.ownerDeleted(fromBinary(subjects[subject], data).ownerId);
    } catch {
      finished.clear();
    }
  });
  void (async () => {
    for await (const s of bus.nc.status()) if (s.type === 'reconnect' || s.type === 'disconnect') finished.clear();
  })().catch(() => undefined);
  return sub;
}
