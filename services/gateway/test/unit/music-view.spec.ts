import { musicView } from '../../src/transport/http/assembly.routes';

const item = (analysisJson: string) => ({ analysisJson, peaks: [0.12345], analysedBpm: 0, tempoCorrections: [] });
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
  it('reads a music analysis through the schema', () => {
    expect(musicView(item(JSON.stringify(analysis)))).toEqual({
      tempo_bpm: 120,
      beats: analysis.beats,
      downbeats: [0, 2],
      peaks: [0.123],
      beats_per_bar: 3,
      analysed_bpm: 120,
      tempo_corrections: [],
    });
  });

  it('counts a document that is not a music analysis (partial, a clip analysis, not JSON, none) as no analysis', () => {
    const none = { tempo_bpm: 0, beats: [], downbeats: [], peaks: [0.123], beats_per_bar: 4, analysed_bpm: 0, tempo_corrections: [] };
    const { version: _v, confidence: _c, ...partial } = analysis;
    for (const text of [JSON.stringify(partial), JSON.stringify({ version: 1, durationSec: 2 }), '{not json', ''])
      expect(musicView(item(text))).toEqual(none);
  });
});
