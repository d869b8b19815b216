/**
 * The window of the song a reel plays (issue 34), as data: where it may start (a bar line from
 * which the whole number of bars nearest the target still fits in the song, the engine's rule in
 * packages/engine/src/song-sections.ts `chooseMusicWindow`), snapping a dragged window to one of
 * them, the keys of the window's slider, and what a screen reader says. Pure, tested alone.
 */

import { windowStarts } from '../../../../proto/src/song.ts';
import type { EditPlan, PlanMusic } from '../../api/types';

/** How many bars PageUp and PageDown move the window. */
export const PAGE_BARS = 4;

/**
 * The bar lines the window can start on: those from which the whole number of bars nearest the
 * target still fits in the song, by the engine's own rule (a start it cannot use would be replaced
 * by its own choice). The rule is written once, in proto/src/song.ts; the web imports the file.
 */
export { windowStarts };

/** The index of the start nearest to `t` (-1 when there is none). */
export function nearestStart(starts: readonly number[], t: number): number {
  let best = -1;
  for (let i = 0; i < starts.length; i++) if (best < 0 || Math.abs(starts[i]! - t) < Math.abs(starts[best]! - t)) best = i;
  return best;
}

/**
 * Where a key moves the window from start index `at`: ArrowLeft/ArrowDown one bar earlier,
 * ArrowRight/ArrowUp one later, PageDown/PageUp PAGE_BARS bars, Home the first start, End the
 * last; clamped to the starts. Undefined for any other key (the key is not the slider's).
 */
export function keyStep(key: string, at: number, count: number): number | undefined {
  if (count <= 0) return undefined;
  const last = count - 1;
  const clamp = (i: number) => Math.max(0, Math.min(last, i));
  switch (key) {
    case 'ArrowLeft':
    case 'ArrowDown':
      return clamp(at - 1);
    case 'ArrowRight':
    case 'ArrowUp':
      return clamp(at + 1);
    case 'PageDown':
      return clamp(at - PAGE_BARS);
    case 'PageUp':
      return clamp(at + PAGE_BARS);
    case 'Home':
      return 0;
    case 'End':
      return last;
    default:
      return undefined;
  }
}

/**
 * The start of a dragged window, snapped: the pointer is at `pointerSec` (song time) and grabbed
 * the window `grabSec` after its start; the window follows the pointer to the nearest start.
 */
export function dragStart(starts: readonly number[], pointerSec: number, grabSec: number): number | undefined {
  const i = nearestStart(starts, pointerSec - grabSec);
  return i < 0 ? undefined : starts[i];
}

/** The bar a time falls in, counted from 1 (bar 1 begins at the first bar line; before it, 1). */
export function barNumber(bars: readonly number[], t: number): number {
  let n = 0;
  for (const b of bars) if (b <= t + 0.01) n++;
  return Math.max(1, n);
}

/** 42.3 -> "0:42" (whole seconds, as the rest of the studio shows times). */
export function minSec(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

/** What the window's slider says: "Starts at 0:42, bar 17". */
export const windowText = (bars: readonly number[], start: number) => `Starts at ${minSec(start)}, bar ${barNumber(bars, start)}`;

/** A section's name as shown: its kind ("Chorus"), else its letter ("Section B"). */
export const sectionName = (s: Pick<PlanMusic['sections'][number], 'label' | 'kind'>) =>
  s.kind ? s.kind[0]!.toUpperCase() + s.kind.slice(1) : `Section ${s.label || '?'}`;

/** Whether the reel plays a window of the song (a target length shorter than the song), so the window is shown. */
export const usesWindow = (targetSec: number | null | undefined, plan: Pick<EditPlan, 'clamped_to_song' | 'total_sec'>, songSec: number) =>
  targetSec !== null && targetSec !== undefined && !plan.clamped_to_song && plan.total_sec < songSec - 0.05;

/**
 * After a tempo correction the bar lines move, so the window's old start is no longer one of them
 * (the server refuses it): the start of the corrected grid nearest to where the window was, or
 * null when no window of the target fits (the engine then chooses).
 */
export function startAfterCorrection(bars: readonly number[], durationSec: number, targetSec: number, was: number): number | null {
  const starts = windowStarts(bars, durationSec, targetSec);
  const i = nearestStart(starts, was);
  return i < 0 ? null : starts[i]!;
}

/** The part of a plan a correction may change: the reel's length and where it starts in the song. */
export type PlanSpan = Pick<EditPlan, 'total_sec' | 'music_start'>;

/**
 * What a tempo correction did to the reel, in words: its new length (the whole number of bars of
 * the new tempo nearest the length chosen) and where the song window moved; '' when neither changed.
 */
export function correctionNote(before: PlanSpan, after: PlanSpan, targetSec: number | null | undefined, windowShown: boolean): string {
  const parts: string[] = [];
  if (Math.abs(after.total_sec - before.total_sec) >= 0.5)
    parts.push(
      `The reel is now ${minSec(after.total_sec)} long (it was ${minSec(before.total_sec)})` +
        (targetSec ? `: the whole bars of the new tempo nearest the ${minSec(targetSec)} you chose.` : '.'),
    );
  if (windowShown && minSec(after.music_start) !== minSec(before.music_start))
    parts.push(
      `The part of the song on the reel moved from ${minSec(before.music_start)} to ${minSec(after.music_start)}, the nearest bar line of the new beat.`,
    );
  return parts.join(' ');
}
