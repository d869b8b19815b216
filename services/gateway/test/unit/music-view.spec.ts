import { analysisMessage } from '@reelsmith/proto';
import { musicView } from '../../src/transport/http/assembly.routes';

const item = (doc: unknown) => ({ analysis: analysisMessage(doc), peaks: [0.12345], analysedBpm: 0, tempoCorrections: [] });
const analysis = {
  version: 3,
  durationSec: 8,
  bpm: 120,
  beatPeriodSec: 0.5,
  beats: [0, 0.5, 1, 1.5, 2],
  bars: [0, 2],
  confidence: 0.9,
  beatsPerBar: 3,
};

describe("musicView (a music item's analysis as the timeline wants it)", () => {
  it('reads a music analysis from its message', () => {
    expect(musicView(item(analysis))).toEqual({
      tempo_bpm: 120,
      beats: analysis.beats,
      downbeats: [0, 2],
      peaks: [0.123],
      beats_per_bar: 3,
      analysed_bpm: 120,
      tempo_corrections: [],
    });
  });

  it('counts what is not a music analysis (a field of the wrong type, a clip analysis, a stray document, none) as no analysis', () => {
    const none = { tempo_bpm: 0, beats: [], downbeats: [], peaks: [0.123], beats_per_bar: 4, analysed_bpm: 0, tempo_corrections: [] };
    const clip = {
      version: 2,
      durationSec: 2,
      sampleIntervalSec: 0.5,
      times: [0],
      score: [1],
      black: [false],
      frozen: [false],
      blurred: [false],
      scenes: [],
    };
    for (const doc of [{ ...analysis, beats: 'many' }, clip, { version: 1, durationSec: 2 }, null])
      expect(musicView(item(doc))).toEqual(none);
  });
});
