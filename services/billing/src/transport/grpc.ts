import { DomainError, ErrorCode, bind, describeHandler } from '@reelsmith/kit';
import { billing } from '@reelsmith/proto';
import type { AccountView, BillingService, ReservationRecord } from '../domain/billing.service.js';
import type { PaymentRecord, PaymentsService } from '../domain/payments.service.js';
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
      cancelAtPeriodEnd: a.subscription.cancelAtPeriodEnd ?? false,
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

/** The plans and packs as GetCatalogue answers them (also what public-pages.spec's billing stand-in answers). */
export const catalogueReply = () => ({
  plans: PLANS.map((p) => ({
    ...p,
    monthlyPriceCents: BigInt(p.monthlyPriceCents),
    yearlyPriceCents: BigInt(p.yearlyPriceCents),
    monthlyCredits: BigInt(p.monthlyCredits),
    yearlyCredits: BigInt(p.yearlyCredits),
  })),
  packs: CREDIT_PACKS.map((p) => ({ ...p, credits: BigInt(p.credits), priceCents: BigInt(p.priceCents) })),
});

const payment = (p: PaymentRecord) => ({
  id: p.id,
  createdUnixMs: BigInt(p.createdAt.getTime()),
  type: p.type,
  itemId: p.itemId,
  itemName: p.itemName,
  amountCents: BigInt(p.amountCents),
  currency: p.currency,
  credits: BigInt(p.credits),
  provider: p.provider,
  paymentMethod: p.method,
  status: p.status,
  failureMessage: p.failureMessage,
  billingCycle: p.billingCycle ?? '',
  refundedCredits: BigInt(p.refundedCredits),
  refundedCents: BigInt(p.refundedCents),
});

/** gRPC handlers of billing: thin, one call into the domain per handler. */
export const grpcBinding = (svc: BillingService, pay: PaymentsService) =>
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
    anonymiseUser: async (req) => {
      await svc.anonymiseUser(req.userId);
      return {};
    },
    createPayment: async (req) =>
      pay.create({
        userId: id(req.userId, 'user_id'),
        email: req.email,
        type: req.type,
        itemId: req.itemId,
        amountCents: Number(req.amountCents),
        currency: req.currency,
        method: req.paymentMethod,
        billingCycle: req.billingCycle,
      }),
    confirmPayment: async (req) => {
      const userId = id(req.userId, 'user_id');
      const p = await pay.confirm(userId, req.paymentIntentId, {
        testCard: req.testCard,
        testExpiry: req.testExpiry,
        testCvc: req.testCvc,
        paypalAction: req.paypalAction,
      });
      return { payment: payment(p), ...account(await svc.account(userId, false)) };
    },
    revenue: async (req) => {
      const r = await pay.revenue(req.hours);
      return { amountCents: BigInt(r.cents), payments: BigInt(r.payments) };
    },
    history: async (req) => ({ payments: (await pay.history(id(req.userId, 'user_id'))).map(payment) }),
    cancelSubscription: async (req) => {
      const userId = id(req.userId, 'user_id');
      await pay.cancel(userId);
      return account(await svc.account(userId, false));
    },
    handleWebhook: async (req) => pay.webhook(req.provider, Buffer.from(req.payload), req.headers),
    refund: async (req) => payment(await pay.refund(req.paymentId, Number(req.amountCents))),
    getPaymentConfig: async () => {
      const c = pay.config();
      return { cardProvider: c.cardProvider, paypalProvider: c.paypalProvider, stripePublishableKey: c.publishableKey };
    },
    getCatalogue: async () => catalogueReply(),
  });
