/**
 * Each segment's framing in the plan (issue 43): how its clip fills the output frame, as a crop
 * path in source pixels. Planned once, here, from the request's framing, the clips' shapes and
 * their subject tracks (clip analysis), so the plan preview (orchestrator) and the render (engine)
 * show the same picture: the render follows `segment.framing` exactly (render-framing.ts).
 * A plan sent back by a client keeps its framings; they are checked against the clips first.
 * Pure: no I/O.
 */
import type { FramingName } from '@reelsmith/proto';
import type { EditPlan, Segment } from './plan.js';
import { SUBJECT_TRACK_VERSION, centerFraming, letterboxFraming, planCropPath, sameShape } from './reframe/index.js';
import type { SegmentFraming, Size, SubjectTrack } from './reframe/types.js';
import { ASPECTS, type Aspect } from './settings.js';

/** What framing needs of a clip: its picture as displayed (after rotation and pixel shape) and its subjects. */
export interface FramingSource {
  width: number;
  height: number;
  subjects?: SubjectTrack;
}

/** A segment's framing as the plan holds it (the plan message's SegmentFraming; reframe/types.ts `SegmentFraming` fits it). */
export type PlanFraming = NonNullable<Segment['framing']>;

/** A clip analysis's subject track, when it is of this engine's version. */
export function subjectTrack(analysis: unknown): SubjectTrack | undefined {
  const t = (analysis as { subjects?: SubjectTrack } | undefined)?.subjects;
  return t && t.version === SUBJECT_TRACK_VERSION && Array.isArray(t.samples) ? t : undefined;
}

/** The output frame of an aspect, as the reframe functions take sizes. */
export const outputSize = (aspect: Aspect): Size => ({ w: ASPECTS[aspect].width, h: ASPECTS[aspect].height });

/** Whether the framing would use the clip's subject track (so analysis is worth running for it). */
export function needsSubjects(framing: FramingName, source: { width: number; height: number } | undefined, aspect: Aspect): boolean {
  return framing === 'subject' && Boolean(source) && !sameShape({ w: source!.width, h: source!.height }, outputSize(aspect));
}

/** One segment's framing by the request's framing (see reframe/camera-path.ts). */
export function segmentFraming(seg: Segment, source: FramingSource, aspect: Aspect, framing: FramingName): SegmentFraming {
  const window = { srcStart: seg.in, srcEnd: seg.out };
  const size = { w: source.width, h: source.height };
  const out = outputSize(aspect);
  if (framing === 'letterbox') return letterboxFraming(window, size);
  if (framing === 'center') return centerFraming(window, size, out);
  return planCropPath(source.subjects, window, size, out);
}

/**
 * The plan with a framing on every segment that has none (a segment that has one keeps it: a plan
 * sent back renders as it was previewed). A segment whose clip has no known size is left as it is
 * (the render then frames it by the request's framing, centre crop for subject).
 */
export function framePlan(
  plan: EditPlan,
  sources: ReadonlyArray<FramingSource | undefined>,
  aspect: Aspect,
  framing: FramingName,
): EditPlan {
  return {
    ...plan,
    segments: plan.segments.map((seg) => {
      const source = sources[seg.clip];
      if (seg.framing || !source || !source.width || !source.height) return seg;
      return { ...seg, framing: segmentFraming(seg, source, aspect, framing) };
    }),
  };
}

/**
 * Allowed difference between a crop's shape and the output's: 2 %, or the crop's width or height
 * off by up to 2 pixels from the output's shape (rounding to even pixels, which on a small picture
 * is more than 2 %).
 */
const SHAPE_TOLERANCE = 0.02;
const SHAPE_TOLERANCE_PX = 2;
/** Whether a w x h crop has the shape of ratio `r` (width over height) within the tolerance. */
const hasShape = (w: number, h: number, r: number) =>
  Math.abs(w / h / r - 1) <= SHAPE_TOLERANCE || Math.abs(w - h * r) <= SHAPE_TOLERANCE_PX || Math.abs(h - w / r) <= SHAPE_TOLERANCE_PX;

/**
 * Why a segment's framing cannot be rendered on its clip, or undefined when it can: the crop lies
 * inside the picture, has the output's shape (or is the whole picture), and its keys go forward in time.
 */
export function framingProblem(f: PlanFraming, source: { width: number; height: number }, aspect: Aspect): string | undefined {
  const out = outputSize(aspect);
  if (f.width > source.width || f.height > source.height)
    return `the crop ${f.width}x${f.height} is larger than the clip's picture ${source.width}x${source.height}`;
  const whole = f.width === source.width && f.height === source.height;
  if (!whole && f.camera !== 'letterbox' && !hasShape(f.width, f.height, out.w / out.h))
    return `the crop ${f.width}x${f.height} does not have the output's shape ${aspect}`;
  let t = -Infinity;
  for (const k of f.path) {
    if (k.t < t) return 'the crop path goes back in time';
    t = k.t;
    if (k.x + f.width > source.width + 0.5 || k.y + f.height > source.height + 0.5) return `the crop at ${k.t} s leaves the clip's picture`;
  }
  return undefined;
}

/** The first segment whose framing cannot be rendered, named, or undefined. */
export function planFramingProblem(plan: EditPlan, sources: ReadonlyArray<{ width: number; height: number } | undefined>, aspect: Aspect) {
  for (const [i, seg] of plan.segments.entries()) {
    const source = sources[seg.clip];
    if (!seg.framing || !source || !source.width || !source.height) continue;
    const problem = framingProblem(seg.framing, source, aspect);
    if (problem) return `segment ${i}: ${problem}`;
  }
  return undefined;
}
