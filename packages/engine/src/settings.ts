import { z } from 'zod';
import { EngineError } from './errors.js';

/** Output frames the engine renders. */
export const ASPECTS = {
  '16:9': { width: 1920, height: 1080 },
  '9:16': { width: 1080, height: 1920 },
  '1:1': { width: 1080, height: 1080 },
} as const;
export type Aspect = keyof typeof ASPECTS;

export const FONTS = ['Roboto-Bold.ttf', 'Arial-Bold.ttf', 'Helvetica-Bold.ttf'] as const;

/** The spec's assembly job settings (section 3) with its defaults (section 9), plus the output frame. */
export const renderSettingsSchema = z.object({
  pacing_preset: z.enum(['relaxed', 'standard', 'high-energy']).default('standard'),
  enable_beat_mapping: z.boolean().default(true),
  enable_intelligence: z.boolean().default(true),
  title_config: z
    .object({
      enabled: z.boolean().default(true),
      text: z.string().max(200).default('My Awesome Video'),
      font: z.enum(FONTS).default('Roboto-Bold.ttf'),
      font_size: z.number().int().min(8).max(400).default(72),
      position: z.enum(['top', 'center', 'bottom']).default('center'),
    })
    .default({ enabled: true, text: 'My Awesome Video', font: 'Roboto-Bold.ttf', font_size: 72, position: 'center' }),
  enable_fades: z.boolean().default(true),
  fade_in_duration_sec: z.number().min(0).max(10).default(2),
  fade_out_duration_sec: z.number().min(0).max(10).default(2),
  enable_letterbox: z.boolean().default(true),
  output_filename: z.string().max(200).default('reel_output.mp4'),
  aspect: z.enum(['16:9', '9:16', '1:1']).default('16:9'),
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
