/**
 * The REST API's objects, as zod schemas: routes validate requests and serialise responses with
 * them, and @fastify/swagger turns them into the OpenAPI document (`/api/v1/openapi.json`) from
 * which the web client's and the end-to-end tests' types are generated. Each named schema is a
 * component of that document. The job request, the edit plan and its music are the shared contract
 * in @reelsmith/proto (proto/src/job-request.ts, proto/src/edit-plan.ts); they are used here, not copied.
 */
import {
  PACING_PRESETS,
  PLAN_MAX_SEGMENTS,
  TAP_LIMITS,
  TEMPO_CORRECTION_KINDS,
  jobRequestSchema,
  planMusicSchema,
  plannedPlanSchema,
  plannedSegmentSchema,
  segmentsOf,
} from '@reelsmith/proto';
import { z } from 'zod';
import { mirrored } from './errors.js';
import { identifier } from './input-text.js';

export { jobRequestSchema };

/**
 * The largest value of a protobuf int32 (and the bound of every integer a request sends on over
 * gRPC in one: list offsets and limits, segment indexes, stars). Larger ones cannot be encoded.
 */
export const INT32_MAX = 2_147_483_647;

export const errorBody = z
  .object({
    detail: z.string().describe('What went wrong, worded for the user'),
    code: z.string().describe('A stable machine-readable reason, e.g. insufficient_credits'),
  })
  .meta({ id: 'ErrorBody' });

/** Error responses of a route, all `{detail, code}`. */
export const errors = <const S extends readonly number[]>(...statuses: S) =>
  Object.fromEntries(statuses.map((s) => [s, errorBody])) as { [K in S[number]]: typeof errorBody };

export const message = z.object({ message: z.string() }).meta({ id: 'Message' });

export const entitlements = z
  .object({
    upload_cap_bytes: z.number().int().describe('Largest total size of the files of one reel'),
    music_cap_seconds: z.number().int(),
    library_selection_cap: z.number().int(),
    reel_cap_seconds: z.number().int().describe('The longest reel the plan makes (free 3 minutes, paid 60)'),
    unlimited: z.boolean().describe('Never charged, no daily limit (admins and the guest pass)'),
    subscribed: z.boolean().describe('Paid limits; credits pay for reels'),
    messages: z.object({
      upload: z.string(),
      music: z.string(),
      selection: z.string(),
      insufficient: z.string(),
      reel_length: z.string(),
    }),
  })
  .meta({ id: 'Entitlements' });

export const user = z
  .object({
    id: z.string(),
    email: z.string(),
    is_admin: z.boolean(),
    is_guest: z.boolean(),
    email_verified: z.boolean(),
    display_name: z
      .string()
      .nullable()
      .describe('The public name shown on the Hall of Fame next to featured reels; null: none (not listed)'),
    credits: z.number().int(),
    subscription: z.object({
      plan: z.string(),
      status: z.string(),
      next_billing: z.string().nullable(),
      billing_cycle: z.string().nullable(),
      cancel_at_period_end: z.boolean().describe('The plan ends at next_billing instead of renewing'),
    }),
    last_free_use: z.string().nullable(),
    daily_free_used: z.boolean(),
    entitlements,
  })
  .meta({ id: 'User' });
export type UserBody = z.infer<typeof user>;

export const sessionReply = z.object({ session_token: z.string(), user }).meta({ id: 'SessionReply' });

export const jobStatusName = z.enum(['queued', 'processing', 'completed', 'failed', 'cancelled']);

export const jobStatus = z
  .object({
    job_id: z.string(),
    status: jobStatusName,
    created_at: z.string().describe('When the job was submitted (ISO 8601)'),
    message: z.string(),
    progress: z.number().int().min(0).max(100),
    download_url: z.string().nullable().describe('A signed link, valid for an hour, once completed'),
  })
  .meta({ id: 'JobStatus' });
export type JobStatusBody = z.infer<typeof jobStatus>;

export const jobList = z.object({ jobs: z.array(jobStatus).describe('Newest first') }).meta({ id: 'JobList' });

export const jobListQuery = z.object({
  active: z
    .enum(['0', '1', 'true', 'false'])
    .optional()
    .describe('1: only queued and processing jobs; otherwise the last 20 jobs, any status'),
});

/** POST /jobs/plan: a job request, and optionally what to re-roll or keep of a plan sent with it. */
export const planRequest = jobRequestSchema
  .extend({
    reroll: z
      .array(
        z
          .number()
          .int()
          .min(0)
          .max(PLAN_MAX_SEGMENTS - 1),
      )
      .max(PLAN_MAX_SEGMENTS)
      .default([])
      .describe('Segment indexes to give the next-best moments not used elsewhere (needs plan)'),
    locked: z
      .array(
        z
          .number()
          .int()
          .min(0)
          .max(PLAN_MAX_SEGMENTS - 1),
      )
      .max(PLAN_MAX_SEGMENTS)
      .default([])
      .describe('Segment indexes kept exactly as they are'),
    seed: z.number().int().min(0).max(2_147_483_647).default(0).describe('Re-roll is deterministic for the same request and seed'),
  })
  .meta({ id: 'PlanRequest' });

/** A segment of the plan POST /jobs/plan answers: proto's segment, with its thumbnail link. */
export const planSegment = plannedSegmentSchema
  .extend({ thumbnail_url: z.string().describe("A small JPEG of the segment's source moment (signed link)") })
  .meta({ id: 'PlanSegment' });

/** The plan POST /jobs/plan answers: proto's plan (every field present), its segments with thumbnail links. */
export const editPlan = plannedPlanSchema.extend({ segments: segmentsOf(planSegment) }).meta({ id: 'EditPlan' });

/** The plan's music (beats, waveform, sections): proto's HTTP form of the PlanMusic message. */
export const planMusic = planMusicSchema;

const tempoKey = z.string().min(1).max(600).describe('The object_key of the music (an upload of yours or a library track)');

/** POST /uploads/tempo: one correction of a music track's beats, or reset (a tap carries its taps, the others none). */
export const tempoCorrectionRequest = z
  .discriminatedUnion('action', [
    z.object({
      key: tempoKey,
      action: z.literal('tap'),
      taps: z
        .array(z.number().min(0).max(86_400), {
          error: mirrored('Send the times you tapped (taps, seconds into the track).', 'too_few_taps'),
        })
        .min(TAP_LIMITS.minTaps, mirrored(`Tap at least ${TAP_LIMITS.minTaps} times along with the music.`, 'too_few_taps'))
        .max(TAP_LIMITS.maxTaps, mirrored(`At most ${TAP_LIMITS.maxTaps} taps are used.`, 'invalid_taps'))
        .describe(
          `The times you tapped, seconds into the track (${TAP_LIMITS.minTaps}-${TAP_LIMITS.maxTaps}); the server also needs them ascending, at a tempo of ${TAP_LIMITS.minBpm}-${TAP_LIMITS.maxBpm} BPM (400 invalid_taps otherwise)`,
        ),
    }),
    z.object({
      key: tempoKey,
      action: z
        .enum([...TEMPO_CORRECTION_KINDS.filter((k) => k !== 'tap'), 'reset'])
        .describe('halve or double the tempo, shift the beats half a beat later, or reset to the beats as analysed'),
      taps: z
        .never({ error: mirrored('Only the tap action takes taps.', 'invalid_correction') })
        .optional()
        .describe('Only a tap has taps'),
    }),
  ])
  .meta({ id: 'TempoCorrectionRequest' });

export const planResult = z
  .object({
    plan: editPlan,
    estimate: z.object({ credits: z.number().int().describe('What generating this plan reserves (nothing is reserved now)') }),
    music: planMusic.nullable(),
  })
  .meta({ id: 'PlanResult' });

export const uploadResult = z
  .object({
    object_key: z.string(),
    kind: z.enum(['video', 'audio']),
    display_name: z.string(),
    size_bytes: z.number().int(),
    duration_sec: z.number(),
    width: z.number().int(),
    height: z.number().int(),
    thumbnail_url: z.string().nullable().describe("Video: a signed link to the upload's thumbnail JPEG; audio: null"),
  })
  .meta({ id: 'UploadResult' });

export const uploadInfoQuery = z.object({
  key: identifier(600, 'The key').min(1, 'The key must not be empty').describe('The object_key of the upload (or a library item)'),
});

export const uploadInfo = z
  .object({
    object_key: z.string(),
    kind: z.enum(['video', 'audio']),
    duration_sec: z.number(),
    width: z.number().int(),
    height: z.number().int(),
    thumbnail_url: z.string().nullable(),
    analysis: z.enum(['pending', 'ready', 'failed']),
    music: planMusic
      .omit({ duration_sec: true, sections: true })
      .optional()
      .describe("Audio, once analysis is 'ready': tempo, beats, downbeats and a waveform"),
  })
  .meta({ id: 'UploadInfo' });

export const reel = z
  .object({
    id: z.string(),
    title: z.string(),
    description: z.string(),
    created_at: z.string(),
    download_url: z.string(),
    thumbnail: z
      .object({ url: z.string(), format: z.literal('jpeg') })
      .nullable()
      .describe('A link to the thumbnail (not inline data), valid as long as download_url'),
    duration_sec: z.number(),
    music_used: z.boolean(),
    enable_beat_mapping: z.boolean(),
    enable_intelligence: z.boolean(),
    pacing_preset: z.string(),
    share_to_showcase: z.boolean().describe('The owner allows admins to feature it in the public showcase'),
    expires_at: z.string().nullable().describe("When it is deleted under the plan's retention; null: kept without limit"),
  })
  .meta({ id: 'Reel' });

export const reelList = z
  .object({
    videos: z.array(reel),
    stats: z.object({ total_videos: z.number().int() }),
    status: z.string(),
    message: z.string(),
  })
  .meta({ id: 'ReelList' });

export const estimateRequest = z
  .object({
    pacing_preset: z.enum(PACING_PRESETS),
    has_music: z.boolean(),
    total_source_bytes: z.number().int().min(0).max(1e13),
    output_seconds: z
      .number()
      .min(0)
      .max(1e7)
      .default(0)
      .describe(
        "How long the reel will be: the music's length, else the clips' total. Over 3 minutes, each started minute adds 10 credits",
      ),
  })
  .strict()
  .meta({ id: 'EstimateRequest' });

export const catalogue = z
  .object({
    plans: z.array(
      z.object({
        id: z.string(),
        name: z.string(),
        monthly_price: z.number(),
        yearly_price: z.number(),
        monthly_credits: z.number().int(),
        yearly_credits: z.number().int(),
        storage: z.object({ monthly: z.string(), yearly: z.string() }),
        export_quality: z.string(),
        approx_video: z.object({ monthly: z.string(), yearly: z.string() }),
        features: z.array(z.string()),
        most_popular: z.boolean(),
      }),
    ),
    packs: z.array(z.object({ id: z.string(), credits: z.number().int(), price: z.number(), best_value: z.boolean() })),
  })
  .meta({ id: 'Catalogue' });

export const guestPass = z
  .object({
    enabled: z.boolean(),
    email: z.string(),
    password: z.string().optional().describe('Shown once, right after enabling or rotating'),
  })
  .meta({ id: 'GuestPass' });

export const healthReport = z
  .object({
    status: z.enum(['healthy', 'unhealthy']),
    services: z.record(z.string(), z.string()),
    instance: z.string(),
    unavailable: z.array(z.string()).optional(),
    detail: z.string().optional(),
    code: z.string().optional(),
  })
  .meta({ id: 'HealthReport' });

export const uuidParams = z.object({ id: z.uuid() });

/** A stock library item's key in a URL (its content hash). */
export const libraryKeyParams = z.object({ key: z.string().regex(/^[a-f0-9]{8,64}$/, 'not a library key') });

/** A page of a list: `limit` (1 to `max`, 50 by default) items from `offset` (an int32 on gRPC). */
export const pageQuery = (max: number) =>
  z.object({
    limit: z.coerce.number().int().min(1).max(max).default(50),
    offset: z.coerce.number().int().min(0).max(INT32_MAX).default(0),
  });
