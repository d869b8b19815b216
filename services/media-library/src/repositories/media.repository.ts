import { and, desc, eq, inArray, isNull, sql } from 'drizzle-orm';
import type { Orm } from '@reelsmith/kit';
import type { MediaRecord, MediaRepository, ReelRecord } from '../domain/media.service.js';
import { mediaObjects, reels } from './schema.js';

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

const toReel = (r: typeof reels.$inferSelect): ReelRecord => ({
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
});

export class DrizzleMediaRepository implements MediaRepository {
  constructor(private readonly orm: Orm) {}

  async insert(m: MediaRecord) {
    const { analysis: _a, ...row } = m;
    await this.orm.insert(mediaObjects).values(row);
  }
  async byKeys(keys: string[]) {
    if (!keys.length) return [];
    return (await this.orm.select().from(mediaObjects).where(inArray(mediaObjects.objectKey, keys))).map(toMedia);
  }
  async pendingAnalyses(limit: number) {
    return (
      await this.orm
        .select()
        .from(mediaObjects)
        .where(eq(mediaObjects.analysisStatus, 'pending'))
        .orderBy(mediaObjects.createdAt)
        .limit(limit)
    ).map(toMedia);
  }
  async setAnalysis(key: string, status: 'done' | 'failed', analysis: unknown) {
    await this.orm
      .update(mediaObjects)
      .set({ analysisStatus: status, analysis: analysis as object | null })
      .where(eq(mediaObjects.objectKey, key));
  }
  async addReel(r: Omit<ReelRecord, 'createdAt'>) {
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
  async deleteReel(ownerId: string, id: string) {
    const rows = await this.orm
      .update(reels)
      .set({ deletedAt: new Date() })
      .where(and(eq(reels.id, id), eq(reels.ownerId, ownerId), isNull(reels.deletedAt)))
      .returning({ id: reels.id });
    return rows.length === 1;
  }
}
