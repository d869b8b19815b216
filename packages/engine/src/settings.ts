import { TITLE_FONTS, renderOptionsShape } from '@reelsmith/proto';
import { z } from 'zod';
import { EngineError } from './errors.js';

/** Output frames the engine renders. */
export const ASPECTS = {
  '16:9': { width: 1920, height: 1080 },
  '9:16': { width: 1080, height: 1920 },
  '1:1': { width: 1080, height: 1080 },
} as const;
export type Aspect = keyof typeof ASPECTS;

export const FONTS = TITLE_FONTS;

/**
 * The render settings: the rendering part of the job request contract (`@reelsmith/proto`
 * job-request.ts, with the spec's defaults and limits), plus the output frame rate.
 */
export const renderSettingsSchema = z.object({
  ...renderOptionsShape,
  /** Output frame rate (constant). */
  fps: z.number().int().min(12).max(60).default(30),
});

export type RenderSettings = z.infer<typeof renderSettingsSchema>;
export type RenderSettingsInput = z.input<typeof renderSettingsSchema>;
export type Pacing = RenderSettings['pacing_preset'];

export function parseSettings(input: RenderSettingsInput = {}): RenderSettings {
  const r = renderSettingsSchema.safeParse(input);
  if (!r.success)
    throw new EngineError(
      'INVALID_SETTINGS',
      `Invalid settings: ${r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
    );
  return r.data;
}
