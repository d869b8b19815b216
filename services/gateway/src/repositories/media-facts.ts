import { fromBinary } from '@bufbuild/protobuf';
import type { Bus } from '@reelsmith/kit';
import { subjects } from '@reelsmith/proto';
import type { FinishedJobs } from '../domain/finished-jobs.js';

/**
 * media-library's deletions (events.media.*) as every replica hears them: the cached status of a
 * job whose reel was deleted is dropped, and all of a user's when their data goes. A fact that
 * does not decode drops everything (nothing cached can be trusted then).
 */
export function followMediaFacts(bus: Bus, finished: Pick<FinishedJobs, 'reelDeleted' | 'ownerDeleted' | 'clear'>) {
  return bus.subscribeFacts('events.media.>', (subject, data) => {
    try {
      if (subject === 'events.media.reel_deleted') finished.reelDeleted(fromBinary(subjects[subject], data).reelId);
      else if (subject === 'events.media.user_data_deleted') finished.ownerDeleted(fromBinary(subjects[subject], data).ownerId);
    } catch {
      finished.clear();
    }
  });
}
