import type { RenderSettingsInput } from '@reelsmith/engine';
import type { EngineErrorCode } from '@reelsmith/engine';

/** Engine failures that will fail the same way on every try: the job fails at once. */
const PERMANENT: ReadonlySet<EngineErrorCode> = new Set([
  'INPUT_NOT_FOUND',
  'INPUT_EMPTY',
  'NOT_MEDIA',
  'NO_VIDEO',
  'NO_AUDIO',
  'LIMIT_EXCEEDED',
  'INVALID_SETTINGS',
]);
export const isPermanent = (code: EngineErrorCode) => PERMANENT.has(code);

/** The job request (spec section 3) as engine settings. */
export function engineSettings(req: Record<string, unknown>): RenderSettingsInput {
  const pick = <T>(k: string) => req[k] as T | undefined;
  return {
    pacing_preset: pick('pacing_preset'),
    enable_beat_mapping: pick('enable_beat_mapping'),
    enable_intelligence: pick('enable_intelligence'),
    title_config: pick('title_config'),
    enable_fades: pick('enable_fades'),
    fade_in_duration_sec: pick('fade_in_duration_sec'),
    fade_out_duration_sec: pick('fade_out_duration_sec'),
    enable_letterbox: pick('enable_letterbox'),
    output_filename: pick('output_filename'),
  };
}

/** Progress for the user: at most every `intervalMs`, always when the stage or 100 is reached. */
export function throttle(intervalMs: number, send: (p: number, stage: string) => void): (p: number, stage: string) => void {
  let lastAt = 0;
  let lastP = -1;
  let lastStage = '';
  return (p, stage) => {
    const now = Date.now();
    if (p === lastP && stage === lastStage) return;
    if (now - lastAt < intervalMs && stage === lastStage && p < 100) return;
    lastAt = now;
    lastP = p;
    lastStage = stage;
    send(p, stage);
  };
}
