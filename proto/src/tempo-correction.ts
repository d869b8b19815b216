/**
 * The tempo corrections a user can make to a music track's beats (the engine applies them,
 * media-library keeps them, the gateway accepts them): their names and the limits on taps.
 */
export const TEMPO_CORRECTION_KINDS = ['halve', 'double', 'shift', 'tap'] as const;
export type TempoCorrectionKind = (typeof TEMPO_CORRECTION_KINDS)[number];

/** A stored correction's name as a kind; one this version does not know counts as a tap. */
export const correctionKind = (k: string): TempoCorrectionKind =>
  (TEMPO_CORRECTION_KINDS as readonly string[]).includes(k) ? (k as TempoCorrectionKind) : 'tap';

/** At least 4 taps (three intervals), at most 64; a tapped tempo within 30-300 BPM. */
export const TAP_LIMITS = { minTaps: 4, maxTaps: 64, minBpm: 30, maxBpm: 300 } as const;
