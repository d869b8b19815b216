/**
 * Where a video's thumbnail is taken: a frame that shows the picture, not a black or fading one.
 * A general rule on the frames' brightness, not an offset per file: many clips open with a fade
 * from black (Big Buck Bunny's first two seconds), and a thumbnail from it is a dark rectangle.
 */

/** Brightness samples a second (the lumas passed in are this far apart). */
export const LUMA_SAMPLES_PER_SEC = 4;
/** Seconds of the start that are looked at: a fade-in is over well before. */
export const LUMA_WINDOW_SEC = 12;
/** Mean luma (0-255) below which a frame is black whatever the clip. */
const BLACK_LUMA = 24;
/** A frame darker than this share of the clip's usual brightness is still fading in. */
const FADED_SHARE = 0.7;
/** A frame still brightening by more than this share within the next second is mid-fade. */
const RISING_SHARE = 0.1;

/**
 * The thumbnail's time: `preferredSec` (a second in, as before) when that frame is lit; otherwise
 * the first later frame that is neither black nor faded (darker than 70 % of the clip's usual
 * brightness, its 75th percentile) nor still brightening (by more than 10 % within the next
 * second): the first frame after the fade-in. With no such frame, the brightest one.
 * `lumas[i]` is the mean luma (0-255) of the frame at i / LUMA_SAMPLES_PER_SEC seconds.
 */
export function thumbnailMoment(lumas: readonly number[], preferredSec: number): number {
  if (lumas.length === 0) return preferredSec;
  const sorted = [...lumas].sort((a, b) => a - b);
  const usual = sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.75))]!;
  const lit = (y: number) => y >= BLACK_LUMA && y >= FADED_SHARE * usual;
  const settled = (i: number) => {
    const ahead = lumas.slice(i, i + LUMA_SAMPLES_PER_SEC + 1);
    return lumas[i]! >= (1 - RISING_SHARE) * Math.max(...ahead);
  };
  const from = Math.min(lumas.length - 1, Math.round(preferredSec * LUMA_SAMPLES_PER_SEC));
  for (let i = from; i < lumas.length; i++) {
    if (lit(lumas[i]!) && settled(i)) return i === from ? preferredSec : i / LUMA_SAMPLES_PER_SEC;
  }
  const brightest = lumas.indexOf(sorted[sorted.length - 1]!);
  return brightest / LUMA_SAMPLES_PER_SEC;
}
