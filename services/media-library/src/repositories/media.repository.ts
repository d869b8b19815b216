import { and, desc, eq, inArray, isNull, lt, or, sql } from 'drizzle-orm';
import type { Orm } from '@reelsmith/kit';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import type { MediaKind, MediaRecord, MediaRepository } from '../domain/media.service.js';
import type { ReelRecord, ReelsRepository } from '../domain/reels.service.js';
import { libraryTempoCorrections, mediaObjects, reels } from './schema.js';

const toMedia = (r: typeof mediaObjects.$inferSelect): MediaRecord => ({
  id: r.id,
  ownerId: r.ownerId,
  objectKey: r.objectKey,
  kind: r.kind as MediaRecord['kind'],
  displayName: r.displayName,
  sizeBytes: r.sizeBytes,
  durationSec: r.durationSec,
  width: r.width,
  height: r.height,
  videoCodec: r.videoCodec,
  audioCodec: r.audioCodec,
  thumbnailKey: r.thumbnailKey,
  analysisStatus: r.analysisStatus as MediaRecord['analysisStatus'],
  analysis: r.analysis,
});

/** A reels row as the domain sees it (also used by the showcase repository). */
export const toReel = (r: typeof reels.$inferSelect): ReelRecord => ({
  id: r.id,
  ownerId: r.ownerId,
  title: r.title,
  description: r.description,
  objectKey: r.objectKey,
  thumbnailKey: r.thumbnailKey,
  durationSec: r.durationSec,
  sizeBytes: r.sizeBytes,
  musicUsed: r.musicUsed,
  enableBeatMapping: r.enableBeatMapping,
  enableIntelligence: r.enableIntelligence,
  pacingPreset: r.pacingPreset,
  createdAt: r.createdAt,
  shareToShowcase: r.shareToShowcase,
  expiresAt: r.expiresAt ?? null,
});

/** An analysis whose numeric `version` is below `version` (or that has none). */
const staleAnalysis = (column: AnyPgColumn, version: number) =>
  sql`(case when jsonb_typeof(${column}->'version') = 'number' then (${column}->>'version')::numeric else 0 end) < ${version}`;

/** Rows whose analysis an older engine made: `staleAnalysis` with each kind's current version. */
export const staleForKind = (kind: AnyPgColumn, analysis: AnyPgColumn, versions: Record<MediaKind, number>) =>
  or(...Object.entries(versions).map(([k, version]) => and(eq(kind, k), staleAnalysis(analysis, version))));

/** Never claimed, or claimed longer than a lease ago (by a replica that died). Database time on both sides. */
export const unclaimedSince = (claimedAt: AnyPgColumn, leaseMs: number) =>
  or(isNull(claimedAt), lt(claimedAt, sql`now() - make_interval(secs => ${leaseMs / 1000})`));
const unclaimed = (leaseMs: number) => unclaimedSince(mediaObjects.analysisClaimedAt, leaseMs);

/** Uploads and reels share this database and the account deletion that removes both. */
export class DrizzleMediaRepository implements MediaRepository, ReelsRepository {
  constructor(private readonly orm: Orm) {}

  async insert(m: MediaRecord) {
    const { analysis: _a, ...row } = m;
    await this.orm.insert(mediaObjects).values(row);
  }
  async byKeys(keys: string[]) {
    if (!keys.length) return [];
    return (await this.orm.select().from(mediaObjects).where(inArray(mediaObjects.objectKey, keys))).map(toMedia);
  }
  /**
   * One statement: the inner select locks the oldest claimable rows and skips rows another
   * replica's claim has locked, so concurrent claimers get disjoint sets; a row whose claim was
   * committed meanwhile is re-checked under the lock and no longer matches.
   * https://www.postgresql.org/docs/current/sql-select.html#SQL-FOR-UPDATE-SHARE
   */
  async claimPendingAnalyses(replicaId: string, limit: number, leaseMs: number) {
    if (limit < 1) return [];
    const claimable = this.orm
      .select({ id: mediaObjects.id })
      .from(mediaObjects)
      .where(and(eq(mediaObjects.analysisStatus, 'pending'), unclaimed(leaseMs)))
      .orderBy(mediaObjects.createdAt)
      .limit(limit)
      .for('update', { skipLocked: true });
    const rows = await this.orm
      .update(mediaObjects)
      .set({ analysisClaimedBy: replicaId, analysisClaimedAt: sql`now()` })
      .where(inArray(mediaObjects.id, claimable))
      .returning();
    return rows.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime()).map(toMedia);
  }
  async claimAnalysis(key: string, replicaId: string, leaseMs: number) {
    // A concurrent claim of the same row waits for this one, then re-checks and finds it taken.
    const [row] = await this.orm
      .update(mediaObjects)
      .set({ analysisClaimedBy: replicaId, analysisClaimedAt: sql`now()` })
      .where(and(eq(mediaObjects.objectKey, key), eq(mediaObjects.analysisStatus, 'pending'), unclaimed(leaseMs)))
      .returning();
    return row ? toMedia(row) : null;
  }
  async claimStaleAnalysis(versions: Record<MediaKind, number>, replicaId: string, leaseMs: number) {
    const stale = staleForKind(mediaObjects.kind, mediaObjects.analysis, versions);
    const claimable = this.orm
      .select({ id: mediaObjects.id })
      .from(mediaObjects)
      .where(and(eq(mediaObjects.analysisStatus, 'done'), stale, unclaimed(leaseMs)))
      .orderBy(desc(mediaObjects.createdAt))
      .limit(1)
      .for('update', { skipLocked: true });
    const [row] = await this.orm
      .update(mediaObjects)
      .set({ analysisClaimedBy: replicaId, analysisClaimedAt: sql`now()` })
      .where(inArray(mediaObjects.id, claimable))
      .returning();
    return row ? toMedia(row) : null;
  }
  async setAnalysis(key: string, status: 'done' | 'failed', analysis: unknown) {
    await this.orm
      .update(mediaObjects)
      .set({ analysisStatus: status, analysis: analysis as object | null })
      .where(eq(mediaObjects.objectKey, key));
  }
  async addReel(r: Omit<ReelRecord, 'createdAt' | 'expiresAt'> & { expiresAt?: Date | null }) {
    await this.orm.insert(reels).values(r).onConflictDoNothing();
    const [row] = await this.orm.select().from(reels).where(eq(reels.id, r.id));
    return toReel(row!);
  }
  async listReels(ownerId: string, limit: number, offset: number) {
    const where = and(eq(reels.ownerId, ownerId), isNull(reels.deletedAt));
    const rows = await this.orm.select().from(reels).where(where).orderBy(desc(reels.createdAt)).limit(limit).offset(offset);
    const [count] = await this.orm
      .select({ n: sql<number>`count(*)::int` })
      .from(reels)
      .where(where);
    return { reels: rows.map(toReel), total: Number(count?.n ?? 0) };
  }
  async reel(ownerId: string, id: string) {
    const [row] = await this.orm
      .select()
      .from(reels)
      .where(and(eq(reels.id, id), eq(reels.ownerId, ownerId), isNull(reels.deletedAt)));
    return row ? toReel(row) : null;
  }
  async deleteReel(ownerId: string, id: string) {
    const rows = await this.orm
      .update(reels)
      .set({ deletedAt: new Date() })
      .where(and(eq(reels.id, id), eq(reels.ownerId, ownerId), isNull(reels.deletedAt)))
      .returning({ id: reels.id });
    return rows.length === 1;
  }

  async markUsed(ownerId: string, keys: string[]) {
    if (!keys.length) return;
    await this.orm
      .update(mediaObjects)
      .set({ usedAt: new Date() })
      .where(and(eq(mediaObjects.ownerId, ownerId), inArray(mediaObjects.objectKey, keys), isNull(mediaObjects.usedAt)));
  }

  async unusedBytes(ownerId: string) {
    const [row] = await this.orm
      .select({ total: sql<string>`coalesce(sum(${mediaObjects.sizeBytes}), 0)` })
      .from(mediaObjects)
      .where(and(eq(mediaObjects.ownerId, ownerId), isNull(mediaObjects.usedAt)));
    return Number(row?.total ?? 0);
  }

  async unusedBefore(before: Date, limit: number) {
    const rows = await this.orm
      .select()
      .from(mediaObjects)
      .where(and(isNull(mediaObjects.usedAt), lt(mediaObjects.createdAt, before)))
      .orderBy(mediaObjects.createdAt)
      .limit(limit);
    return rows.map(toMedia);
  }

  async expiredReels(now: Date, limit: number) {
    const rows = await this.orm
      .select()
      .from(reels)
      .where(and(isNull(reels.deletedAt), lt(reels.expiresAt, now)))
      .orderBy(reels.expiresAt)
      .limit(limit);
    return rows.map(toReel);
  }

  async remove(objectKey: string) {
    await this.orm.delete(mediaObjects).where(eq(mediaObjects.objectKey, objectKey));
  }

  async ownedObjectKeys(ownerId: string) {
    const media = await this.orm
      .select({ a: mediaObjects.objectKey, b: mediaObjects.thumbnailKey })
      .from(mediaObjects)
      .where(eq(mediaObjects.ownerId, ownerId));
    const owned = await this.orm.select({ a: reels.objectKey, b: reels.thumbnailKey }).from(reels).where(eq(reels.ownerId, ownerId));
    return [...media, ...owned].flatMap((r) => [r.a, r.b]).filter((k): k is string => Boolean(k));
  }

  async removeOwner(ownerId: string) {
    return this.orm.transaction(async (tx) => {
      const uploads = await tx.delete(mediaObjects).where(eq(mediaObjects.ownerId, ownerId)).returning({ k: mediaObjects.objectKey });
      const gone = await tx.delete(reels).where(eq(reels.ownerId, ownerId)).returning({ id: reels.id });
      // Their tempo corrections of library tracks (those of their uploads went with the uploads).
      await tx.delete(libraryTempoCorrections).where(eq(libraryTempoCorrections.ownerId, ownerId));
      return { uploads: uploads.length, reels: gone.length };
    });
  }
}
