import { DomainError, ErrorCode, type Logger } from '@reelsmith/kit';
import type { Objects } from './media.service.js';

/**
 * My Reels: the finished reels media-library lists for their owner, kept as long as the owner's
 * plan says and swept when they expire. (Uploads, their analyses and account deletion are in
 * media.service.ts.)
 */

export interface ReelRecord {
  id: string;
  ownerId: string;
  title: string;
  description: string;
  objectKey: string;
  thumbnailKey: string;
  durationSec: number;
  sizeBytes: number;
  musicUsed: boolean;
  enableBeatMapping: boolean;
  enableIntelligence: boolean;
  pacingPreset: string;
  createdAt: Date;
  /** The owner allows it in the public showcase. */
  shareToShowcase?: boolean;
  /** When the retention sweeper deletes it; null: kept without limit. */
  expiresAt: Date | null;
}

export interface ReelsRepository {
  addReel(r: Omit<ReelRecord, 'createdAt' | 'expiresAt'> & { expiresAt?: Date | null }): Promise<ReelRecord>;
  listReels(ownerId: string, limit: number, offset: number): Promise<{ reels: ReelRecord[]; total: number }>;
  /** The owner's reel unless deleted; null otherwise (someone else's reel included). */
  reel(ownerId: string, id: string): Promise<ReelRecord | null>;
  /** Soft-deletes; false when no such reel of this owner. */
  deleteReel(ownerId: string, id: string): Promise<boolean>;
  /** Reels (not deleted) whose expiry is before `now`, oldest first, at most `limit`. */
  expiredReels(now: Date, limit: number): Promise<ReelRecord[]>;
}

/**
 * Facts others act on when reels go (events.media.*): every gateway replica drops the cached
 * status of the job, whose download link no longer works. Published after the objects are gone and
 * before the reel leaves the list, so a failure is finished by deleting again.
 */
export interface DeletionFacts {
  reelDeleted(ownerId: string, reelId: string): Promise<void>;
  userDataDeleted(ownerId: string): Promise<void>;
}

export const NO_DELETION_FACTS: DeletionFacts = { reelDeleted: async () => undefined, userDataDeleted: async () => undefined };

const DAY_MS = 24 * 3600_000;

/**
 * How long a reel is kept, by the owner's plan when it was made: Standard 30 days (monthly) or a
 * year (yearly), Mid-Tier 90 days or two years, Corporate without limit (null), free 7 days.
 */
export function reelRetentionMs(plan: string, cycle: string): number | null {
  const yearly = cycle === 'yearly';
  switch (plan) {
    case 'standard':
      return (yearly ? 365 : 30) * DAY_MS;
    case 'mid-tier':
      return (yearly ? 730 : 90) * DAY_MS;
    case 'corporate':
      return null;
    default:
      return 7 * DAY_MS;
  }
}

export class ReelsService {
  constructor(
    private readonly repo: ReelsRepository,
    private readonly objects: Pick<Objects, 'delete'>,
    private readonly log: Logger,
    private readonly facts: DeletionFacts = NO_DELETION_FACTS,
  ) {}

  /** Lists a finished reel, to be kept as long as the owner's plan says (idempotent by id). */
  addReel(r: Omit<ReelRecord, 'createdAt' | 'expiresAt'>, plan = 'free', cycle = '', now = new Date()) {
    const keep = reelRetentionMs(plan, cycle);
    return this.repo.addReel({ ...r, expiresAt: keep === null ? null : new Date(now.getTime() + keep) });
  }

  async reel(ownerId: string, id: string): Promise<ReelRecord> {
    const r = await this.repo.reel(ownerId, id);
    if (!r) throw new DomainError(ErrorCode.NOT_FOUND, 'Reel not found.', 'reel_not_found');
    return r;
  }

  /** Deletes reels past their retention, objects first (a failure leaves the reel for the next run). */
  async expireReels(now: Date): Promise<number> {
    let removed = 0;
    for (const r of await this.repo.expiredReels(now, 500)) {
      try {
        for (const key of [r.objectKey, r.thumbnailKey]) if (key) await this.objects.delete(key);
        await this.facts.reelDeleted(r.ownerId, r.id);
        await this.repo.deleteReel(r.ownerId, r.id);
        removed += 1;
      } catch (e) {
        this.log.warn({ err: e, reel_id: r.id }, 'could not delete an expired reel; next run retries');
      }
    }
    if (removed) this.log.info({ removed }, 'expired reels deleted');
    return removed;
  }
  listReels = (ownerId: string, limit: number, offset: number) =>
    this.repo.listReels(ownerId, Math.min(Math.max(limit || 50, 1), 100), Math.max(offset, 0));
  /**
   * Removes the reel's video and thumbnail from storage, then the reel from the library, so no
   * link to them works afterwards. Objects first: if storage fails, the reel is still listed and
   * deleting it again finishes the job (deleting a missing object succeeds).
   */
  async deleteReel(ownerId: string, id: string): Promise<void> {
    const reel = await this.repo.reel(ownerId, id);
    if (!reel) throw new DomainError(ErrorCode.NOT_FOUND, 'Reel not found.', 'reel_not_found');
    for (const key of [reel.objectKey, reel.thumbnailKey]) if (key) await this.objects.delete(key);
    await this.facts.reelDeleted(ownerId, id);
    await this.repo.deleteReel(ownerId, id);
    this.log.info({ reel_id: id, user_id: ownerId }, 'reel deleted with its objects');
  }
}
