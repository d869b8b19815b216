/**
 * How long a reel will be, from the durations of its sources (the engine's length rule, defined
 * once): as long as the music; without music, as long as the material, the sum of the clips.
 * The engine plans with it (passing each clip's usable seconds when Intelligence trims black or
 * frozen stretches), and the orchestrator uses it before anything is reserved, from the
 * durations media-library probed, to check the plan's length cap and to price the reel by length.
 * Before analysis the clips count whole, so that figure is the most the reel can last.
 */
export function reelSeconds(clipSeconds: readonly number[], musicSeconds?: number): number {
  return musicSeconds ?? clipSeconds.reduce((s, c) => s + c, 0);
}
