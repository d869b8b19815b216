import { analysisJson, editPlanSchema, isClipAnalysis, isMusicAnalysis, parseAnalysisJson, parsePlanJson, planJson } from '../../src/index';

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
};
const music = {
  version: 3,
  durationSec: 30,
  bpm: 120,
  beatPeriodSec: 0.5,
  beats: [0.5, 1],
  bars: [0.5],
  confidence: 0.8,
  peaks: [0.1, 0.7],
};

describe('analyses across gRPC (analysis_json): one schema at both ends', () => {
  it('sends a clip or music analysis as it is and reads it back with its kind', () => {
    const c = parseAnalysisJson(analysisJson(clip));
    expect(c).toEqual(clip);
    expect(isClipAnalysis(c)).toBe(true);
    expect(isMusicAnalysis(c)).toBe(false);
    const m = parseAnalysisJson(analysisJson(music));
    // The upload's waveform travels with its analysis.
    expect(m).toEqual(music);
    expect(isMusicAnalysis(m)).toBe(true);
    expect(isClipAnalysis(m)).toBe(false);
  });

  it('treats no analysis, bad JSON and a document that is not an analysis as absent', () => {
    expect(analysisJson(null)).toBe('');
    expect(analysisJson({ version: 2, score: 'high' })).toBe('');
    expect(parseAnalysisJson('')).toBeUndefined();
    expect(parseAnalysisJson('{not json')).toBeUndefined();
    expect(parseAnalysisJson(JSON.stringify({ ...music, beats: 'many' }))).toBeUndefined();
    expect(parseAnalysisJson(JSON.stringify({ ...clip, black: [0, 1] }))).toBeUndefined();
  });
});

describe('the edit plan across gRPC (plan_json)', () => {
  const plan = editPlanSchema.parse({
    version: 1,
    total_sec: 4,
    fps: 30,
    beat_aligned: true,
    aspect: '9:16',
    segments: [{ clip: 0, in: 0, out: 4, start: 0, end: 4, thumbnail_url: 'http://x/t.jpg' }],
  });

  it('reads back the plan it sent, without the expiring links', () => {
    const back = parsePlanJson(planJson(plan));
    expect(back.segments[0]).toEqual({ clip: 0, in: 0, out: 4, start: 0, end: 4, hold: 0, score: null });
    expect(back.aspect).toBe('9:16');
  });

  it('refuses what is not a plan, naming the field', () => {
    expect(() => parsePlanJson('nope')).toThrow('plan_json is not JSON');
    expect(() => parsePlanJson(JSON.stringify({ ...plan, aspect: '4:3' }))).toThrow(/plan_json is not an edit plan: aspect/);
    expect(() => parsePlanJson(JSON.stringify({ ...plan, segments: [] }))).toThrow('A plan needs at least one segment');
  });
});
