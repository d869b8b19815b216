/** An admin's offer for an opted-in clip, as sent: cash in dollars or whole credits, the amount optional. */
export type OfferRequest = { type: 'cash'; amount?: number } | { type: 'credits'; amount?: number };

/** The offer cash comes to without an amount: US$0.10. */
export const DEFAULT_CASH_OFFER = 0.1;
/** The offer in credits without an amount. */
export const DEFAULT_CREDITS_OFFER = 50;

/**
 * An offer in the units marketplace keeps: whole cents or whole credits (the other 0). The
 * request's schema has already refused amounts that are not whole cents or whole credits, so
 * rounding only undoes binary fractions (0.29 * 100).
 */
export function offerTerms(o: OfferRequest): { offerType: 'cash' | 'credits'; cashCents: bigint; credits: bigint } {
  return {
    offerType: o.type,
    cashCents: o.type === 'cash' ? BigInt(Math.round((o.amount ?? DEFAULT_CASH_OFFER) * 100)) : 0n,
    credits: o.type === 'credits' ? BigInt(o.amount ?? DEFAULT_CREDITS_OFFER) : 0n,
  };
}
