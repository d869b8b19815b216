/**
 * Shapes shared by automatic reframing (issue 43): the subject track that clip analysis stores
 * with each clip, and the framing (crop path) that planning gives each segment.
 *
 * Coordinates: the subject track is in fractions of the picture (0..1, independent of the
 * source's size, since analysis frames are scaled to 320x180 whatever the source's shape); a
 * framing is in source pixels (as displayed, after rotation), ready for ffmpeg's crop filter.
 * Times are seconds on the clip's own timeline (source time).
 */

/** How a reel's clips fill an output of another shape. */
export type Framing = 'subject' | 'letterbox' | 'center';
export const FRAMINGS = ['subject', 'letterbox', 'center'] as const satisfies readonly Framing[];

/** One keyframe of a crop path: at source time `t`, the crop's top-left corner in source pixels. */
export interface CropKey {
  t: number;
  x: number;
  y: number;
}

/** The camera a segment's crop follows (AutoFlip's choices, plus letterbox for no crop at all). */
export type CameraKind = 'stationary' | 'pan' | 'track' | 'letterbox';

/**
 * The framing of one segment. `width` x `height` is the crop in source pixels (the whole source
 * for letterbox and for a source that already has the output's shape). `path` holds keyframes in
 * increasing `t` over the segment's source window; between keyframes the corner moves linearly,
 * before the first and after the last it stays put. Letterbox: one key at (0, 0), the whole source.
 */
export interface SegmentFraming {
  mode: Framing;
  width: number;
  height: number;
  path: CropKey[];
  camera: CameraKind;
  /** Why this camera, in words for the plan (e.g. the two-subject fallback). */
  reason?: string;
}

/** A salient region in one analysis sample, in fractions of the picture. */
export interface SubjectBox {
  x: number;
  y: number;
  w: number;
  h: number;
  /** Salience mass of the region, 0..1 (share of the sample's total salience). */
  weight: number;
  /** The region moves against the background (camera motion taken out). */
  moving: boolean;
}

/** The regions found in one analysed frame, biggest weight first (at most MAX_BOXES). */
export interface SubjectSample {
  t: number;
  boxes: SubjectBox[];
}

/** A clip's subjects, stored with its clip analysis (`ClipAnalysis.subjects`). */
export interface SubjectTrack {
  version: number;
  /** Nominal seconds between samples (sparse decodes leave gaps; samples carry their own times). */
  intervalSec: number;
  samples: SubjectSample[];
  /** Shot boundaries (seconds) the camera path restarts at: the clip analysis's scenes. */
  shots: number[];
  /**
   * Camera motion per sample, as the picture's shift since the previous sample in fractions of
   * its width and height (same length as `samples`; informative, used by pan detection).
   */
  cameraShift?: Array<[number, number]>;
}

/** A segment's window on its clip's timeline, seconds. */
export interface SourceWindow {
  srcStart: number;
  srcEnd: number;
}

/** A picture's size in pixels (a source as displayed, or an output). */
export interface Size {
  w: number;
  h: number;
}

/**
 * Signatures (implemented in ./subject-analysis.ts and ./camera-path.ts, re-exported from
 * ./index.ts):
 *
 *   createSubjectAnalyser(w = 320, h = 180): { push(t, grey): void; finish(shots): SubjectTrack }
 *     fed the clip analysis's grey frames as they are decoded (no second decode);
 *   analyseSubjects(frames: Array<{ t: number; pixels: Uint8Array }>, shots: number[], w = 320, h = 180): SubjectTrack
 *   planCropPath(track: SubjectTrack | undefined, segment: SourceWindow, source: Size, output: Size): SegmentFraming
 *     (no track: the centre crop; a source of the output's shape: never cropped);
 *   centerFraming(segment, source, output) / letterboxFraming(segment, source): SegmentFraming.
 */
export type PlanCropPath = (track: SubjectTrack | undefined, segment: SourceWindow, source: Size, output: Size) => SegmentFraming;
