/**
 * How long a reel will be, from the durations of its sources (the engine's length rule, defined
 * once): as long as the music; without music, as long as the material, the sum of the clips.
 * With a target length (`target_duration_sec`) the reel lasts the target, at most the music (or,
 * without music, the material): the engine then cuts a whole number of bars nearest the target,
 * so the real reel may differ from this figure by up to half a bar.
 * The engine plans with it (passing each clip's usable seconds when Intelligence trims black or
 * frozen stretches), and the orchestrator uses it before anything is reserved, from the
 * durations media-library probed, to check the plan's length cap and to price the reel by length.
 * Before analysis the clips count whole, so that figure is the most the reel can last.
 */
export function reelSeconds(clipSeconds: readonly number[], musicSeconds?: number, targetSeconds?: number | null): number {
  const full = musicSeconds ?? clipSeconds.reduce((s, c) => s + c, 0);
  return targetSeconds === undefined || targetSeconds === null ? full : Math.min(full, targetSeconds);
}

/** The target lengths a job request may ask for, seconds (`target_duration_sec`). */
export const TARGET_DURATION_LIMITS = { min: 5, max: 600 } as const;
