/**
 * The assembly job request (spec section 3), defined once: its fields, rules and defaults (spec
 * section 9). The gateway validates request bodies with it (and derives the OpenAPI schema the web
 * client's types are generated from), the orchestrator checks it again before pricing a job, and
 * the engine's render settings are its rendering part. On gRPC it travels as the typed
 * `assembly.v1.JobRequest` message; `toJobRequestMessage` / `fromJobRequestMessage` convert.
 */
import type { MessageInitShape } from '@bufbuild/protobuf';
import { z } from 'zod';
import type { JobRequest as JobRequestMessage, JobRequestSchema } from './gen/reelsmith/assembly/v1/assembly_pb.js';
import { ASPECTS, FRAMINGS, editPlanSchema, planFromWire, planToWire, type AspectName, type FramingName } from './edit-plan.js';
import { TARGET_DURATION_LIMITS } from './reel-length.js';

export const PACING_PRESETS = ['relaxed', 'standard', 'high-energy'] as const;
export type PacingPreset = (typeof PACING_PRESETS)[number];
export const TITLE_FONTS = ['Roboto-Bold.ttf', 'Arial-Bold.ttf', 'Helvetica-Bold.ttf'] as const;
export const TITLE_POSITIONS = ['top', 'center', 'bottom'] as const;

/** The spec's defaults (section 9), in one place. */
export const JOB_DEFAULTS = {
  output_filename: 'reel_output.mp4',
  pacing_preset: 'standard',
  enable_beat_mapping: true,
  enable_intelligence: true,
  title_config: { enabled: true, text: 'My Awesome Video', font: 'Roboto-Bold.ttf', font_size: 72, position: 'center' },
  enable_fades: true,
  fade_in_duration_sec: 2,
  fade_out_duration_sec: 2,
  get_footage_offers: false,
  aspect: '16:9',
} as const;

/** Limits of the fields, shown to users by the web form as well. */
export const JOB_LIMITS = {
  maxClips: 1000,
  keyLength: 600,
  titleLength: 200,
  filenameLength: 200,
  fontSize: { min: 8, max: 400 },
  fadeSeconds: { min: 0, max: 10 },
} as const;

// C0 and C1 control characters (NUL, line breaks, escapes...) and halves of a UTF-16 pair: never
// part of a title, a file name or a key. Refused up front, before anything is reserved or stored.
// A pattern, not a refinement, so the gateway's OpenAPI document states it too.
// eslint-disable-next-line no-control-regex
const PLAIN = /^(?:[^\u0000-\u001f\u007f-\u009f\ud800-\udfff]|[\ud800-\udbff][\udc00-\udfff])*$/;
/** A string of at most `max` characters without control characters (any user-typed field). */
export const plainText = (max: number, what: string) =>
  z.string().max(max, `${what} must be at most ${max} characters`).regex(PLAIN, `${what} must not contain control characters`);
const objectKey = plainText(JOB_LIMITS.keyLength, 'A file key').min(1, 'A file key must not be empty');

export const titleConfigSchema = z
  .object({
    enabled: z.boolean().default(JOB_DEFAULTS.title_config.enabled),
    text: plainText(JOB_LIMITS.titleLength, 'The title').default(JOB_DEFAULTS.title_config.text),
    font: z.enum(TITLE_FONTS).default(JOB_DEFAULTS.title_config.font),
    font_size: z
      .number()
      .int()
      .min(JOB_LIMITS.fontSize.min, `The font size must be at least ${JOB_LIMITS.fontSize.min}`)
      .max(JOB_LIMITS.fontSize.max, `The font size must be at most ${JOB_LIMITS.fontSize.max}`)
      .default(JOB_DEFAULTS.title_config.font_size),
    position: z.enum(TITLE_POSITIONS).default(JOB_DEFAULTS.title_config.position),
  })
  .meta({ id: 'TitleConfig' });

const fade = (what: string) =>
  z
    .number()
    .min(JOB_LIMITS.fadeSeconds.min, `${what} must be at least ${JOB_LIMITS.fadeSeconds.min} seconds`)
    .max(JOB_LIMITS.fadeSeconds.max, `${what} must be at most ${JOB_LIMITS.fadeSeconds.max} seconds`);

/** The rendering part of a job request: what the engine needs besides the files. */
export const renderOptionsShape = {
  output_filename: plainText(JOB_LIMITS.filenameLength, 'The output filename')
    .regex(/^[^/\\]*$/, 'The output filename must not contain / or \\')
    .default(JOB_DEFAULTS.output_filename),
  pacing_preset: z.enum(PACING_PRESETS).default(JOB_DEFAULTS.pacing_preset),
  enable_beat_mapping: z.boolean().default(JOB_DEFAULTS.enable_beat_mapping),
  enable_intelligence: z.boolean().default(JOB_DEFAULTS.enable_intelligence),
  title_config: titleConfigSchema.prefault({}),
  enable_fades: z.boolean().default(JOB_DEFAULTS.enable_fades),
  fade_in_duration_sec: fade('The fade-in').default(JOB_DEFAULTS.fade_in_duration_sec),
  fade_out_duration_sec: fade('The fade-out').default(JOB_DEFAULTS.fade_out_duration_sec),
  aspect: z.enum(ASPECTS).default(JOB_DEFAULTS.aspect),
  framing: z
    .enum(FRAMINGS)
    .optional()
    .describe(
      'How clips of another shape fill the frame: subject (a crop that follows the subject), letterbox (the whole picture, with bars) ' +
        'or center (filled, centre crop). A clip of the output shape is never cropped. Absent: from enable_letterbox when that is ' +
        'sent, otherwise subject for 9:16 and 1:1 and letterbox for 16:9',
    ),
  enable_letterbox: z
    .boolean()
    .optional()
    .describe('The older form of framing, used only when framing is absent: true is letterbox, false is center'),
};

/**
 * The framing a request asks for (defined once): `framing` when sent; else `enable_letterbox`
 * when sent (true letterbox, false center), so older clients keep what they had; else subject
 * for vertical and square reels and letterbox for landscape ones.
 */
export function resolveFraming(r: { framing?: FramingName | null; enable_letterbox?: boolean | null; aspect?: AspectName }): FramingName {
  if (r.framing) return r.framing;
  if (typeof r.enable_letterbox === 'boolean') return r.enable_letterbox ? 'letterbox' : 'center';
  return (r.aspect ?? JOB_DEFAULTS.aspect) === '16:9' ? 'letterbox' : 'subject';
}

export const jobRequestSchema = z
  .object({
    media_files: z.array(objectKey).max(JOB_LIMITS.maxClips, `At most ${JOB_LIMITS.maxClips} clips`).default([]),
    music_file: objectKey.nullish(),
    ...renderOptionsShape,
    get_footage_offers: z.boolean().default(JOB_DEFAULTS.get_footage_offers),
    target_duration_sec: z
      .number()
      .min(TARGET_DURATION_LIMITS.min, `The target length must be at least ${TARGET_DURATION_LIMITS.min} seconds`)
      .max(TARGET_DURATION_LIMITS.max, `The target length must be at most ${TARGET_DURATION_LIMITS.max} seconds`)
      .nullish()
      .describe(
        "The reel's length in seconds (a whole number of bars nearest it, cut from the best part of the song); null: the whole song",
      ),
    music_start_sec: z
      .number()
      .min(0, 'The music start must be at least 0 seconds')
      .nullish()
      .describe("Where the reel's music starts in the song, seconds: a bar line of the analysed song; null: the best part"),
    /** An edit plan from POST /jobs/plan (possibly edited): the render follows it exactly. */
    plan: editPlanSchema.optional(),
    callback_url: z
      .string()
      .max(2000, 'The callback URL must be at most 2000 characters')
      .regex(/^https?:\/\/[^\s/?#]+\S*$/i, 'The callback URL must be an http or https URL')
      .nullish()
      .describe("An http(s) URL that gets this job's webhook events, signed with your callback secret (GET /webhook-endpoints)"),
  })
  .meta({ id: 'JobRequest' });

/** A valid request with every default applied (`parseJobRequest` also fills `framing`, see `resolveFraming`). */
export type JobRequest = z.output<typeof jobRequestSchema>;
/** What a caller may send (defaults optional). */
export type JobRequestInput = z.input<typeof jobRequestSchema>;

/** Validates a request; the message names every problem ("title_config.text: ..."). */
export function parseJobRequest(input: unknown): { ok: true; value: JobRequest } | { ok: false; problems: string } {
  const r = jobRequestSchema.safeParse(input);
  if (r.success) return { ok: true, value: { ...r.data, framing: resolveFraming(r.data) } };
  return { ok: false, problems: r.error.issues.map((i) => `${i.path.join('.') || 'request'}: ${i.message}`).join('; ') };
}

export function toJobRequestMessage(r: z.output<typeof jobRequestSchema>): MessageInitShape<typeof JobRequestSchema> {
  const framing = resolveFraming(r);
  return {
    mediaFiles: r.media_files,
    musicFile: r.music_file ?? '',
    outputFilename: r.output_filename,
    pacingPreset: r.pacing_preset,
    enableBeatMapping: r.enable_beat_mapping,
    enableIntelligence: r.enable_intelligence,
    titleConfig: {
      enabled: r.title_config.enabled,
      text: r.title_config.text,
      font: r.title_config.font,
      fontSize: r.title_config.font_size,
      position: r.title_config.position,
    },
    enableFades: r.enable_fades,
    fadeInDurationSec: r.fade_in_duration_sec,
    fadeOutDurationSec: r.fade_out_duration_sec,
    // The resolved framing travels; enable_letterbox says the same for readers that predate it.
    framing,
    enableLetterbox: framing === 'letterbox',
    getFootageOffers: r.get_footage_offers,
    aspect: r.aspect,
    plan: r.plan ? planFromWire(r.plan) : undefined,
    targetDurationSec: r.target_duration_sec ?? undefined,
    musicStartSec: r.music_start_sec ?? undefined,
    callbackUrl: r.callback_url ?? '',
  };
}

/** The message back to a request as it was sent; check it with `parseJobRequest`. */
export function fromJobRequestMessage(m: JobRequestMessage): JobRequestInput {
  const t = m.titleConfig;
  return {
    media_files: m.mediaFiles,
    music_file: m.musicFile || null,
    output_filename: m.outputFilename,
    pacing_preset: m.pacingPreset,
    enable_beat_mapping: m.enableBeatMapping,
    enable_intelligence: m.enableIntelligence,
    title_config: t && { enabled: t.enabled, text: t.text, font: t.font, font_size: t.fontSize, position: t.position },
    enable_fades: m.enableFades,
    fade_in_duration_sec: m.fadeInDurationSec,
    fade_out_duration_sec: m.fadeOutDurationSec,
    // A message without framing predates it: its enable_letterbox decides.
    ...(m.framing ? { framing: m.framing as FramingName } : { enable_letterbox: m.enableLetterbox }),
    get_footage_offers: m.getFootageOffers,
    aspect: m.aspect as AspectName,
    plan: m.plan ? planToWire(m.plan, m.aspect as AspectName) : undefined,
    target_duration_sec: m.targetDurationSec ?? null,
    music_start_sec: m.musicStartSec ?? null,
    callback_url: m.callbackUrl || null,
  } as JobRequestInput;
}
