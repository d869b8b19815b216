import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import {
  analysisDoc,
  analysisMessage,
  editPlanOf,
  editPlanSchema,
  enginePlan,
  isClipAnalysis,
  isMusicAnalysis,
  planFromWire,
  planToWire,
  engineAnalysis,
} from '../../src/index';

const clip = {
  version: 2,
  durationSec: 4,
  sampleIntervalSec: 0.5,
  times: [0, 0.5],
  score: [0.2, 0.9],
  black: [false, false],
  frozen: [false, false],
  blurred: [false, true],
  scenes: [],
  decoding: { mode: 'sparse', decodedShare: 0.4, measuredShare: 0.8, gaps: { decoded: { scene: 1 }, filled: 2 } },
  // The subject track reframing follows; the camera's shifts are [dx, dy] pairs in the engine.
  subjects: {
    version: 1,
    intervalSec: 0.25,
    samples: [
      { t: 0, boxes: [{ x: 0.25, y: 0.125, w: 0.5, h: 0.5, weight: 0.75, moving: true }] },
      { t: 0.25, boxes: [] },
    ],
    shots: [2],
    cameraShift: [
      [0, 0],
      [0.125, -0.25],
    ],
  },
};
const music = {
  version: 3,
  durationSec: 30,
  bpm: 120,
  beatPeriodSec: 0.5,
  beats: [0.5, 1],
  bars: [0.5],
  confidence: 0.8,
  beatStrength: [0.12, 0.9],
  peaks: [0.5, 0.75],
  sections: [{ start: 0, end: 30, label: 'A', kind: 'chorus', energy: 1, loudnessDb: -12 }],
};

/** Through the wire and back, as a service receives it. */
const wire = (m: engineAnalysis.MediaAnalysis | undefined) =>
  m && fromBinary(engineAnalysis.MediaAnalysisSchema, toBinary(engineAnalysis.MediaAnalysisSchema, m));

describe('analyses across gRPC (MediaItem.analysis): the message at both ends', () => {
  it('sends a clip or music analysis as it is and reads it back with its kind', () => {
    const c = analysisDoc(wire(analysisMessage(clip)));
    expect(c).toEqual(clip);
    expect(isClipAnalysis(c)).toBe(true);
    expect(isMusicAnalysis(c)).toBe(false);
    const m = analysisDoc(wire(analysisMessage({ ...music, aNewerEnginesField: [1] })));
    // The beats' strength, the upload's waveform and the song's sections travel with its analysis;
    // unknown keys do not.
    expect(m).toEqual(music);
    expect(isMusicAnalysis(m)).toBe(true);
    expect(isClipAnalysis(m)).toBe(false);
  });

  it('treats no analysis and a document that is not an analysis as absent', () => {
    expect(analysisMessage(null)).toBeUndefined();
    expect(analysisMessage('{"bpm": 120}')).toBeUndefined();
    expect(analysisMessage({ version: 2, score: 'high' })).toBeUndefined();
    expect(analysisMessage({ ...music, beats: 'many' })).toBeUndefined();
    expect(analysisMessage({ ...clip, black: [0, 1] })).toBeUndefined();
    expect(analysisDoc(undefined)).toBeUndefined();
  });
});

describe('the edit plan across gRPC (the EditPlan message)', () => {
  const plan = editPlanSchema.parse({
    version: 1,
    total_sec: 4,
    fps: 30,
    beat_aligned: true,
    aspect: '9:16',
    segments: [
      { clip: 0, in: 0, out: 2, start: 0, end: 2, thumbnail_url: 'http://x/t.jpg' },
      {
        clip: 1,
        in: 1,
        out: 3,
        start: 2,
        end: 4,
        score: 0.5,
        framing: { mode: 'subject', camera: 'pan', width: 608, height: 1080, path: [{ t: 1, x: 10, y: 0 }] },
      },
    ],
  });
  const overWire = (p: ReturnType<typeof planFromWire>) =>
    fromBinary(enginePlan.EditPlanSchema, toBinary(enginePlan.EditPlanSchema, create(enginePlan.EditPlanSchema, p)));

  it('reads back the plan it sent, without the expiring links', () => {
    const back = planToWire(overWire(planFromWire(plan)), '16:9');
    expect(back.segments[0]).toEqual({ clip: 0, in: 0, out: 2, start: 0, end: 2, hold: 0, score: null });
    expect(back.segments[1]).toEqual({ ...plan.segments[1], score: 0.5 });
    expect(back.aspect).toBe('9:16');
    expect(JSON.stringify(back)).not.toContain('$typeName');
  });

  it('names the request aspect when the plan has none, and leaves out a framing this version does not know', () => {
    const m = overWire({ ...planFromWire(plan), aspect: '' });
    expect(planToWire(m, '1:1').aspect).toBe('1:1');
    m.segments[1]!.framing!.mode = 'zoom';
    const p = editPlanOf(m);
    expect(p.segments[1]!.framing).toBeUndefined();
    expect(p.segments[0]).toEqual({ clip: 0, in: 0, out: 2, start: 0, end: 2, hold: 0 });
  });
});
