/**
 * The song generator's options for training songs (tools/beat-model/make-data.mjs --excerpts):
 * shorter excerpts and a scaled tempo, with the score's beats still exact; without options a seed
 * gives the song the bench judges.
 */
import { generateSong, STYLE_NAMES } from '../../src/bench/corpus/generator';

describe('the song generator', () => {
  it('gives the same song without options as with empty ones', () => {
    for (const seed of [0, 7, 1_000_003]) expect(generateSong(seed, undefined, {})).toEqual(generateSong(seed));
  });

  it('draws excerpts within the asked length', () => {
    for (let seed = 0; seed < STYLE_NAMES.length; seed++) {
      const song = generateSong(seed, undefined, { durationSec: [12, 22] });
      // The last beat before the drawn length, then up to two beats and 1.5 s of ring-out.
      expect(song.beats.at(-1)!).toBeLessThan(22);
      expect(song.durationSec).toBeLessThan(22 + 2 * (60 / 40) + 1.5);
      expect(song.downbeats.length).toBeGreaterThanOrEqual(3);
    }
  });

  it('scales the tempo, and the beats follow it exactly', () => {
    const plain = generateSong(3, 'house');
    const fast = generateSong(3, 'house', { tempoScale: 1.3 });
    expect(fast.bpm / plain.bpm).toBeCloseTo(1.3, 2);
    // House runs on a machine's clock: every beat one period after the one before.
    const period = 60 / fast.bpm;
    for (let i = 1; i < fast.beats.length; i++) expect(Math.abs(fast.beats[i]! - fast.beats[i - 1]! - period)).toBeLessThan(0.002);
  });
});
