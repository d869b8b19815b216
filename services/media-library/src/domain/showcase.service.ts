import { DomainError, ErrorCode, type Logger } from '@reelsmith/kit';
import type { ReelRecord } from './reels.service.js';

/** A featured reel as the showcase serves it. */
export interface ShowcaseRecord {
  reel: ReelRecord;
  category: string;
  views: number;
  featuredAt: Date;
  previewKeys: string[];
}

export interface SharedReelRecord {
  reel: ReelRecord;
  featured: boolean;
  category: string;
  views: number;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface ShowcaseRepository {
  /** A reel that is not deleted, whoever owns it. */
  reelById(id: string): Promise<ReelRecord | null>;
  /** Sets the owner's flag; false when the owner has no such (undeleted) reel. */
  setSharing(ownerId: string, reelId: string, shared: boolean): Promise<boolean>;
  upsertEntry(e: { reelId: string; category: string; featuredBy: string | null; previewKeys: string[] }): Promise<void>;
  removeEntry(reelId: string): Promise<boolean>;
  /** Featured, shared and undeleted reels only. */
  entry(reelId: string): Promise<ShowcaseRecord | null>;
  list(category: string, limit: number, order: 'recent' | 'views'): Promise<ShowcaseRecord[]>;
  categories(): Promise<string[]>;
  /**
   * Adds one view unless this viewer's play of this reel was counted less than `windowMs` ago;
   * null when the reel is not in the showcase.
   */
  countView(reelId: string, viewer: string, now: Date, windowMs: number): Promise<{ views: number; counted: boolean } | null>;
  stats(now: Date): Promise<{ totalReels: number; activeCreators30d: number }>;
  /** Owners of visible showcase reels with their figures, most featured views first (see CreatorRecord). */
  creators(limit: number): Promise<CreatorRecord[]>;
  shared(limit: number, offset: number): Promise<{ reels: SharedReelRecord[]; total: number }>;
  /** Sets `userId`'s stars for a showcased reel (replacing earlier ones); null when it is not in the showcase. */
  rate(reelId: string, userId: string, stars: number, now: Date): Promise<RatingRecord | null>;
  /** Each reel's average and count, and `userId`'s own stars (0 when none or no user). */
  ratings(reelIds: string[], userId: string | null): Promise<Map<string, RatingRecord>>;
}

/**
 * An account behind the showcase: its reels in the showcase now (featured, shared, not deleted)
 * and their plays, and every reel it finished (deleted ones included, as the total count does).
 */
export interface CreatorRecord {
  ownerId: string;
  reels: number;
  featuredReels: number;
  featuredViews: number;
}

/** A showcased reel's stars: the average of every user's rating, how many, and the asker's (0: none). */
export interface RatingRecord {
  average: number;
  count: number;
  mine: number;
}

/** Three still frames across a local video file, as JPEG. */
export type FrameGrabber = (file: string, durationSec: number) => Promise<Buffer[]>;

export interface ShowcaseObjects {
  put(key: string, body: Buffer): Promise<unknown>;
  withLocalFile<T>(key: string, fn: (path: string) => Promise<T>): Promise<T>;
}

/** Categories are short labels a person typed: letters, digits, spaces and a little punctuation. */
const CATEGORY = /^[\p{L}\p{N}][\p{L}\p{N} &'-]{0,39}$/u;

export function normaliseCategory(raw: string): string {
  const c = raw.trim().replace(/\s+/g, ' ');
  if (!CATEGORY.test(c))
    throw new DomainError(ErrorCode.INVALID_ARGUMENT, 'A category is 1 to 40 letters, digits or spaces.', 'invalid_category');
  return c;
}

/**
 * Views count real plays: a viewer's plays of one reel count once per hour (the window runs from
 * the play that was counted). Replaying, seeking (Range requests) or reloading adds nothing; the
 * same person an hour later, or another person, adds one.
 */
export const VIEW_WINDOW_MS = 3_600_000;

/** A viewer as the gateway names one: "user:<id>" or "anon:<64 hex digits>". */
const VIEWER = /^(user:[0-9a-f-]{36}|anon:[0-9a-f]{64})$/;

/** Rules of the showcase: only a reel its owner shared can be featured; unsharing takes it out. */
export class ShowcaseService {
  constructor(
    private readonly repo: ShowcaseRepository,
    private readonly objects: ShowcaseObjects,
    private readonly grabFrames: FrameGrabber,
    private readonly log: Logger,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async setSharing(ownerId: string, reelId: string, shared: boolean): Promise<{ shared: boolean; featured: boolean }> {
    if (!(await this.repo.setSharing(ownerId, reelId, shared)))
      throw new DomainError(ErrorCode.NOT_FOUND, 'Reel not found.', 'reel_not_found');
    if (!shared) await this.repo.removeEntry(reelId);
    return { shared, featured: shared && (await this.repo.entry(reelId)) !== null };
  }

  async feature(reelId: string, rawCategory: string, featuredBy: string | null): Promise<ShowcaseRecord> {
    const category = normaliseCategory(rawCategory);
    const reel = await this.repo.reelById(reelId);
    if (!reel) throw new DomainError(ErrorCode.NOT_FOUND, 'Reel not found.', 'reel_not_found');
    if (!reel.shareToShowcase)
      throw new DomainError(ErrorCode.FAILED_PRECONDITION, "The reel's owner has not shared it to the showcase.", 'not_shared');
    const existing = await this.repo.entry(reelId);
    const previewKeys = existing?.previewKeys.length ? existing.previewKeys : await this.previews(reel);
    await this.repo.upsertEntry({ reelId, category, featuredBy, previewKeys });
    return (await this.repo.entry(reelId))!;
  }

  async unfeature(reelId: string): Promise<void> {
    if (!(await this.repo.removeEntry(reelId)))
      throw new DomainError(ErrorCode.NOT_FOUND, 'This reel is not in the showcase.', 'not_featured');
  }

  async list(category: string, limit: number, order: string) {
    const n = Math.min(Math.max(limit || 20, 1), 100);
    const [entries, categories] = await Promise.all([
      this.repo.list(category.trim(), n, order === 'views' ? 'views' : 'recent'),
      this.repo.categories(),
    ]);
    return { entries, categories };
  }

  async entry(reelId: string): Promise<ShowcaseRecord> {
    const e = await this.repo.entry(reelId);
    if (!e) throw new DomainError(ErrorCode.NOT_FOUND, 'This reel is not in the showcase.', 'not_featured');
    return e;
  }

  async countView(reelId: string, viewer: string): Promise<{ views: number; counted: boolean }> {
    if (!VIEWER.test(viewer)) throw new DomainError(ErrorCode.INVALID_ARGUMENT, 'A play needs a viewer.', 'invalid_viewer');
    const r = await this.repo.countView(reelId, viewer, this.now(), VIEW_WINDOW_MS);
    if (r === null) throw new DomainError(ErrorCode.NOT_FOUND, 'This reel is not in the showcase.', 'not_featured');
    return r;
  }

  /**
   * A signed-in user rates a showcased reel 1 to 5 stars. One rating per user and reel: rating
   * again replaces the earlier stars, so the count never grows by a second vote.
   */
  async rate(reelId: string, userId: string, stars: number): Promise<RatingRecord> {
    if (!Number.isInteger(stars) || stars < 1 || stars > 5)
      throw new DomainError(ErrorCode.INVALID_ARGUMENT, 'A rating is a whole number of stars from 1 to 5.', 'invalid_rating');
    const r = await this.repo.rate(reelId, userId, stars, this.now());
    if (r === null) throw new DomainError(ErrorCode.NOT_FOUND, 'This reel is not in the showcase.', 'not_featured');
    return r;
  }

  /** Ratings of the given reels (no rating yet: average 0, count 0). */
  async ratings(reelIds: string[], userId: string | null): Promise<Map<string, RatingRecord>> {
    const ids = [...new Set(reelIds)].filter((id) => UUID.test(id)).slice(0, 100);
    return ids.length ? this.repo.ratings(ids, userId && UUID.test(userId) ? userId : null) : new Map();
  }

  stats = (now = new Date()) => this.repo.stats(now);

  /**
   * The accounts behind the showcase, most featured views first, then most featured reels (ties:
   * owner id). The gateway asks for more than it shows: accounts without a public name are left out there.
   */
  creators = (limit: number) => this.repo.creators(Math.min(Math.max(limit || 10, 1), 100));
  shared = (limit: number, offset: number) => this.repo.shared(Math.min(Math.max(limit || 50, 1), 200), Math.max(offset, 0));

  /** Three frames for the hover preview; a reel whose frames cannot be made is still featured (its thumbnail stands in). */
  private async previews(reel: ReelRecord): Promise<string[]> {
    try {
      const frames = await this.objects.withLocalFile(reel.objectKey, (file) => this.grabFrames(file, reel.durationSec));
      const keys: string[] = [];
      for (const [i, f] of frames.entries()) {
        const key = `showcase/${reel.id}/frame-${i + 1}.jpg`;
        await this.objects.put(key, f);
        keys.push(key);
      }
      return keys;
    } catch (e) {
      this.log.warn({ err: e, reel_id: reel.id }, 'preview frames failed; the thumbnail stands in');
      return reel.thumbnailKey ? [reel.thumbnailKey] : [];
    }
  }
}
