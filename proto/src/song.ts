/**
 * A song's form and bars, for the engine's planner and the studio alike (both import this file):
 * the kinds of section, and the rule for cutting a whole number of bars nearest a target length.
 */

/** The kinds of a song's sections (the engine's `songSections`; `SongSection.kind`). */
export const SECTION_KINDS = ['intro', 'verse', 'chorus', 'bridge', 'outro'] as const;
export type SectionKind = (typeof SECTION_KINDS)[number];

/** `kind` as a section kind; null when it is not one (an analysis of another version). */
export const sectionKind = (kind: string): SectionKind | null =>
  (SECTION_KINDS as readonly string[]).includes(kind) ? (kind as SectionKind) : null;

const EPS = 1e-6;

/**
 * The whole number of bars nearest `targetSec` from the bar line `bars[i]` (seconds, ascending):
 * the index of its last bar line, or -1 when none lies within half a bar of the target (near the
 * song's end). A reel of a target length plays such a window of its song.
 */
export function barsNearest(bars: readonly number[], i: number, targetSec: number): number {
  let best = -1;
  for (let j = i + 1; j < bars.length; j++) {
    if (best < 0 || Math.abs(bars[j]! - bars[i]! - targetSec) < Math.abs(bars[best]! - bars[i]! - targetSec)) best = j;
    if (bars[j]! - bars[i]! > targetSec) break;
  }
  if (best < 0) return -1;
  const barLen = (bars[best]! - bars[i]!) / (best - i);
  return Math.abs(bars[best]! - bars[i]! - targetSec) <= barLen / 2 + EPS ? best : -1;
}

/** The bar lines of a song of `durationSec` that a window of `targetSec` may start on (`barsNearest` finds its end). */
export function windowStarts(bars: readonly number[], durationSec: number, targetSec: number): number[] {
  const lines = bars.filter((b) => b >= 0 && b <= durationSec + EPS);
  return lines.filter((_, i) => barsNearest(lines, i, targetSec) >= 0);
}
