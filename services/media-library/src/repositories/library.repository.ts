import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import type { Orm } from '@reelsmith/kit';
import type { LibraryItem, LibraryRepository } from '../domain/library.service.js';
import type { MediaKind } from '../domain/media.service.js';
import { staleForKind, unclaimedSince } from './media.repository.js';
import { libraryItems } from './schema.js';

const toItem = (r: Partial<typeof libraryItems.$inferSelect>): LibraryItem => ({
  id: r.id!,
  key: r.key!,
  kind: r.kind as MediaKind,
  filename: r.filename!,
  category: r.category!,
  contentHash: r.contentHash ?? '',
  objectKey: r.objectKey!,
  sizeBytes: r.sizeBytes!,
  durationSec: r.durationSec!,
  width: r.width ?? 0,
  height: r.height ?? 0,
  videoCodec: r.videoCodec ?? '',
  audioCodec: r.audioCodec ?? '',
  thumbnailKey: r.thumbnailKey ?? '',
  previewFrameKeys: r.previewFrameKeys ?? [],
  bpm: r.bpm ?? 0,
  peaks: r.peaks ?? [],
  analysisStatus: (r.analysisStatus ?? 'done') as LibraryItem['analysisStatus'],
  analysis: r.analysis ?? null,
  attribution: r.attribution ?? null,
  attributionUserId: r.attributionUserId ?? null,
  sourceClipId: r.sourceClipId ?? null,
});

/** The columns of a list page: no analysis or waveform, which only one track's view needs. */
const listColumns = {
  id: libraryItems.id,
  key: libraryItems.key,
  kind: libraryItems.kind,
  filename: libraryItems.filename,
  category: libraryItems.category,
  objectKey: libraryItems.objectKey,
  sizeBytes: libraryItems.sizeBytes,
  durationSec: libraryItems.durationSec,
  width: libraryItems.width,
  height: libraryItems.height,
  thumbnailKey: libraryItems.thumbnailKey,
  previewFrameKeys: libraryItems.previewFrameKeys,
  bpm: libraryItems.bpm,
  attribution: libraryItems.attribution,
};

export class DrizzleLibraryRepository implements LibraryRepository {
  constructor(private readonly orm: Orm) {}

  async insertItem(item: LibraryItem) {
    const rows = await this.orm
      .insert(libraryItems)
      .values({ ...item, analysis: item.analysis as object | null })
      .onConflictDoNothing()
      .returning({ id: libraryItems.id });
    return rows.length === 1;
  }
  async itemByHash(hash: string) {
    const [row] = await this.orm.select().from(libraryItems).where(eq(libraryItems.contentHash, hash));
    return row ? toItem(row) : null;
  }
  async itemBySourceClip(clipId: string) {
    const [row] = await this.orm.select().from(libraryItems).where(eq(libraryItems.sourceClipId, clipId));
    return row ? toItem(row) : null;
  }
  async itemsByKeys(kind: MediaKind | null, keys: string[]) {
    if (!keys.length) return [];
    const where = kind ? and(eq(libraryItems.kind, kind), inArray(libraryItems.key, keys)) : inArray(libraryItems.key, keys);
    return (await this.orm.select().from(libraryItems).where(where)).map(toItem);
  }
  async itemsByObjectKeys(objectKeys: string[]) {
    if (!objectKeys.length) return [];
    return (await this.orm.select().from(libraryItems).where(inArray(libraryItems.objectKey, objectKeys))).map(toItem);
  }
  async musicByFilename(filename: string) {
    const [row] = await this.orm
      .select()
      .from(libraryItems)
      .where(and(eq(libraryItems.kind, 'audio'), eq(libraryItems.filename, filename)))
      .orderBy(asc(libraryItems.createdAt))
      .limit(1);
    return row ? toItem(row) : null;
  }
  async listed() {
    return (await this.orm.select(listColumns).from(libraryItems)).map(toItem);
  }
  async stamp() {
    // Every row's time counts, not only the newest: an update stamped earlier than one already
    // seen (two replicas' statements committing in the other order) still moves the sum.
    const [row] = await this.orm
      .select({
        n: sql<number>`count(*)::int`,
        sum: sql<string>`coalesce(sum(extract(epoch from ${libraryItems.updatedAt})), 0)::text`,
      })
      .from(libraryItems);
    return `${row?.n ?? 0}/${row?.sum ?? ''}`;
  }
  async count() {
    const [row] = await this.orm.select({ n: sql<number>`count(*)::int` }).from(libraryItems);
    return Number(row?.n ?? 0);
  }
  async claimStaleItem(versions: Record<MediaKind, number>, replicaId: string, leaseMs: number) {
    const stale = staleForKind(libraryItems.kind, libraryItems.analysis, versions);
    const claimable = this.orm
      .select({ id: libraryItems.id })
      .from(libraryItems)
      .where(and(eq(libraryItems.analysisStatus, 'done'), stale, unclaimedSince(libraryItems.analysisClaimedAt, leaseMs)))
      .orderBy(asc(libraryItems.createdAt))
      .limit(1)
      .for('update', { skipLocked: true });
    const [row] = await this.orm
      .update(libraryItems)
      .set({ analysisClaimedBy: replicaId, analysisClaimedAt: sql`now()` })
      .where(inArray(libraryItems.id, claimable))
      .returning({ ...listColumns, videoCodec: libraryItems.videoCodec });
    return row ? toItem(row) : null;
  }
  async setItemAnalysis(key: string, status: 'done' | 'failed', analysis: unknown, bpm: number) {
    await this.orm
      .update(libraryItems)
      .set({
        analysisStatus: status,
        analysis: analysis as object | null,
        bpm,
        updatedAt: sql`now()`,
        analysisClaimedBy: null,
        analysisClaimedAt: null,
      })
      .where(eq(libraryItems.key, key));
  }
  async removeItem(key: string) {
    const rows = await this.orm.delete(libraryItems).where(eq(libraryItems.key, key)).returning({ id: libraryItems.id });
    return rows.length === 1;
  }
}
