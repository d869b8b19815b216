import { and, desc, eq, inArray, ne } from 'drizzle-orm';
import { enqueueEvent, type Orm } from '@reelsmith/kit';
import type { ClipState, OfferType } from '../domain/clip-states.js';
import type { ClipRecord, GrantState, MarketplaceRepository, MarketplaceTx, PayoutRecord } from '../domain/marketplace.service.js';
import { clips, payouts } from './schema.js';

type Tx = Parameters<Parameters<Orm['transaction']>[0]>[0];

const toClip = (r: typeof clips.$inferSelect): ClipRecord => ({
  id: r.id,
  uploadKey: r.uploadKey,
  userId: r.userId,
  userEmail: r.userEmail,
  jobId: r.jobId,
  filename: r.filename,
  sizeBytes: r.sizeBytes,
  objectKey: r.objectKey,
  thumbnailKey: r.thumbnailKey,
  status: r.status as ClipState,
  offerType: r.offerType as OfferType | null,
  cashCents: r.cashCents,
  credits: r.credits,
  consentedAt: r.consentedAt,
  offeredAt: r.offeredAt,
  answeredAt: r.answeredAt,
  grantState: r.grantState as GrantState,
});

const toPayout = (r: typeof payouts.$inferSelect): PayoutRecord => ({
  id: r.id,
  clipId: r.clipId,
  userId: r.userId,
  userEmail: r.userEmail,
  filename: r.filename,
  amountCents: r.amountCents,
  state: r.state as PayoutRecord['state'],
  createdAt: r.createdAt,
  paidAt: r.paidAt,
});

function txOps(tx: Tx): MarketplaceTx {
  return {
    async lockClip(id) {
      const [r] = await tx.select().from(clips).where(eq(clips.id, id)).for('update');
      return r ? toClip(r) : null;
    },
    async updateClip(id, fields) {
      const [r] = await tx.update(clips).set(fields).where(eq(clips.id, id)).returning();
      return toClip(r!);
    },
    async insertPayout(p) {
      await tx.insert(payouts).values(p).onConflictDoNothing({ target: payouts.clipId });
    },
    async lockPayout(id) {
      const [r] = await tx.select().from(payouts).where(eq(payouts.id, id)).for('update');
      return r ? toPayout(r) : null;
    },
    async markPayoutPaid(id, at) {
      const [r] = await tx.update(payouts).set({ state: 'paid', paidAt: at }).where(eq(payouts.id, id)).returning();
      return toPayout(r!);
    },
    async emit(subject, message, msgId) {
      await enqueueEvent(tx, subject, message, msgId);
    },
  };
}

/** The marketplace's tables through Drizzle. */
export class DrizzleMarketplaceRepository implements MarketplaceRepository {
  constructor(private readonly orm: Orm) {}

  async clipByUploadKey(uploadKey: string) {
    const [r] = await this.orm.select().from(clips).where(eq(clips.uploadKey, uploadKey));
    return r ? toClip(r) : null;
  }

  async insertClip(c: ClipRecord) {
    const rows = await this.orm
      .insert(clips)
      .values({ ...c, offerType: c.offerType })
      .onConflictDoNothing({ target: clips.uploadKey })
      .returning({ id: clips.id });
    return rows.length === 1;
  }

  async clip(id: string) {
    const [r] = await this.orm.select().from(clips).where(eq(clips.id, id));
    return r ? toClip(r) : null;
  }

  async clips() {
    const rows = await this.orm
      .select()
      .from(clips)
      .where(ne(clips.status, 'removed'))
      .orderBy(desc(clips.consentedAt), desc(clips.createdAt))
      .limit(1000);
    return rows.map(toClip);
  }

  async openOffers(userId: string) {
    const rows = await this.orm
      .select()
      .from(clips)
      .where(and(eq(clips.userId, userId), inArray(clips.status, ['cash_offered', 'credits_offered'])))
      .orderBy(desc(clips.offeredAt));
    return rows.map(toClip);
  }

  async pendingGrants(limit: number) {
    const rows = await this.orm.select().from(clips).where(eq(clips.grantState, 'pending')).limit(limit);
    return rows.map(toClip);
  }

  async payouts() {
    const rows = await this.orm.select().from(payouts).orderBy(desc(payouts.createdAt)).limit(1000);
    return rows.map(toPayout);
  }

  transaction<T>(fn: (tx: MarketplaceTx) => Promise<T>): Promise<T> {
    return this.orm.transaction((tx) => fn(txOps(tx)));
  }
}
