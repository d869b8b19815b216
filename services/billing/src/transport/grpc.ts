import { DomainError, ErrorCode, bind, describeHandler } from '@reelsmith/kit';
import { billing } from '@reelsmith/proto';
import type { AccountView, BillingService, ReservationRecord } from '../domain/billing.service.js';
import { CREDIT_PACKS, PLANS } from '../domain/catalogue.js';
import { estimateCredits, isPacing } from '../domain/cost.js';
import { INSUFFICIENT, limitMessages } from '../domain/entitlements.js';

const kindOf = {
  free_video: billing.ReservationKind.FREE_VIDEO,
  credits: billing.ReservationKind.CREDITS,
  unlimited: billing.ReservationKind.UNLIMITED,
};
const statusOf = {
  held: billing.ReservationStatus.HELD,
  captured: billing.ReservationStatus.CAPTURED,
  released: billing.ReservationStatus.RELEASED,
};

const reservation = (r: ReservationRecord) => ({
  reservation: { jobId: r.jobId, userId: r.userId, kind: kindOf[r.kind], status: statusOf[r.status], credits: BigInt(r.credits) },
});

const account = (a: AccountView) => ({
  account: {
    userId: a.userId,
    credits: BigInt(a.credits),
    subscription: {
      plan: a.subscription.plan,
      status: a.subscription.status,
      billingCycle: a.subscription.billingCycle ?? '',
      nextBillingUnixMs: BigInt(a.subscription.nextBillingAt?.getTime() ?? 0),
    },
    lastFreeUse: a.lastFreeUse ?? '',
    dailyFreeUsed: a.dailyFreeUsed,
    entitlements: {
      uploadCapBytes: BigInt(a.entitlements.uploadCapBytes),
      musicCapSeconds: BigInt(a.entitlements.musicCapSeconds),
      librarySelectionCap: a.entitlements.librarySelectionCap,
      unlimited: a.entitlements.unlimited,
      uploadLimitMessage: limitMessages.upload(a.entitlements),
      musicLimitMessage: limitMessages.music(a.entitlements),
      selectionLimitMessage: limitMessages.selection(a.entitlements),
      subscribed: a.entitlements.subscribed,
      insufficientMessage: INSUFFICIENT,
      reelCapSeconds: BigInt(a.entitlements.reelCapSeconds),
      reelLengthLimitMessage: limitMessages.reelLength(a.entitlements),
    },
  },
});

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
function id(value: string, what: string): string {
  if (!UUID.test(value)) throw new DomainError(ErrorCode.INVALID_ARGUMENT, `${what} must be a UUID`);
  return value;
}

/** gRPC handlers of billing: thin, one call into the domain per handler. */
export const grpcBinding = (svc: BillingService) =>
  bind(billing.BillingService, {
    describe: describeHandler('billing'),
    estimate: async (req) => {
      const pacing = req.pacingPreset;
      if (!isPacing(pacing)) throw new DomainError(ErrorCode.INVALID_ARGUMENT, 'pacing must be relaxed, standard or high-energy');
      if (req.totalSourceBytes < 0n) throw new DomainError(ErrorCode.INVALID_ARGUMENT, 'total source size must not be negative');
      if (!Number.isFinite(req.outputSeconds) || req.outputSeconds < 0)
        throw new DomainError(ErrorCode.INVALID_ARGUMENT, 'output seconds must be a finite, non-negative number');
      const input = { pacing, hasMusic: req.hasMusic, totalSourceBytes: req.totalSourceBytes, outputSeconds: req.outputSeconds };
      return { credits: BigInt(estimateCredits(input)) };
    },
    getAccount: async (req) => account(await svc.account(id(req.userId, 'user_id'), req.unlimited, req.enterprise)),
    reserve: async (req) =>
      reservation(await svc.reserve(id(req.jobId, 'job_id'), id(req.userId, 'user_id'), Number(req.estimateCredits), req.unlimited)),
    capture: async (req) => reservation(await svc.capture(id(req.jobId, 'job_id'))),
    release: async (req) => reservation(await svc.release(id(req.jobId, 'job_id'))),
    grant: async (req) => {
      const r = await svc.grant(id(req.userId, 'user_id'), Number(req.credits), req.idempotencyKey, req.reason);
      return { applied: r.applied, balance: BigInt(r.balance) };
    },
    setSubscription: async (req) => {
      const userId = id(req.userId, 'user_id');
      await svc.setSubscription(
        userId,
        req.plan,
        req.billingCycle,
        req.status,
        req.nextBillingUnixMs ? new Date(Number(req.nextBillingUnixMs)) : null,
      );
      return account(await svc.account(userId, false));
    },
    getCatalogue: async () => ({
      plans: PLANS.map((p) => ({
        ...p,
        monthlyPriceCents: BigInt(p.monthlyPriceCents),
        yearlyPriceCents: BigInt(p.yearlyPriceCents),
        monthlyCredits: BigInt(p.monthlyCredits),
        yearlyCredits: BigInt(p.yearlyCredits),
      })),
      packs: CREDIT_PACKS.map((p) => ({ ...p, credits: BigInt(p.credits), priceCents: BigInt(p.priceCents) })),
    }),
  });
