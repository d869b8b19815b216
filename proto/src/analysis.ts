/**
 * The engine's media analyses as they cross gRPC (`MediaItem.analysis`, the message
 * `reelsmith.engine.v1.MediaAnalysis`): media-library stores what the engine measured at upload,
 * the orchestrator plans from it and the render worker renders with it. media-library keeps each
 * analysis as the engine wrote it, which is the message's JSON form; `analysisMessage` reads it
 * into the message, `analysisDoc` gives a service the engine's form back (components and
 * sections absent rather than empty). The engine's own types (`ClipAnalysis` in clip-scores.ts,
 * `MusicAnalysis` beside the beat tracker) must fit these documents: the services assign them,
 * so the compiler checks that they do.
 *
 * A stored document that does not fit is treated as absent: the orchestrator and the worker then
 * analyse the media themselves, as they do for an analysis of an older version.
 */
import { create, fromJson, type JsonValue } from '@bufbuild/protobuf';
import * as pb from './gen/reelsmith/engine/v1/analysis_pb.js';
import type { SongSection } from './edit-plan.js';
import { sectionKind, type SectionKind } from './song.js';
import type { Plain } from './plain.js';

/** A clip's subject track in the engine's form (reframe/types.ts): the camera's shifts as pairs. */
export type SubjectTrackDoc = Omit<Plain<pb.SubjectTrack>, 'cameraShift'> & { cameraShift?: Array<[number, number]> };

/** A clip's analysis in the engine's form: the score components and the subjects absent in analyses without them. */
export type ClipAnalysisDoc = Omit<Plain<pb.ClipAnalysis>, 'sharpness' | 'motion' | 'exposure' | 'decoding' | 'subjects'> & {
  subjects?: SubjectTrackDoc;
  sharpness?: number[];
  motion?: number[];
  exposure?: number[];
  decoding?: Omit<Plain<pb.ClipDecoding>, 'mode' | 'reason' | 'gaps'> & {
    mode: 'dense' | 'sparse';
    reason?: string;
    gaps?: Plain<pb.DecodingGaps>;
  };
};

/** A song's analysis in the engine's form: meter, onsets, beat strengths, waveform and sections absent when it has none. */
export type MusicAnalysisDoc = Omit<Plain<pb.MusicAnalysis>, 'beatsPerBar' | 'onsets' | 'beatStrength' | 'peaks' | 'sections'> & {
  beatsPerBar?: 3 | 4;
  onsets?: number[];
  beatStrength?: number[];
  peaks?: number[];
  sections?: AnalysedSection[];
};

/** A section of an analysed song, of a kind this version knows. */
export type AnalysedSection = SongSection & { kind: SectionKind };

export type MediaAnalysisDoc = ClipAnalysisDoc | MusicAnalysisDoc;

export const isClipAnalysis = (a: MediaAnalysisDoc | undefined): a is ClipAnalysisDoc => a !== undefined && 'sampleIntervalSec' in a;
export const isMusicAnalysis = (a: MediaAnalysisDoc | undefined): a is MusicAnalysisDoc => a !== undefined && 'bpm' in a;

const some = <T>(xs: T[]): T[] | undefined => (xs.length ? xs : undefined);

/**
 * A stored analysis (the engine's document, the message's JSON form) as the message, for
 * `MediaItem.analysis`; undefined when there is none or it is not an analysis this version reads.
 * Keys the message does not know (a newer engine's) are left out.
 */
export function analysisMessage(doc: unknown): pb.MediaAnalysis | undefined {
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) return undefined;
  const json = doc as JsonValue;
  const read = { ignoreUnknownFields: true };
  try {
    if ('bpm' in doc)
      return create(pb.MediaAnalysisSchema, { kind: { case: 'music', value: fromJson(pb.MusicAnalysisSchema, json, read) } });
    if ('sampleIntervalSec' in doc)
      return create(pb.MediaAnalysisSchema, {
        kind: { case: 'clip', value: fromJson(pb.ClipAnalysisSchema, shiftsAsObjects(json), read) },
      });
  } catch {
    // A field of the wrong type: not an analysis.
  }
  return undefined;
}

/** The engine keeps a track's camera shifts as [dx, dy] pairs; the message as {dx, dy}. */
function shiftsAsObjects(doc: JsonValue): JsonValue {
  const subjects = (doc as { subjects?: { cameraShift?: unknown } }).subjects;
  if (!subjects || !Array.isArray(subjects.cameraShift)) return doc;
  const cameraShift = subjects.cameraShift.map((p: unknown) =>
    Array.isArray(p) ? { dx: p[0] as JsonValue, dy: p[1] as JsonValue } : p,
  ) as JsonValue;
  return { ...(doc as object), subjects: { ...subjects, cameraShift } } as JsonValue;
}

/** `MediaItem.analysis` back in the engine's form; undefined when unset. */
export function analysisDoc(m: pb.MediaAnalysis | undefined): MediaAnalysisDoc | undefined {
  const k = m?.kind;
  if (k?.case === 'clip') {
    const { $typeName: _t, $unknown: _u, sharpness, motion, exposure, decoding, subjects, ...rest } = k.value;
    return {
      ...rest,
      ...(subjects ? { subjects: subjectTrack(subjects) } : {}),
      ...(some(sharpness) ? { sharpness } : {}),
      ...(some(motion) ? { motion } : {}),
      ...(some(exposure) ? { exposure } : {}),
      ...(decoding
        ? {
            decoding: {
              mode: decoding.mode === 'sparse' ? 'sparse' : 'dense',
              ...(decoding.reason ? { reason: decoding.reason } : {}),
              decodedShare: decoding.decodedShare,
              measuredShare: decoding.measuredShare,
              ...(decoding.gaps ? { gaps: { decoded: { ...decoding.gaps.decoded }, filled: decoding.gaps.filled } } : {}),
            },
          }
        : {}),
    };
  }
  if (k?.case === 'music') {
    const { $typeName: _t, $unknown: _u, beatsPerBar, onsets, beatStrength, peaks, sections, ...rest } = k.value;
    const doc: MusicAnalysisDoc = { ...rest };
    if (beatsPerBar === 3 || beatsPerBar === 4) doc.beatsPerBar = beatsPerBar;
    if (some(onsets)) doc.onsets = onsets;
    if (some(beatStrength)) doc.beatStrength = beatStrength;
    if (some(peaks)) doc.peaks = peaks;
    const known = sections.flatMap(({ $typeName: _s, $unknown: _v, kind, ...x }) => {
      const k = sectionKind(kind);
      return k ? [{ ...x, kind: k }] : [];
    });
    if (known.length) doc.sections = known;
    return doc;
  }
  return undefined;
}

function subjectTrack(m: pb.SubjectTrack): SubjectTrackDoc {
  return {
    version: m.version,
    intervalSec: m.intervalSec,
    samples: m.samples.map((x) => ({
      t: x.t,
      boxes: x.boxes.map((b) => ({ x: b.x, y: b.y, w: b.w, h: b.h, weight: b.weight, moving: b.moving })),
    })),
    shots: m.shots,
    ...(m.cameraShift.length ? { cameraShift: m.cameraShift.map((c): [number, number] => [c.dx, c.dy]) } : {}),
  };
}
