/**
 * A marketplace clip's life (spec section 4, "Clip status"): pending (shown as New) takes one
 * offer, cash or credits; its owner accepts (purchased) or declines (rejected); an admin may
 * delete or remove it at any time (removed: the stored copy is gone).
 */
export const CLIP_STATES = ['pending', 'cash_offered', 'credits_offered', 'purchased', 'rejected', 'removed'] as const;
export type ClipState = (typeof CLIP_STATES)[number];
export type OfferType = 'cash' | 'credits';

export const OPEN_OFFER: readonly ClipState[] = ['cash_offered', 'credits_offered'];

/** The spec's default offers: $0.10 cash, 50 credits. */
export const DEFAULT_OFFER = { cashCents: 10, credits: 50 } as const;
/** Sanity bounds of an offer an admin types. */
export const OFFER_LIMITS = { maxCashCents: 100_000, maxCredits: 1_000_000 } as const;

export const offeredState = (type: OfferType): ClipState => (type === 'cash' ? 'cash_offered' : 'credits_offered');
export const offerTypeOf = (state: ClipState): OfferType | null =>
  state === 'cash_offered' ? 'cash' : state === 'credits_offered' ? 'credits' : null;

export const dollars = (cents: number) => `$${(cents / 100).toFixed(2)}`;

/** The message an accepted or declined offer answers with. */
export function answerMessage(accepted: boolean, type: OfferType, cashCents: number, credits: number): string {
  if (!accepted) return 'Offer declined.';
  return type === 'credits'
    ? `Offer accepted! ${credits} credits have been added to your account.`
    : `Offer accepted! Your ${dollars(cashCents)} payout has been recorded and will be paid to you.`;
}
