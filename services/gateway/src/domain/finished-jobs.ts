import { createHash } from 'node:crypto';
import type { JobStatusView } from './job-status.js';
import { evict } from './evict.js';

/**
 * The status views of finished jobs, kept in memory by each gateway replica so that a poll of a
 * finished job costs no gRPC call, no object-store stat and no signing.
 *
 * A finished job's view never changes, except when its reel is deleted: by its owner, by the
 * retention sweep, or with the owner's account. media-library publishes each of those on the bus
 * (events.media.reel_deleted, events.media.user_data_deleted) and every replica hears it
 * (repositories/media-facts.ts): the view is dropped, and the job (or owner) is remembered as
 * deleted, so that a view being built while the event arrived cannot put the link back and the
 * next view of it is built without a stat. The signed link is reused until `linkReuseMs` after
 * it was signed (shortly before it expires), then signed again. Memory is bounded: the least
 * recently read view goes first.
 */
export interface FinishedJobsLimits {
  maxEntries: number;
  /** A view's signed link is reused this long after it was signed (less than its validity). */
  linkReuseMs: number;
  /** Deleted reels and owners remembered (bounded as well). */
  maxTombstones: number;
}

export interface CachedStatus {
  view: JobStatusView;
  /** The view as JSON, serialised once (a poll sends it as it is). */
  json: string;
  /** A strong validator of the view (its JSON), quoted as HTTP wants it. */
  etag: string;
  /**
   * Seconds a client may reuse the answer without asking. 0 while it holds a link: the reel may
   * be deleted, which must show on the next poll; the client asks with If-None-Match and gets a
   * 304 while nothing changed.
   */
  maxAgeSec: number;
}

interface Entry extends CachedStatus {
  ownerId: string;
  /** Read since it last reached the back of the eviction order (see evict.ts). */
  read: boolean;
  /** When the view is signed again (ms); Infinity for a view without a link. */
  freshUntil: number;
}

/** The signed link (valid LINK_SECONDS, an hour) is signed again after 50 minutes. */
export const finishedJobsLimits = (maxEntries: number): FinishedJobsLimits => ({
  maxEntries,
  linkReuseMs: 50 * 60_000,
  maxTombstones: maxEntries,
});

export const FINISHED = new Set(['completed', 'failed', 'cancelled']);

/**
 * How long a client may reuse the status of a finished job without a link (failed, cancelled, or
 * its reel deleted): it can no longer change.
 */
const NO_LINK_MAX_AGE_SEC = 300;

export class FinishedJobs {
  private readonly views = new Map<string, Entry>();
  private readonly deletedReels = new Map<string, true>();
  private readonly deletedOwners = new Map<string, true>();
  /** Bumped by every deletion: a view built across one may hold a link it must not keep. */
  private epoch = 0;

  constructor(
    private readonly limits: FinishedJobsLimits,
    private readonly now: () => number = Date.now,
  ) {}

  /** True when a view of this job is held (whoever owns it, fresh or not). */
  holds(jobId: string): boolean {
    return this.views.has(jobId);
  }

  /** The cached status of the owner's finished job, unless its link needs signing again. */
  get(jobId: string, ownerId: string): CachedStatus | undefined {
    const e = this.views.get(jobId);
    if (!e || e.ownerId !== ownerId) return undefined;
    if (e.freshUntil <= this.now()) {
      this.views.delete(jobId);
      return undefined;
    }
    // Marked as read, not moved (a delete and a set on every poll); eviction gives it a second chance.
    e.read = true;
    return e;
  }

  /** True when the job's reel (or its owner's account) was deleted: its view has no link. */
  reelGone(jobId: string, ownerId: string): boolean {
    return this.deletedReels.has(jobId) || this.deletedOwners.has(ownerId);
  }

  /** The deletion count now; pass it to `put` with a view built after reading it. */
  mark(): number {
    return this.epoch;
  }

  /**
   * Keeps a finished job's view, built after `mark()` returned `since`. A view with a link built
   * across a deletion of that reel is not kept (the caller answers with it once, the next poll
   * builds a new one).
   */
  put(ownerId: string, view: JobStatusView, since: number): CachedStatus {
    const withLink = view.download_url !== null;
    const json = JSON.stringify(view);
    const stale = withLink && (since !== this.epoch || this.reelGone(view.job_id, ownerId));
    const entry: Entry = {
      view,
      ownerId,
      json,
      etag: etagOf(json),
      maxAgeSec: withLink ? 0 : NO_LINK_MAX_AGE_SEC,
      freshUntil: withLink ? this.now() + this.limits.linkReuseMs : Infinity,
      read: false,
    };
    if (!FINISHED.has(view.status) || stale) return entry;
    this.views.delete(view.job_id);
    this.views.set(view.job_id, entry);
    evict(this.views, this.limits.maxEntries);
    return entry;
  }

  /** The reel of this job was deleted (events.media.reel_deleted). */
  reelDeleted(jobId: string): void {
    this.epoch += 1;
    this.views.delete(jobId);
    remember(this.deletedReels, jobId, this.limits.maxTombstones);
  }

  /** Every reel of this owner was deleted (events.media.user_data_deleted: the account is going). */
  ownerDeleted(ownerId: string): void {
    this.epoch += 1;
    for (const [id, e] of this.views) if (e.ownerId === ownerId) this.views.delete(id);
    remember(this.deletedOwners, ownerId, this.limits.maxTombstones);
  }

  /** A fact this replica could not read: nothing cached can be trusted. */
  clear(): void {
    this.epoch += 1;
    this.views.clear();
  }

  get size() {
    return this.views.size;
  }
}

function remember(set: Map<string, true>, key: string, max: number) {
  set.delete(key);
  set.set(key, true);
  while (set.size > max) set.delete(set.keys().next().value!);
}

/** A strong ETag of a view's JSON. */
export function etagOf(json: string): string {
  return `"${createHash('sha1').update(json).digest('base64url').slice(0, 22)}"`;
}

/** The Cache-Control of a finished job's status answer. */
export const finishedCacheControl = (s: Pick<CachedStatus, 'maxAgeSec'>): string => `private, max-age=${s.maxAgeSec}`;

/** True when the request's If-None-Match names this ETag (or `*`). */
export function notModified(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch
    .split(',')
    .map((t) => t.trim().replace(/^W\//, ''))
    .some((t) => t === etag || t === '*');
}
