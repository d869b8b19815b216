import type { AccountDeletionPorts } from '../domain/account-deletion.js';
import type { CheckoutPorts } from '../domain/checkout.js';
import type { Peers } from './clients.js';

/** Account deletion over identity, media-library and billing. */
export function accountDeletionPorts(peers: Peers): AccountDeletionPorts {
  return {
    checkPassword: async (r) =>
      void (await peers.identity.checkPassword(
        { userId: r.userId, password: r.password, client: { ip: r.ip } },
        { requestId: r.requestId },
      )),
    deleteMedia: async (r) => void (await peers.media.deleteUserData({ ownerId: r.userId }, { requestId: r.requestId })),
    anonymiseBilling: async (r) => void (await peers.billing.anonymiseUser({ userId: r.userId }, { requestId: r.requestId })),
    deleteAccount: async (r) =>
      void (await peers.identity.deleteAccount(
        { userId: r.userId, password: r.password, client: { ip: r.ip } },
        { requestId: r.requestId },
      )),
  };
}

/** Checkout over billing's catalogue and payments. */
export function checkoutPorts(peers: Peers): CheckoutPorts {
  return {
    async catalogue(requestId) {
      const c = await peers.billing.getCatalogue({}, { requestId });
      return {
        packs: c.packs.map((p) => ({ id: p.id, priceCents: Number(p.priceCents) })),
        plans: c.plans.map((p) => ({
          id: p.id,
          monthlyPriceCents: Number(p.monthlyPriceCents),
          yearlyPriceCents: Number(p.yearlyPriceCents),
        })),
      };
    },
    async createPayment(buyer, o, requestId) {
      const r = await peers.billing.createPayment(
        {
          userId: buyer.id,
          email: buyer.email,
          type: o.type,
          itemId: o.itemId,
          amountCents: BigInt(o.amountCents),
          currency: o.currency,
          paymentMethod: o.paymentMethod,
          billingCycle: o.billingCycle ?? '',
        },
        { requestId },
      );
      return {
        clientSecret: r.clientSecret,
        paymentIntentId: r.paymentIntentId,
        provider: r.provider,
        publishableKey: r.publishableKey,
        approvalUrl: r.approvalUrl,
      };
    },
  };
}
