/**
 * The edit plan on the wire (issue 20): what POST /jobs/plan answers and what POST /jobs/assemble
 * may carry back, so the render follows it exactly. The engine plans in its own shape
 * (packages/engine plan.ts, camelCase); `planToWire` / `planFromWire` convert. Only the form is
 * checked here; whether a plan fits its clips and music is the engine's `validatePlan`, run by the
 * orchestrator before anything is reserved and by the worker again before it renders.
 */
import { z } from 'zod';

/** The most segments a plan may have (the engine's segment cap). */
export const PLAN_MAX_SEGMENTS = 5000;

/** The largest int32: integers of a plan are bounded to it, like every integer of a request. */
const INT32_MAX = 2_147_483_647;
/** The highest clip index (a job request has at most 1000 clips, JOB_LIMITS.maxClips). */
const MAX_CLIP_INDEX = 999;

/** The output shapes (the job request's `aspect`). */
export const ASPECTS = ['16:9', '9:16', '1:1'] as const;
export type AspectName = (typeof ASPECTS)[number];

/**
 * How clips of another shape than the reel fill its frame: `subject` follows the clip's subject
 * with a moving crop (issue 43), `letterbox` shows the whole picture with bars, `center` fills the
 * frame with a centred crop. A clip of the reel's own shape is never cropped, whichever it is.
 */
export const FRAMINGS = ['subject', 'letterbox', 'center'] as const;
export type FramingName = (typeof FRAMINGS)[number];
/** The camera a segment's crop follows (AutoFlip's kinds), or letterbox: no crop at all. */
export const CAMERA_KINDS = ['stationary', 'pan', 'track', 'letterbox'] as const;
/** The most keys a segment's crop path may have. */
export const CROP_PATH_MAX_KEYS = 2000;

export const cropKeySchema = z
  .object({
    t: z.number().min(0).describe("Seconds of the clip's own timeline"),
    x: z.number().min(0).describe("The crop's left edge, source pixels (as displayed)"),
    y: z.number().min(0).describe("The crop's top edge, source pixels (as displayed)"),
  })
  .meta({ id: 'CropKey' });

export const segmentFramingSchema = z
  .object({
    mode: z.enum(FRAMINGS),
    camera: z.enum(CAMERA_KINDS).describe('stationary, pan or track: the crop moves so; letterbox: the whole picture with bars'),
    reason: z.string().max(500).optional().describe('Why this camera (e.g. two subjects that do not both fit)'),
    width: z.number().int().positive().max(16384).describe('The crop, source pixels (the whole picture for letterbox)'),
    height: z.number().int().positive().max(16384),
    path: z
      .array(cropKeySchema)
      .min(1)
      .max(CROP_PATH_MAX_KEYS)
      .describe("The crop's corner over time, keys in increasing t; linear between keys, held before the first and after the last"),
  })
  .meta({ id: 'SegmentFraming' });
export type SegmentFramingWire = z.output<typeof segmentFramingSchema>;

export const planSegmentSchema = z
  .object({
    clip: z.number().int().min(0).max(MAX_CLIP_INDEX).describe('Index into media_files'),
    in: z.number().min(0).describe('Source in point, seconds of the clip'),
    out: z.number().min(0).describe('Source out point, seconds of the clip'),
    start: z.number().min(0).describe("Place on the reel's timeline, seconds (on the output frame grid)"),
    end: z.number().min(0),
    hold: z.number().min(0).default(0).describe("Seconds the clip's last frame is held (out - in + hold = end - start)"),
    score: z.number().nullable().default(null).describe("With Intelligence: the moment's quality, 0..1"),
    framing: segmentFramingSchema
      .optional()
      .describe(
        "How the segment's clip fills the frame: the crop path the render follows (absent: the request's framing, planned at render)",
      ),
    thumbnail_url: z.string().max(4000).optional().describe('Ignored when sent back'),
  })
  .meta({ id: 'SubmittedPlanSegment' });

export const editPlanSchema = z
  .object({
    version: z
      .number()
      .int()
      .min(1)
      .max(INT32_MAX)
      .describe('The plan format, as POST /jobs/plan answered it (the server refuses a version it does not make)'),
    total_sec: z.number().positive(),
    fps: z.number().int().min(1).max(240),
    beat_aligned: z.boolean(),
    music_start: z
      .number()
      .min(0)
      .default(0)
      .describe("Seconds into the song where the reel's music begins; a cut at reel time t is at song time music_start + t"),
    music_fade_out_sec: z
      .number()
      .min(0)
      .max(10)
      .default(0)
      .describe("Seconds the music fades out over at the reel's end, when the reel ends before the song does"),
    clamped_to_song: z.boolean().default(false).describe('The target length was longer than the song: the reel is the whole song'),
    aspect: z.enum(ASPECTS),
    segments: z
      .array(planSegmentSchema)
      .min(1, 'A plan needs at least one segment')
      .max(PLAN_MAX_SEGMENTS, `A plan has at most ${PLAN_MAX_SEGMENTS} segments`),
  })
  .meta({ id: 'SubmittedPlan' });

export type EditPlanWire = z.output<typeof editPlanSchema>;
export type EditPlanWireInput = z.input<typeof editPlanSchema>;

/** The engine's plan, structurally (the engine depends on this package, not the reverse). */
// Repeats the engine's EditPlan fields on purpose: the engine depends on proto, never the reverse.
export interface EnginePlanShape {
  version: number;
  totalSec: number;
  fps: number;
  beatAligned: boolean;
  musicStart: number;
  musicFadeOutSec?: number;
  clampedToSong?: boolean;
  segments: Array<{
    clip: number;
    in: number;
    out: number;
    start: number;
    end: number;
    hold: number;
    score?: number;
    framing?: SegmentFramingWire;
  }>;
}

export function planToWire(p: EnginePlanShape, aspect: AspectName): EditPlanWire {
  return {
    version: p.version,
    total_sec: p.totalSec,
    fps: p.fps,
    beat_aligned: p.beatAligned,
    music_start: p.musicStart,
    music_fade_out_sec: p.musicFadeOutSec ?? 0,
    clamped_to_song: p.clampedToSong ?? false,
    aspect,
    segments: p.segments.map((s) => ({
      clip: s.clip,
      in: s.in,
      out: s.out,
      start: s.start,
      end: s.end,
      hold: s.hold,
      score: s.score ?? null,
      ...(s.framing ? { framing: s.framing } : {}),
    })),
  };
}

// The mirror of planToWire by design: one explicit mapping each way (snake_case on the wire, camelCase in the engine).
export function planFromWire(w: EditPlanWire): EnginePlanShape {
  return {
    version: w.version,
    totalSec: w.total_sec,
    fps: w.fps,
    beatAligned: w.beat_aligned,
    musicStart: w.music_start,
    ...(w.music_fade_out_sec ? { musicFadeOutSec: w.music_fade_out_sec } : {}),
    ...(w.clamped_to_song ? { clampedToSong: true } : {}),
    segments: w.segments.map((s) => ({
      clip: s.clip,
      in: s.in,
      out: s.out,
      start: s.start,
      end: s.end,
      hold: s.hold,
      ...(s.score === null ? {} : { score: s.score }),
      ...(s.framing ? { framing: s.framing } : {}),
    })),
  };
}

/** The plan as stored and sent to the worker: without the links (they expire, and mean nothing there). */
export const planJson = (w: EditPlanWire): string => JSON.stringify({ ...w, segments: w.segments.map(({ thumbnail_url: _t, ...s }) => s) });

/**
 * A plan that crossed gRPC as JSON (`PlanJobResponse.plan_json`), checked against the one schema;
 * throws naming what does not fit. Its counterpart for sending is `planJson`.
 */
export function parsePlanJson(text: string): EditPlanWire {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Error('plan_json is not JSON');
  }
  const r = editPlanSchema.safeParse(value);
  if (!r.success)
    throw new Error(`plan_json is not an edit plan: ${r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  return r.data;
}
