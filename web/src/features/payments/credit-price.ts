// What a credit costs in money: per pack and per plan (the Pricing cards), and what a reel's
// estimate costs at those prices (Home's estimate). Pure, tested alone.
import { formatMoney } from '../../base/format';

/** Dollars a credit costs when `credits` are bought for `price` dollars. */
export const creditPrice = (price: number, credits: number) => (credits > 0 ? price / credits : 0);

/** A credit's price as people read it: 0.05 -> "5¢", 0.0333 -> "3.33¢", 0.032 -> "3.2¢". */
export function cents(dollarsPerCredit: number): string {
  const c = Math.round(dollarsPerCredit * 100 * 100) / 100;
  return `${c}¢`;
}

/** "5¢ a credit" under a pack or a plan. */
export const perCreditLine = (price: number, credits: number) => `${cents(creditPrice(price, credits))} a credit`;

/**
 * What `credits` cost in money at the credit packs' prices, cheapest to dearest:
 * "$2.05 to $3.20 in credit packs" (one price when the packs agree); '' without packs.
 */
export function estimateInMoney(credits: number, packs: readonly { price: number; credits: number }[]): string {
  const prices = packs.filter((p) => p.credits > 0).map((p) => creditPrice(p.price, p.credits) * credits);
  if (!prices.length || credits <= 0) return '';
  const lo = Math.min(...prices);
  const hi = Math.max(...prices);
  const m = (d: number) => formatMoney(Math.round(d * 100) / 100);
  return Math.abs(hi - lo) < 0.005 ? `${m(lo)} in credit packs` : `${m(lo)} to ${m(hi)} in credit packs`;
}

/** The cheapest and dearest credit across the packs and the plans (both cycles): "2¢ to 5¢"; '' without any. */
export function creditPriceRange(
  packs: readonly { price: number; credits: number }[],
  plans: readonly { monthly_price: number; monthly_credits: number; yearly_price: number; yearly_credits: number }[],
): string {
  const each = [
    ...packs.map((p) => creditPrice(p.price, p.credits)),
    ...plans.flatMap((p) => [creditPrice(p.monthly_price, p.monthly_credits), creditPrice(p.yearly_price, p.yearly_credits)]),
  ].filter((x) => x > 0);
  if (!each.length) return '';
  const lo = cents(Math.min(...each));
  const hi = cents(Math.max(...each));
  return lo === hi ? lo : `${lo} to ${hi}`;
}
