import { and, desc, eq, gt, inArray, isNull, lte, sql } from 'drizzle-orm';
import type { Orm } from '@reelsmith/kit';
import type { CreatorRecord, RatingRecord, SharedReelRecord, ShowcaseRecord, ShowcaseRepository } from '../domain/showcase.service.js';
import { toReel } from './media.repository.js';
import { reels, showcaseEntries, showcaseRatings, showcaseViews } from './schema.js';

const toEntry = (row: { reels: typeof reels.$inferSelect; showcase_entries: typeof showcaseEntries.$inferSelect }): ShowcaseRecord => ({
  reel: toReel(row.reels),
  category: row.showcase_entries.category,
  views: Number(row.showcase_entries.views),
  featuredAt: row.showcase_entries.featuredAt,
  previewKeys: row.showcase_entries.previewKeys,
});

/** What the public may see: featured, still shared, not deleted. */
const visible = and(isNull(reels.deletedAt), eq(reels.shareToShowcase, true));

export class DrizzleShowcaseRepository implements ShowcaseRepository {
  constructor(private readonly orm: Orm) {}

  async reelById(id: string) {
    const [row] = await this.orm
      .select()
      .from(reels)
      .where(and(eq(reels.id, id), isNull(reels.deletedAt)));
    return row ? toReel(row) : null;
  }
  async setSharing(ownerId: string, reelId: string, shared: boolean) {
    const rows = await this.orm
      .update(reels)
      .set({ shareToShowcase: shared })
      .where(and(eq(reels.id, reelId), eq(reels.ownerId, ownerId), isNull(reels.deletedAt)))
      .returning({ id: reels.id });
    return rows.length > 0;
  }
  async upsertEntry(e: { reelId: string; category: string; featuredBy: string | null; previewKeys: string[] }) {
    await this.orm
      .insert(showcaseEntries)
      .values(e)
      .onConflictDoUpdate({ target: showcaseEntries.reelId, set: { category: e.category, previewKeys: e.previewKeys } });
  }
  async removeEntry(reelId: string) {
    const rows = await this.orm.delete(showcaseEntries).where(eq(showcaseEntries.reelId, reelId)).returning({ id: showcaseEntries.reelId });
    return rows.length > 0;
  }
  async entry(reelId: string) {
    const [row] = await this.orm
      .select()
      .from(showcaseEntries)
      .innerJoin(reels, eq(reels.id, showcaseEntries.reelId))
      .where(and(eq(showcaseEntries.reelId, reelId), visible));
    return row ? toEntry(row) : null;
  }
  async list(category: string, limit: number, order: 'recent' | 'views') {
    const rows = await this.orm
      .select()
      .from(showcaseEntries)
      .innerJoin(reels, eq(reels.id, showcaseEntries.reelId))
      .where(category ? and(visible, eq(showcaseEntries.category, category)) : visible)
      .orderBy(...(order === 'views' ? [desc(showcaseEntries.views)] : []), desc(showcaseEntries.featuredAt), desc(reels.id))
      .limit(limit);
    return rows.map(toEntry);
  }
  async categories() {
    const rows = await this.orm
      .selectDistinct({ c: showcaseEntries.category })
      .from(showcaseEntries)
      .innerJoin(reels, eq(reels.id, showcaseEntries.reelId))
      .where(visible)
      .orderBy(showcaseEntries.category);
    return rows.map((r) => r.c);
  }
  async countView(reelId: string, viewer: string, now: Date, windowMs: number) {
    const since = new Date(now.getTime() - windowMs);
    return this.orm.transaction(async (tx) => {
      const [entry] = await tx
        .select({ views: showcaseEntries.views })
        .from(showcaseEntries)
        .innerJoin(reels, eq(reels.id, showcaseEntries.reelId))
        .where(and(eq(showcaseEntries.reelId, reelId), visible));
      if (!entry) return null;
      // Claims this viewer's play: a new row, or an old one whose window is over. A play within
      // the window claims nothing (the row keeps its time, so the window runs from the counted play).
      const claimed = await tx
        .insert(showcaseViews)
        .values({ reelId, viewer, countedAt: now })
        .onConflictDoUpdate({
          target: [showcaseViews.reelId, showcaseViews.viewer],
          set: { countedAt: now },
          setWhere: lte(showcaseViews.countedAt, since),
        })
        .returning({ reelId: showcaseViews.reelId });
      // Rows whose window is over count for nothing any more: this reel's are dropped here.
      await tx.delete(showcaseViews).where(and(eq(showcaseViews.reelId, reelId), lte(showcaseViews.countedAt, since)));
      if (!claimed.length) return { views: Number(entry.views), counted: false };
      const [row] = await tx
        .update(showcaseEntries)
        .set({ views: sql`${showcaseEntries.views} + 1` })
        .where(eq(showcaseEntries.reelId, reelId))
        .returning({ views: showcaseEntries.views });
      return { views: Number(row!.views), counted: true };
    });
  }
  async rate(reelId: string, userId: string, stars: number, now: Date) {
    const [entry] = await this.orm
      .select({ id: showcaseEntries.reelId })
      .from(showcaseEntries)
      .innerJoin(reels, eq(reels.id, showcaseEntries.reelId))
      .where(and(eq(showcaseEntries.reelId, reelId), visible));
    if (!entry) return null;
    await this.orm
      .insert(showcaseRatings)
      .values({ reelId, userId, stars, ratedAt: now })
      .onConflictDoUpdate({ target: [showcaseRatings.reelId, showcaseRatings.userId], set: { stars, ratedAt: now } });
    return (await this.ratings([reelId], userId)).get(reelId)!;
  }
  async ratings(reelIds: string[], userId: string | null) {
    const rows = await this.orm
      .select({
        reelId: showcaseRatings.reelId,
        average: sql<number>`avg(${showcaseRatings.stars})::float8`,
        count: sql<number>`count(*)::float8`,
        mine: userId
          ? sql<number>`coalesce(max(${showcaseRatings.stars}) filter (where ${showcaseRatings.userId} = ${userId}), 0)::float8`
          : sql<number>`0::float8`,
      })
      .from(showcaseRatings)
      .where(inArray(showcaseRatings.reelId, reelIds))
      .groupBy(showcaseRatings.reelId);
    const out = new Map<string, RatingRecord>(reelIds.map((id) => [id, { average: 0, count: 0, mine: 0 }]));
    for (const r of rows) out.set(r.reelId, { average: Number(r.average), count: Number(r.count), mine: Number(r.mine) });
    return out;
  }
  async stats(now: Date) {
    const since = new Date(now.getTime() - 30 * 86_400_000);
    const [total] = await this.orm.select({ n: sql<string>`count(*)` }).from(reels);
    const [active] = await this.orm
      .select({ n: sql<string>`count(distinct ${reels.ownerId})` })
      .from(reels)
      .where(gt(reels.createdAt, since));
    return { totalReels: Number(total?.n ?? 0), activeCreators30d: Number(active?.n ?? 0) };
  }
  async creators(limit: number): Promise<CreatorRecord[]> {
    const featuredViews = sql<string>`sum(${showcaseEntries.views})`;
    const featuredReels = sql<string>`count(*)`;
    const rows = await this.orm
      .select({
        ownerId: reels.ownerId,
        featuredReels,
        featuredViews,
        // Every reel the owner finished (the reels table keeps deleted ones, marked).
        reels: sql<string>`(select count(*) from ${reels} as made where made.owner_id = ${reels.ownerId})`,
      })
      .from(showcaseEntries)
      .innerJoin(reels, eq(reels.id, showcaseEntries.reelId))
      .where(visible)
      .groupBy(reels.ownerId)
      .orderBy(desc(featuredViews), desc(featuredReels), reels.ownerId)
      .limit(limit);
    return rows.map((r) => ({
      ownerId: r.ownerId,
      reels: Number(r.reels),
      featuredReels: Number(r.featuredReels),
      featuredViews: Number(r.featuredViews),
    }));
  }
  async shared(limit: number, offset: number) {
    const where = and(isNull(reels.deletedAt), eq(reels.shareToShowcase, true));
    const rows = await this.orm
      .select()
      .from(reels)
      .leftJoin(showcaseEntries, eq(showcaseEntries.reelId, reels.id))
      .where(where)
      .orderBy(desc(reels.createdAt))
      .limit(limit)
      .offset(offset);
    const [count] = await this.orm
      .select({ n: sql<string>`count(*)` })
      .from(reels)
      .where(where);
    const out: SharedReelRecord[] = rows.map((r) => ({
      reel: toReel(r.reels),
      featured: r.showcase_entries !== null,
      category: r.showcase_entries?.category ?? '',
      views: Number(r.showcase_entries?.views ?? 0),
    }));
    return { reels: out, total: Number(count?.n ?? 0) };
  }
}
