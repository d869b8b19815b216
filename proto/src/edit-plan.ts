/**
 * The edit plan. Its one definition is the protobuf message `reelsmith.engine.v1.EditPlan`
 * (proto/reelsmith/engine/v1/plan.proto): the engine plans in it (as plain objects, `Plain`), and
 * it crosses gRPC and NATS as that message. The public HTTP API shows it in snake_case, and these
 * schemas are its OpenAPI schemas too: what POST /jobs/plan answers (`plannedPlanSchema`, with the
 * plan's music in `planMusicSchema`) and what POST /jobs/plan and /jobs/assemble may carry back
 * (`editPlanSchema`); `planToWire` / `planFromWire` and `planMusicToWire` are the one mapping.
 * Only the form is checked here; whether a plan fits its clips and music is the engine's
 * `validatePlan`, run by the orchestrator before anything is reserved and by the worker again
 * before it renders.
 */
import { z } from 'zod';
import type * as pb from './gen/reelsmith/engine/v1/plan_pb.js';
import type { Plain } from './plain.js';
import { SECTION_KINDS, sectionKind } from './song.js';
import { TEMPO_CORRECTION_KINDS, correctionKind } from './tempo-correction.js';

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

/**
 * A segment as the server makes it: every field present. POST /jobs/plan answers it with a
 * thumbnail link (the gateway's `PlanSegment`); a client sends it back as `planSegmentSchema`.
 */
export const plannedSegmentSchema = z.object({
  clip: z.number().int().min(0).max(MAX_CLIP_INDEX).describe('Index into media_files'),
  in: z.number().min(0).describe('Source in point, seconds of the clip'),
  out: z.number().min(0).describe('Source out point, seconds of the clip'),
  start: z.number().min(0).describe("Place on the reel's timeline, seconds (on the output frame grid)"),
  end: z.number().min(0),
  hold: z.number().min(0).describe("Seconds the clip's last frame is held (out - in + hold = end - start)"),
  score: z.number().nullable().describe("With Intelligence: the moment's quality, 0..1"),
  framing: segmentFramingSchema
    .optional()
    .describe(
      "How the segment's clip fills the frame: the crop path (source pixels) the render follows and the preview draws (absent in a sent plan: the request's framing, planned at render)",
    ),
});

/** A segment as a client sends it back: hold and score may be left out, a thumbnail link is ignored. */
export const planSegmentSchema = plannedSegmentSchema
  .extend({
    hold: plannedSegmentSchema.shape.hold.default(0),
    score: plannedSegmentSchema.shape.score.default(null),
    thumbnail_url: z.string().max(4000).optional().describe('Ignored when sent back'),
  })
  .meta({ id: 'SubmittedPlanSegment' });

/** A plan's segments: at least one, at most PLAN_MAX_SEGMENTS. */
export const segmentsOf = <S extends z.ZodType>(segment: S) =>
  z.array(segment).min(1, 'A plan needs at least one segment').max(PLAN_MAX_SEGMENTS, `A plan has at most ${PLAN_MAX_SEGMENTS} segments`);

/**
 * A plan as the server makes it: every field present. POST /jobs/plan answers it (the gateway's
 * `EditPlan`, its segments with thumbnail links); a client sends it back as `editPlanSchema`.
 */
export const plannedPlanSchema = z.object({
  version: z
    .number()
    .int()
    .min(1)
    .max(INT32_MAX)
    .describe('The plan format; a plan sent back keeps the version POST /jobs/plan answered (the server refuses one it does not make)'),
  total_sec: z.number().positive(),
  fps: z.number().int().min(1).max(240),
  beat_aligned: z.boolean(),
  music_start: z
    .number()
    .min(0)
    .describe("Seconds into the song where the reel's music begins (a bar line); a cut at reel time t is at song time music_start + t"),
  music_fade_out_sec: z
    .number()
    .min(0)
    .max(10)
    .describe("Seconds the music fades out over at the reel's end, when the reel ends before the song does (0: the song ends there)"),
  clamped_to_song: z.boolean().describe('The target length was longer than the song: the reel is the whole song'),
  aspect: z.enum(ASPECTS),
  segments: segmentsOf(plannedSegmentSchema),
});

/** A plan as a client sends it back (POST /jobs/assemble, POST /jobs/plan): the music fields may be left out. */
export const editPlanSchema = plannedPlanSchema
  .extend({
    music_start: plannedPlanSchema.shape.music_start.default(0),
    music_fade_out_sec: plannedPlanSchema.shape.music_fade_out_sec.default(0),
    clamped_to_song: plannedPlanSchema.shape.clamped_to_song.default(false),
    segments: segmentsOf(planSegmentSchema),
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

/** A section of the song as POST /jobs/plan shows it (the message's `SongSection` without its loudness). */
export const songSectionSchema = z
  .object({
    start: z.number().describe('Seconds into the song (a bar line)'),
    end: z.number().describe('Seconds into the song (a bar line)'),
    label: z.string().describe('Same letter, same material (A, B, C...)'),
    kind: z.enum(SECTION_KINDS).nullable(),
    energy: z.number().describe("Loudness between the song's quietest (0) and loudest (1) section"),
  })
  .meta({ id: 'PlanSection' });

/** A plan's music as POST /jobs/plan shows it (the `PlanMusic` message in snake_case; `planMusicToWire` maps it). */
export const planMusicSchema = z
  .object({
    duration_sec: z.number(),
    tempo_bpm: z.number(),
    beats: z.array(z.number()),
    downbeats: z.array(z.number()),
    peaks: z.array(z.number()).describe('Peak amplitude (0..1) of equal slices of the track'),
    beats_per_bar: z.number().int().describe('The meter: beats in a bar (3 or 4)'),
    analysed_bpm: z.number().describe("The tempo the analysis found, before the user's corrections (tempo_bpm is after them)"),
    tempo_corrections: z
      .array(z.enum(TEMPO_CORRECTION_KINDS))
      .describe("The user's corrections of this track's beats in effect, in order (kept for next time)"),
    sections: z
      .array(songSectionSchema)
      .describe("The song's form: sections on its bar lines, in order (empty when the analysis predates sections)"),
  })
  .meta({ id: 'PlanMusic' });
export type PlanMusicWire = z.output<typeof planMusicSchema>;

const r3 = (x: number) => Math.round(x * 1000) / 1000;

/**
 * A plan's music for the HTTP API: the waveform's peaks and the sections' energy to 3 decimals
 * (what a timeline draws); a meter or analysed tempo the message leaves at 0 is 4 beats and the
 * corrected tempo; a correction or section kind this version does not know is a tap, or no kind.
 */
export function planMusicToWire(m: PlanMusic): PlanMusicWire {
  return {
    duration_sec: m.durationSec,
    tempo_bpm: m.tempoBpm,
    beats: m.beats,
    downbeats: m.downbeats,
    peaks: m.peaks.map(r3),
    beats_per_bar: m.beatsPerBar || 4,
    analysed_bpm: m.analysedBpm || m.tempoBpm,
    tempo_corrections: m.tempoCorrections.map(correctionKind),
    sections: m.sections.map((x) => ({ start: x.start, end: x.end, label: x.label, kind: sectionKind(x.kind), energy: r3(x.energy) })),
  };
}

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
