/**
 * The edit plan. Its one definition is the protobuf message `reelsmith.engine.v1.EditPlan`
 * (proto/reelsmith/engine/v1/plan.proto): the engine plans in it (as plain objects, `Plain`), and
 * it crosses gRPC and NATS as that message. The public HTTP API shows it in snake_case: what
 * POST /jobs/plan answers and what POST /jobs/assemble may carry back (`editPlanSchema`, which also
 * gives the OpenAPI schema); `planToWire` / `planFromWire` are the one mapping between the two.
 * Only the form is checked here; whether a plan fits its clips and music is the engine's
 * `validatePlan`, run by the orchestrator before anything is reserved and by the worker again
 * before it renders.
 */
import { z } from 'zod';
import type * as pb from './gen/reelsmith/engine/v1/plan_pb.js';
import type { Plain } from './plain.js';

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

/**
 * The plan as the engine and the services hold it: the message's fields as a plain object, with
 * a framing's mode and camera of the kinds above (`editPlanOf` reads a message so).
 */
export type EditPlan = Omit<Plain<pb.EditPlan>, 'segments'> & { segments: PlanSegment[] };
export type PlanSegment = Omit<Plain<pb.PlanSegment>, 'framing'> & { framing?: SegmentFraming };
export type SegmentChoice = Plain<pb.SegmentChoice>;
export type SegmentFraming = Omit<Plain<pb.SegmentFraming>, 'mode' | 'camera'> & {
  mode: FramingName;
  camera: (typeof CAMERA_KINDS)[number];
};
/** The music of a plan preview (beats, waveform, sections), as the orchestrator answers it. */
export type PlanMusic = Plain<pb.PlanMusic>;
export type SongSection = Plain<pb.SongSection>;

/**
 * A plan message (from gRPC or NATS) as the engine holds it: a framing of a mode or camera this
 * version does not know is left out (the render then frames that segment by the settings).
 */
export function editPlanOf(m: Plain<pb.EditPlan>): EditPlan {
  const { segments, ...plan } = ownFields(m);
  return {
    ...plan,
    segments: segments.map((seg) => {
      const { framing, ...s } = ownFields(seg);
      return framing && isFraming(framing) ? { ...s, framing } : s;
    }),
  };
}

/** The fields of a message without protobuf-es's own keys. */
function ownFields<T extends object>(m: T): T {
  const { $typeName: _t, $unknown: _u, ...rest } = m as T & { $typeName?: string; $unknown?: unknown };
  return rest as T;
}

const isFraming = (f: Plain<pb.SegmentFraming>): f is SegmentFraming =>
  (FRAMINGS as readonly string[]).includes(f.mode) && (CAMERA_KINDS as readonly string[]).includes(f.camera);

/** A plan for the HTTP API; `aspect` when the plan does not name its own. */
export function planToWire(p: Plain<pb.EditPlan>, aspect: AspectName): EditPlanWire {
  return {
    version: p.version,
    total_sec: p.totalSec,
    fps: p.fps,
    beat_aligned: p.beatAligned,
    music_start: p.musicStart,
    music_fade_out_sec: p.musicFadeOutSec ?? 0,
    clamped_to_song: p.clampedToSong,
    aspect: (p.aspect as AspectName) || aspect,
    segments: p.segments.map((s) => ({
      clip: s.clip,
      in: s.in,
      out: s.out,
      start: s.start,
      end: s.end,
      hold: s.hold,
      score: s.score ?? null,
      ...(s.framing ? { framing: framingToWire(s.framing) } : {}),
    })),
  };
}

/** A segment's framing field by field (a message's own keys never reach a client). */
const framingToWire = (f: Plain<pb.SegmentFraming>): SegmentFramingWire => ({
  mode: f.mode as FramingName,
  camera: f.camera as SegmentFramingWire['camera'],
  ...(f.reason ? { reason: f.reason } : {}),
  width: f.width,
  height: f.height,
  path: f.path.map((k) => ({ t: k.t, x: k.x, y: k.y })),
});

/** A plan from the HTTP API, as the engine and the messages hold it (the thumbnail links are dropped). */
export function planFromWire(w: EditPlanWire): EditPlan {
  return {
    version: w.version,
    totalSec: w.total_sec,
    fps: w.fps,
    beatAligned: w.beat_aligned,
    musicStart: w.music_start,
    musicFadeOutSec: w.music_fade_out_sec,
    clampedToSong: w.clamped_to_song,
    aspect: w.aspect,
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
