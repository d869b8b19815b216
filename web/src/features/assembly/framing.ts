import type { Aspect } from '../../api/types';

/** How clips of another shape fill the reel's frame (the job request's `framing`). */
export type Framing = 'subject' | 'letterbox' | 'center';

export const FRAMING_CHOICES: Array<{ value: Framing; label: string; hint: string }> = [
  { value: 'subject', label: 'Follow the subject', hint: 'a crop that moves with what matters in each clip' },
  { value: 'letterbox', label: 'Letterbox', hint: 'the whole picture, with bars' },
  { value: 'center', label: 'Centre crop', hint: 'fills the frame, cropped in the middle' },
];

/**
 * The framing a reel of `aspect` gets: the one the user chose for this reel, else the shape's
 * default (vertical and square reels follow the subject; landscape reels keep the saved default
 * setting: letterbox, or a centre crop when letterbox is off). The server applies the same rule
 * when `framing` is absent; the web always sends it, so the preview and the render agree.
 */
export function framingFor(aspect: Aspect, chosen?: Framing | null, letterboxDefault = true): Framing {
  if (chosen) return chosen;
  if (aspect === '16:9') return letterboxDefault ? 'letterbox' : 'center';
  return 'subject';
}

/** The words for a framing, as the shape tile and the preview say it. */
export const framingLabel = (f: Framing) => FRAMING_CHOICES.find((c) => c.value === f)!.label;
