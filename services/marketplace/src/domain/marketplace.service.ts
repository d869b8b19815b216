import { DomainError, ErrorCode, type Logger } from '@reelsmith/kit';
import type { MessageInitShape } from '@bufbuild/protobuf';
import type { Subject, SubjectSchema } from '@reelsmith/proto';
import {
  DEFAULT_OFFER,
  OFFER_LIMITS,
  OPEN_OFFER,
  answerMessage,
  dollars,
  offerTypeOf,
  offeredState,
  type ClipState,
  type OfferType,
} from './clip-states.js';

export type GrantState = 'none' | 'pending' | 'granted';

export interface ClipRecord {
  id: string;
  uploadKey: string;
  userId: string;
  userEmail: string;
  jobId: string;
  filename: string;
  sizeBytes: number;
  /** The marketplace's own copy; '' once removed. */
  objectKey: string;
  thumbnailKey: string;
  status: ClipState;
  offerType: OfferType | null;
  cashCents: number;
  credits: number;
  /** When the user consented (the job carrying get_footage_offers was recorded). */
  consentedAt: Date;
  offeredAt: Date | null;
  answeredAt: Date | null;
  /** Credits of an accepted credits offer: pending until billing confirmed the grant. */
  grantState: GrantState;
}

export interface PayoutRecord {
  id: string;
  clipId: string;
  userId: string;
  userEmail: string;
  filename: string;
  amountCents: number;
  state: 'pending' | 'paid';
  createdAt: Date;
  paidAt: Date | null;
}

export type ClipFields = Partial<
  Pick<
    ClipRecord,
    'status' | 'offerType' | 'cashCents' | 'credits' | 'offeredAt' | 'answeredAt' | 'grantState' | 'objectKey' | 'thumbnailKey'
  >
>;

/** Storage of one transaction: the clip row is locked until it ends. */
export interface MarketplaceTx {
  lockClip(id: string): Promise<ClipRecord | null>;
  updateClip(id: string, fields: ClipFields): Promise<ClipRecord>;
  insertPayout(p: PayoutRecord): Promise<void>;
  lockPayout(id: string): Promise<PayoutRecord | null>;
  markPayoutPaid(id: string, at: Date): Promise<PayoutRecord>;
  emit<S extends Subject>(subject: S, message: MessageInitShape<SubjectSchema<S>>, msgId: string): Promise<void>;
}

export interface MarketplaceRepository {
  clipByUploadKey(uploadKey: string): Promise<ClipRecord | null>;
  /** False when a clip of this upload exists already. */
  insertClip(c: ClipRecord): Promise<boolean>;
  clip(id: string): Promise<ClipRecord | null>;
  /** Every clip but removed ones, newest first. */
  clips(): Promise<ClipRecord[]>;
  /** The user's clips with an open offer, newest offer first. */
  openOffers(userId: string): Promise<ClipRecord[]>;
  pendingGrants(limit: number): Promise<ClipRecord[]>;
  payouts(): Promise<PayoutRecord[]>;
  transaction<T>(fn: (tx: MarketplaceTx) => Promise<T>): Promise<T>;
}

/** The marketplace's copies in object storage. */
export interface ClipStore {
  /** Copies `from` to `to`; null when `from` does not exist. */
  copy(from: string, to: string): Promise<{ size: number } | null>;
  delete(key: string): Promise<void>;
}

export interface Users {
  email(userId: string): Promise<string>;
}

export interface Credits {
  /** Idempotent by key: a second grant with the same key adds nothing. */
  grant(userId: string, credits: number, key: string, reason: string): Promise<void>;
}

export interface OfferMailer {
  offerMade(to: string, filename: string, offer: string): Promise<void>;
}

export interface OptIn {
  uploadKey: string;
  userId: string;
  jobId: string;
  filename: string;
  sizeBytes: number;
  thumbnailKey: string;
  consentedAt: Date;
}

export interface Ids {
  clip(): string;
  payout(): string;
}

const extOf = (key: string) => {
  const m = /\.[a-z0-9]{1,8}$/i.exec(key);
  return m ? m[0].toLowerCase() : '';
};
const notFound = () => new DomainError(ErrorCode.NOT_FOUND, 'Clip not found.', 'clip_not_found');
/** The key billing de-duplicates a credits grant by: one per offer (a clip takes one offer). */
export const grantKey = (clipId: string) => `marketplace-offer:${clipId}`;

/**
 * The footage marketplace's rules. Clips arrive from the orchestrator's opt-in event (each upload
 * once, copied into the marketplace's own keys); admins offer on pending clips; the owner answers
 * once, under the clip's row lock, so concurrent answers have one outcome.
 */
export class MarketplaceService {
  constructor(
    private readonly repo: MarketplaceRepository,
    private readonly store: ClipStore,
    private readonly users: Users,
    private readonly credits: Credits,
    private readonly mailer: OfferMailer,
    private readonly ids: Ids,
    private readonly log: Logger,
    private readonly clock: () => Date = () => new Date(),
    /** Called after a transaction that recorded events committed (kicks the outbox relay). */
    private readonly committed: () => void = () => undefined,
  ) {}

  /** Records an opted-in upload, idempotently by its key. */
  async optIn(o: OptIn): Promise<'recorded' | 'duplicate' | 'missing'> {
    if (await this.repo.clipByUploadKey(o.uploadKey)) return 'duplicate';
    const id = this.ids.clip();
    const objectKey = `marketplace/clips/${id}${extOf(o.uploadKey)}`;
    const copied = await this.store.copy(o.uploadKey, objectKey);
    // The upload expired or was deleted before we got to it: nothing to show an admin.
    if (!copied) return 'missing';
    let thumbnailKey = '';
    if (o.thumbnailKey) {
      const t = `marketplace/thumbnails/${id}${extOf(o.thumbnailKey) || '.jpg'}`;
      if (await this.store.copy(o.thumbnailKey, t)) thumbnailKey = t;
    }
    const userEmail = await this.users.email(o.userId);
    const inserted = await this.repo.insertClip({
      id,
      uploadKey: o.uploadKey,
      userId: o.userId,
      userEmail,
      jobId: o.jobId,
      filename: o.filename,
      sizeBytes: copied.size || o.sizeBytes,
      objectKey,
      thumbnailKey,
      status: 'pending',
      offerType: null,
      cashCents: 0,
      credits: 0,
      consentedAt: o.consentedAt,
      offeredAt: null,
      answeredAt: null,
      grantState: 'none',
    });
    if (!inserted) {
      // A concurrent delivery of the same upload won: our copies are not referenced.
      await Promise.all([objectKey, thumbnailKey].filter(Boolean).map((k) => this.store.delete(k)));
      return 'duplicate';
    }
    return 'recorded';
  }

  async list(): Promise<{ clips: ClipRecord[]; total: number; pending: number }> {
    const clips = await this.repo.clips();
    return { clips, total: clips.length, pending: clips.filter((c) => c.status === 'pending').length };
  }

  async get(id: string): Promise<ClipRecord> {
    const c = await this.repo.clip(id);
    if (!c || c.status === 'removed') throw notFound();
    return c;
  }

  /** Only a pending clip takes an offer. Amount: cents for cash, credits for credits. */
  async makeOffer(id: string, type: OfferType, amount?: number): Promise<ClipRecord> {
    const cashCents = type === 'cash' ? (amount ?? DEFAULT_OFFER.cashCents) : 0;
    const credits = type === 'credits' ? (amount ?? DEFAULT_OFFER.credits) : 0;
    if (type === 'cash' && (!Number.isInteger(cashCents) || cashCents < 1 || cashCents > OFFER_LIMITS.maxCashCents))
      throw new DomainError(
        ErrorCode.INVALID_ARGUMENT,
        `A cash offer must be between $0.01 and ${dollars(OFFER_LIMITS.maxCashCents)}.`,
        'invalid_amount',
      );
    if (type === 'credits' && (!Number.isInteger(credits) || credits < 1 || credits > OFFER_LIMITS.maxCredits))
      throw new DomainError(
        ErrorCode.INVALID_ARGUMENT,
        `A credits offer must be a whole number between 1 and ${OFFER_LIMITS.maxCredits}.`,
        'invalid_amount',
      );
    const now = this.clock();
    const clip = await this.repo.transaction(async (tx) => {
      const c = await tx.lockClip(id);
      if (!c || c.status === 'removed') throw notFound();
      if (c.status !== 'pending')
        throw new DomainError(ErrorCode.FAILED_PRECONDITION, 'Only pending clips can receive offers.', 'clip_not_pending');
      const updated = await tx.updateClip(id, { status: offeredState(type), offerType: type, cashCents, credits, offeredAt: now });
      await tx.emit(
        'events.marketplace.offer_made',
        {
          clipId: id,
          userId: c.userId,
          offerType: type,
          cashCents: BigInt(cashCents),
          credits: BigInt(credits),
          offeredAtUnixMs: BigInt(now.getTime()),
          filename: c.filename,
        },
        `marketplace.offer_made.${id}`,
      );
      return updated;
    });
    this.committed();
    this.log.info({ clip_id: id, offer_type: type, cash_cents: cashCents, credits }, 'offer made');
    return clip;
  }

  /** Delete (pending) or Remove (others): the stored copy goes, the row stays as 'removed'. */
  async remove(id: string): Promise<void> {
    const before = await this.repo.transaction(async (tx) => {
      const c = await tx.lockClip(id);
      if (!c || c.status === 'removed') throw notFound();
      await tx.updateClip(id, { status: 'removed', objectKey: '', thumbnailKey: '' });
      return c;
    });
    await Promise.all([before.objectKey, before.thumbnailKey].filter(Boolean).map((k) => this.store.delete(k)));
    this.log.info({ clip_id: id, was: before.status }, 'clip removed');
  }

  offers(userId: string): Promise<ClipRecord[]> {
    return this.repo.openOffers(userId);
  }

  /**
   * The owner's answer. Under the clip's lock: the first answer wins; a repeat of it changes
   * nothing and answers the same; a different answer after it is refused. Accepting credits
   * grants them through billing once (key from the offer); accepting cash records a payout.
   */
  async answer(
    userId: string,
    id: string,
    accept: boolean,
    type?: OfferType,
  ): Promise<{ clip: ClipRecord; message: string; applied: boolean }> {
    const now = this.clock();
    const result = await this.repo.transaction(async (tx) => {
      const c = await tx.lockClip(id);
      if (!c || c.userId !== userId || c.status === 'removed') throw notFound();
      if (!OPEN_OFFER.includes(c.status)) {
        const repeat = (c.status === 'purchased' && accept) || (c.status === 'rejected' && !accept);
        if (repeat && c.offerType) return { clip: c, message: answerMessage(accept, c.offerType, c.cashCents, c.credits), applied: false };
        if (c.status === 'pending')
          throw new DomainError(ErrorCode.FAILED_PRECONDITION, 'There is no open offer for this clip.', 'no_open_offer');
        throw new DomainError(ErrorCode.FAILED_PRECONDITION, 'This offer has already been answered.', 'offer_answered');
      }
      const offered = offerTypeOf(c.status)!;
      if (accept && type && type !== offered)
        throw new DomainError(ErrorCode.FAILED_PRECONDITION, `This is a ${offered} offer, not a ${type} offer.`, 'offer_type_mismatch');
      const updated = await tx.updateClip(id, {
        status: accept ? 'purchased' : 'rejected',
        answeredAt: now,
        ...(accept && offered === 'credits' ? { grantState: 'pending' as const } : {}),
      });
      await tx.emit(
        'events.marketplace.offer_answered',
        {
          clipId: id,
          userId,
          accepted: accept,
          offerType: offered,
          cashCents: BigInt(c.cashCents),
          credits: BigInt(c.credits),
          answeredAtUnixMs: BigInt(now.getTime()),
        },
        `marketplace.offer_answered.${id}`,
      );
      if (accept) {
        if (offered === 'cash')
          await tx.insertPayout({
            id: this.ids.payout(),
            clipId: id,
            userId,
            userEmail: c.userEmail,
            filename: c.filename,
            amountCents: c.cashCents,
            state: 'pending',
            createdAt: now,
            paidAt: null,
          });
        await tx.emit(
          'events.marketplace.clip_purchased',
          {
            clipId: id,
            objectKey: c.objectKey,
            filename: c.filename,
            sizeBytes: BigInt(c.sizeBytes),
            thumbnailKey: c.thumbnailKey,
            uploaderUserId: c.userId,
            uploaderEmail: c.userEmail,
            category: 'community',
            purchasedAtUnixMs: BigInt(now.getTime()),
          },
          `marketplace.clip_purchased.${id}`,
        );
      }
      return { clip: updated, message: answerMessage(accept, offered, c.cashCents, c.credits), applied: true };
    });
    this.committed();
    if (result.applied) {
      this.log.info({ clip_id: id, accepted: accept, offer_type: result.clip.offerType }, 'offer answered');
      // The grant is recorded as owed in the same transaction; paying it now (or, after a crash
      // or a billing outage, from the sweep) is safe to repeat: billing de-duplicates by key.
      if (result.clip.grantState === 'pending') result.clip = await this.settleGrant(result.clip).catch(() => result.clip);
    }
    return result;
  }

  /** Grants owed credits (accepted credits offers billing has not confirmed yet). */
  async settleGrants(): Promise<number> {
    let n = 0;
    for (const c of await this.repo.pendingGrants(100)) {
      await this.settleGrant(c).then(
        () => n++,
        () => undefined,
      );
    }
    return n;
  }

  private async settleGrant(c: ClipRecord): Promise<ClipRecord> {
    try {
      await this.credits.grant(c.userId, c.credits, grantKey(c.id), `Footage offer accepted: ${c.filename}`);
    } catch (e) {
      this.log.warn({ err: e, clip_id: c.id }, 'credits grant failed; the sweep retries');
      throw e;
    }
    return this.repo.transaction((tx) => tx.updateClip(c.id, { grantState: 'granted' }));
  }

  payouts(): Promise<PayoutRecord[]> {
    return this.repo.payouts();
  }

  async markPaid(payoutId: string): Promise<PayoutRecord> {
    const now = this.clock();
    return this.repo.transaction(async (tx) => {
      const p = await tx.lockPayout(payoutId);
      if (!p) throw new DomainError(ErrorCode.NOT_FOUND, 'Payout not found.', 'payout_not_found');
      if (p.state === 'paid') return p;
      return tx.markPayoutPaid(payoutId, now);
    });
  }

  /** Tells the owner by mail that an offer was made (from the offer_made event). */
  async notifyOffer(clipId: string): Promise<void> {
    const c = await this.repo.clip(clipId);
    if (!c || !c.offerType || !c.userEmail) return;
    const offer = c.offerType === 'cash' ? `${dollars(c.cashCents)} cash` : `${c.credits} credits`;
    await this.mailer.offerMade(c.userEmail, c.filename, offer);
  }
}
