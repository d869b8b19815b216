import { DomainError, ErrorCode, bind, describeHandler } from '@reelsmith/kit';
import { marketplace } from '@reelsmith/proto';
import type { ClipRecord, MarketplaceService, PayoutRecord } from '../domain/marketplace.service.js';

const ms = (d: Date | null) => BigInt(d?.getTime() ?? 0);

const clip = (c: ClipRecord) => ({
  id: c.id,
  uploadKey: c.uploadKey,
  userId: c.userId,
  userEmail: c.userEmail,
  filename: c.filename,
  sizeBytes: BigInt(c.sizeBytes),
  objectKey: c.objectKey,
  thumbnailKey: c.thumbnailKey,
  status: c.status,
  offerType: c.offerType ?? '',
  cashCents: BigInt(c.cashCents),
  credits: BigInt(c.credits),
  uploadedAtUnixMs: ms(c.consentedAt),
  offeredAtUnixMs: ms(c.offeredAt),
  answeredAtUnixMs: ms(c.answeredAt),
});

const payout = (p: PayoutRecord) => ({
  id: p.id,
  clipId: p.clipId,
  userId: p.userId,
  userEmail: p.userEmail,
  filename: p.filename,
  amountCents: BigInt(p.amountCents),
  state: p.state,
  createdAtUnixMs: ms(p.createdAt),
  paidAtUnixMs: ms(p.paidAt),
});

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
function id(value: string, what: string): string {
  if (!UUID.test(value)) throw new DomainError(ErrorCode.NOT_FOUND, `${what} not found.`, 'not_found');
  return value;
}
function offerType(v: string): 'cash' | 'credits' {
  if (v !== 'cash' && v !== 'credits') throw new DomainError(ErrorCode.INVALID_ARGUMENT, 'The offer type must be cash or credits.');
  return v;
}

/** gRPC handlers of marketplace: thin, one call into the domain per handler. */
export const grpcBinding = (svc: MarketplaceService) =>
  bind(marketplace.MarketplaceService, {
    describe: describeHandler('marketplace'),
    listClips: async () => {
      const r = await svc.list();
      return { clips: r.clips.map(clip), total: r.total, pending: r.pending };
    },
    getClip: async (req) => clip(await svc.get(id(req.clipId, 'Clip'))),
    makeOffer: async (req) => {
      const type = offerType(req.offerType);
      return clip(await svc.makeOffer(id(req.clipId, 'Clip'), type, Number(type === 'cash' ? req.cashCents : req.credits)));
    },
    deleteClip: async (req) => {
      await svc.remove(id(req.clipId, 'Clip'));
      return {};
    },
    listOffers: async (req) => ({ offers: (await svc.offers(id(req.userId, 'User'))).map(clip) }),
    answerOffer: async (req) => {
      const r = await svc.answer(
        id(req.userId, 'User'),
        id(req.clipId, 'Clip'),
        req.accept,
        req.accept && req.offerType ? offerType(req.offerType) : undefined,
      );
      return { clip: clip(r.clip), message: r.message, applied: r.applied };
    },
    listPayouts: async () => ({ payouts: (await svc.payouts()).map(payout) }),
    markPayoutPaid: async (req) => payout(await svc.markPaid(id(req.payoutId, 'Payout'))),
  });
