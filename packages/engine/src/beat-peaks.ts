/** Beat tracking's small measures: the strongest onset near a hop, on the beats and between them. */

/** The strongest value of `v` (0 at least) in hops `from`..`to`, both included, clipped to `v`. */
export function peakIn(v: ArrayLike<number>, from: number, to: number): number {
  let m = 0;
  for (let i = Math.max(0, from); i <= Math.min(v.length - 1, to); i++) if (v[i]! > m) m = v[i]!;
  return m;
}

/** The strongest value of `v` (0 at least) within `r` hops of `h`. */
export function peakNear(v: ArrayLike<number>, h: number, r = 2): number {
  return peakIn(v, h - r, h + r);
}

/** Presence-band onsets (peak within 6 hops) at the beats and halfway between them, summed. */
export function presenceOnOff(hops: number[], presence: Float32Array): { on: number; off: number } {
  let on = 0,
    off = 0;
  for (let i = 0; i + 1 < hops.length; i++) {
    on += peakNear(presence, hops[i]!, 6);
    off += peakNear(presence, Math.round((hops[i]! + hops[i + 1]!) / 2), 6);
  }
  return { on, off };
}
