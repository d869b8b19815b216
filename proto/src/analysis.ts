/**
 * The engine's media analyses as they cross gRPC (`MediaItem.analysis_json`): media-library
 * stores what the engine measured at upload, the orchestrator plans from it and the render worker
 * renders with it. One zod schema per document checks it at every boundary: `analysisJson` when
 * media-library sends one, `parseAnalysisJson` when a service reads one. The engine's own types
 * (`ClipAnalysis` in clip-analysis.ts, `MusicAnalysis` beside the beat tracker) must fit these
 * shapes; the services assign the parsed documents to them, so the compiler checks that they do.
 *
 * Unknown keys are kept (an upload's music analysis carries its waveform, `peaks`). A document
 * that does not fit is treated as absent: the orchestrator and the worker then analyse the media
 * themselves, as they do for an analysis of an older version.
 */
import { z } from 'zod';

const seconds = z.array(z.number());

export const clipAnalysisSchema = z.looseObject({
  version: z.number().int(),
  durationSec: z.number(),
  sampleIntervalSec: z.number(),
  times: seconds,
  score: z.array(z.number()),
  black: z.array(z.boolean()),
  frozen: z.array(z.boolean()),
  blurred: z.array(z.boolean()),
  scenes: seconds,
  sharpness: z.array(z.number()).optional(),
  motion: z.array(z.number()).optional(),
  exposure: z.array(z.number()).optional(),
  decoding: z
    .looseObject({
      mode: z.enum(['dense', 'sparse']),
      reason: z.string().optional(),
      decodedShare: z.number(),
      measuredShare: z.number(),
      gaps: z.object({ decoded: z.record(z.string(), z.number()), filled: z.number() }).optional(),
    })
    .optional(),
});

export const musicAnalysisSchema = z.looseObject({
  version: z.number().int(),
  durationSec: z.number(),
  bpm: z.number(),
  beatPeriodSec: z.number(),
  beats: seconds,
  bars: seconds,
  confidence: z.number(),
  /** The meter (beats a bar) and the strongest onsets, in analyses that have them. */
  beatsPerBar: z.union([z.literal(3), z.literal(4)]).optional(),
  onsets: seconds.optional(),
  /** The waveform the studio's timeline draws (uploads keep it with the analysis). */
  peaks: z.array(z.number()).optional(),
});

export const mediaAnalysisSchema = z.union([clipAnalysisSchema, musicAnalysisSchema]);

export type ClipAnalysisDoc = z.output<typeof clipAnalysisSchema>;
export type MusicAnalysisDoc = z.output<typeof musicAnalysisSchema>;
export type MediaAnalysisDoc = z.output<typeof mediaAnalysisSchema>;

export const isClipAnalysis = (a: MediaAnalysisDoc | undefined): a is ClipAnalysisDoc => clipAnalysisSchema.safeParse(a).success;
export const isMusicAnalysis = (a: MediaAnalysisDoc | undefined): a is MusicAnalysisDoc => musicAnalysisSchema.safeParse(a).success;

/** An analysis for `analysis_json`: '' when there is none or it is not an analysis. */
export function analysisJson(analysis: unknown): string {
  if (analysis === null || analysis === undefined) return '';
  const r = mediaAnalysisSchema.safeParse(analysis);
  return r.success ? JSON.stringify(analysis) : '';
}

/** `analysis_json` back to an analysis: undefined when empty, not JSON or not an analysis. */
export function parseAnalysisJson(text: string): MediaAnalysisDoc | undefined {
  if (!text) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const r = mediaAnalysisSchema.safeParse(value);
  return r.success ? r.data : undefined;
}
