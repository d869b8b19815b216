/**
 * Subject presence for Intelligence (issue 43, item 4; pure): how much a moment shows a subject
 * rather than empty road or sky. A sample's salience gathered in one region (a figure, a car)
 * gives that region a large share of it; salience spread over texture (asphalt, leaves, sky
 * noise) splits into many small regions or none. A region that moves against the background
 * counts half as much again. Presence per sample is 0..1.
 */
import type { SubjectTrack } from './types.js';

/** The top region's share (moving ones x1.5) at which presence starts, and where it is full. */
const PRESENCE_FROM = 0.2;
const PRESENCE_FULL = 0.6;

/**
 * Presence at each of `times` (seconds): the nearest track sample's in the same shot (the track's
 * shot boundaries). A sparse decode leaves stretches without samples, because it skips what does
 * not change, so the nearest sample of the shot stands for them; a shot with no sample has none (0).
 */
export function subjectPresence(track: SubjectTrack, times: number[]): number[] {
  const s = track.samples;
  const own = s.map((x) => {
    const top = x.boxes.reduce((m, b) => Math.max(m, b.weight * (b.moving ? 1.5 : 1)), 0);
    return Math.min(1, Math.max(0, (top - PRESENCE_FROM) / (PRESENCE_FULL - PRESENCE_FROM)));
  });
  const cuts = track.shots.filter((b) => b > 0).sort((a, b) => a - b);
  const shotOf = (t: number) => {
    let k = 0;
    while (k < cuts.length && cuts[k]! <= t) k++;
    return k;
  };
  let j = 0;
  return times.map((t) => {
    while (j + 1 < s.length && Math.abs(s[j + 1]!.t - t) <= Math.abs(s[j]!.t - t)) j++;
    // The nearest sample, or when a cut lies between, its neighbour on this side of the cut.
    const shot = shotOf(t);
    let best = -1;
    for (const c of [j, j - 1, j + 1])
      if (s[c] && shotOf(s[c]!.t) === shot && (best < 0 || Math.abs(s[c]!.t - t) < Math.abs(s[best]!.t - t))) best = c;
    return best < 0 ? 0 : Math.round(own[best]! * 1000) / 1000;
  });
}
