import { PACING_PRESETS, type PacingPreset } from '@reelsmith/proto';
/**
 * The one cost formula (spec section 9, as the billing-core issue fixes it): base 120 credits
 * (190 with music), divided by 6, times the pacing factor (relaxed 1, standard 1.5, high-energy 2),
 * plus 0.05 credits per MB (2^20 bytes) of total source above 300 MB; rounded up; at least 10.
 * Used for the estimate users see and for the charge, so the two cannot differ.
 *
 * Computed in exact integer arithmetic: base*factor/6 + excessBytes/(20*2^20), over a common
 * denominator, then a ceiling division. No floating point rounding can add or drop a credit.
 */
export const PACINGS = PACING_PRESETS;
export type Pacing = PacingPreset;
export const isPacing = (p: string): p is Pacing => (PACINGS as readonly string[]).includes(p);

const MB = 1024n * 1024n;
const FREE_SOURCE_BYTES = 300n * MB;
/** Pacing factor in halves: 1 -> 2, 1.5 -> 3, 2 -> 4. */
const FACTOR_HALVES: Record<Pacing, bigint> = { relaxed: 2n, standard: 3n, 'high-energy': 4n };
export const MIN_CREDITS = 10;

export interface CostInput {
  pacing: Pacing;
  hasMusic: boolean;
  totalSourceBytes: number | bigint;
}

export function estimateCredits({ pacing, hasMusic, totalSourceBytes }: CostInput): number {
  const bytes = BigInt(totalSourceBytes);
  if (bytes < 0n) throw new RangeError('totalSourceBytes must not be negative');
  const base = hasMusic ? 190n : 120n;
  const excess = bytes > FREE_SOURCE_BYTES ? bytes - FREE_SOURCE_BYTES : 0n;
  // base * (halves/2) / 6  +  excess / (20 * MB)   over the denominator 12 * 20 * MB
  const denominator = 12n * 20n * MB;
  const numerator = base * FACTOR_HALVES[pacing] * 20n * MB + excess * 12n;
  const credits = (numerator + denominator - 1n) / denominator;
  return Math.max(MIN_CREDITS, Number(credits));
}
