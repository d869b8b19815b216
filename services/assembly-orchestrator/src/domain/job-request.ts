import { z } from 'zod';

/**
 * The spec's assembly job request (section 3) with its defaults (section 9). The engine checks the
 * same settings again (render-worker `settings.ts`); test/unit/job-request.spec.ts keeps the two in step.
 */
export const jobRequestSchema = z.object({
  media_files: z.array(z.string().min(1).max(600)).max(1000).default([]),
  music_file: z.string().min(1).max(600).nullish(),
  output_filename: z.string().max(200).default('reel_output.mp4'),
  pacing_preset: z.enum(['relaxed', 'standard', 'high-energy']).default('standard'),
  enable_beat_mapping: z.boolean().default(true),
  enable_intelligence: z.boolean().default(true),
  title_config: z
    .object({
      enabled: z.boolean().default(true),
      text: z.string().max(200).default('My Awesome Video'),
      font: z.enum(['Roboto-Bold.ttf', 'Arial-Bold.ttf', 'Helvetica-Bold.ttf']).default('Roboto-Bold.ttf'),
      font_size: z.number().int().min(8).max(400).default(72),
      position: z.enum(['top', 'center', 'bottom']).default('center'),
    })
    .default({ enabled: true, text: 'My Awesome Video', font: 'Roboto-Bold.ttf', font_size: 72, position: 'center' }),
  enable_fades: z.boolean().default(true),
  fade_in_duration_sec: z.number().min(0).max(10).default(2),
  fade_out_duration_sec: z.number().min(0).max(10).default(2),
  enable_letterbox: z.boolean().default(true),
  get_footage_offers: z.boolean().default(false),
});
export type JobRequest = z.infer<typeof jobRequestSchema>;
