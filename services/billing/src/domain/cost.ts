import { PACING_PRESETS, type PacingPreset } from '@reelsmith/proto';
/**
 * The one cost formula (spec section 9, as the billing-core issue fixes it): base 120 credits
 * (190 with music), divided by 6, times the pacing factor (relaxed 1, standard 1.5, high-energy 2),
 * plus 0.05 credits per MB (2^20 bytes) of total source above 300 MB; rounded up; at least 10.
 * Then length (issue 12; the guide's "10 credits per minute of output", the free daily video
 * covering up to 3 minutes): a reel over 3 minutes adds 10 credits for each started minute beyond
 * the third (3:00 adds nothing, 3:01 adds 10, 12:00 adds 90).
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
/** Length included in the base price, and the price of each started minute beyond it. */
export const INCLUDED_OUTPUT_SECONDS = 3 * 60;
export const CREDITS_PER_EXTRA_MINUTE = 10;

export interface CostInput {
  pacing: Pacing;
  hasMusic: boolean;
  totalSourceBytes: number | bigint;
  /** How long the reel will be (`reelSeconds` of @reelsmith/proto); 0 or absent when not known. */
  outputSeconds?: number;
}

/**
 * 10 credits per started minute beyond the third. Counted in whole milliseconds, so float noise
 * from summing clip durations (180.00000000000003) does not start a minute.
 */
export function lengthSurcharge(outputSeconds: number): number {
  if (!Number.isFinite(outputSeconds) || outputSeconds < 0) throw new RangeError('outputSeconds must be a finite, non-negative number');
  const extraMs = Math.round(outputSeconds * 1000) - INCLUDED_OUTPUT_SECONDS * 1000;
  return extraMs > 0 ? Math.ceil(extraMs / 60_000) * CREDITS_PER_EXTRA_MINUTE : 0;
}

export function estimateCredits({ pacing, hasMusic, totalSourceBytes, outputSeconds = 0 }: CostInput): number {
  const bytes = BigInt(totalSourceBytes);
  if (bytes < 0n) throw new RangeError('totalSourceBytes must not be negative');
  const surcharge = lengthSurcharge(outputSeconds);
  const base = hasMusic ? 190n : 120n;
  const excess = bytes > FREE_SOURCE_BYTES ? bytes - FREE_SOURCE_BYTES : 0n;
  // base * (halves/2) / 6  +  excess / (20 * MB)   over the denominator 12 * 20 * MB
  const denominator = 12n * 20n * MB;
  const numerator = base * FACTOR_HALVES[pacing] * 20n * MB + excess * 12n;
  const credits = (numerator + denominator - 1n) / denominator;
  return Math.max(MIN_CREDITS, Number(credits)) + surcharge;
}
