import { beatContinuity, beatFMeasure, beatVariations, cutsOnBeat } from '../../src/beat-measures';
import { MUSIC_ANALYSIS_VERSION } from '../../src/beat-tracker';
import { scoreSong } from '../../src/bench/beats-bench';

/** Beats every `period` s from `start` to `end` (exclusive). */
const grid = (start: number, period: number, end: number) =>
  Array.from({ length: Math.ceil((end - start) / period) }, (_, i) => Math.round((start + i * period) * 1e6) / 1e6);

describe('beat measures', () => {
  const truth = grid(0.5, 0.5, 30.25); // 120 BPM for 30 s

  it('scores a perfect tracking 1 on every measure', () => {
    expect(beatFMeasure(truth, truth)).toBe(1);
    expect(beatContinuity(truth, truth)).toEqual({ cmlt: 1, cmlc: 1, amlt: 1, amlc: 1 });
    expect(cutsOnBeat([1, 5.5, 12], truth)).toBe(1);
  });

  it('accepts small timing errors within the tolerances (70 ms, 17.5 % of a beat)', () => {
    const jittered = truth.map((b, i) => b + (i % 2 ? 0.03 : -0.03));
    expect(beatFMeasure(jittered, truth)).toBe(1);
    expect(beatContinuity(jittered, truth).cmlt).toBe(1);
  });

  it('scores off-beat tracking 0 on F and CMLt but 1 on AMLt', () => {
    const off = truth.map((b) => b + 0.25);
    expect(beatFMeasure(off, truth)).toBe(0);
    const c = beatContinuity(off, truth);
    expect(c.cmlt).toBe(0);
    expect(c.amlt).toBeGreaterThan(0.95);
    expect(cutsOnBeat([1.25, 2.75], truth)).toBe(0);
  });

  it('scores double and half tempo as wrong level (CMLt 0) but allowed (AMLt high)', () => {
    const double = grid(0.5, 0.25, 30.25);
    const half = grid(0.5, 1, 30.25);
    expect(beatContinuity(double, truth).cmlt).toBe(0);
    expect(beatContinuity(double, truth).amlt).toBeGreaterThan(0.95);
    expect(beatContinuity(half, truth).cmlt).toBe(0);
    expect(beatContinuity(half, truth).amlt).toBeGreaterThan(0.95);
    // Half tempo still hits every other beat: F of 2/3 (precision 1, recall 1/2).
    expect(beatFMeasure(half, truth)).toBeCloseTo(2 / 3, 2);
  });

  it('splits continuity at a stretch of wrong beats: CMLt counts both stretches, CMLc the longest', () => {
    // Correct for 0-10 s, off-beat 10-15 s, correct again 15-30 s.
    const mixed = truth.map((b) => (b > 10 && b < 15 ? b + 0.25 : b));
    const c = beatContinuity(mixed, truth);
    expect(c.cmlt).toBeGreaterThan(0.75);
    expect(c.cmlt).toBeLessThan(0.9);
    expect(c.cmlc).toBeCloseTo(c.cmlt - 20 / 60, 1);
    expect(c.cmlc).toBeLessThan(c.cmlt);
  });

  it('lists the metrical variations of the true beats', () => {
    const v = beatVariations([0, 1, 2, 3]);
    expect(v.offBeat).toEqual([0.5, 1.5, 2.5]);
    expect(v.double).toEqual([0, 0.5, 1, 1.5, 2, 2.5, 3]);
    expect(v.halfOdd).toEqual([0, 2]);
    expect(v.halfEven).toEqual([1, 3]);
  });

  it('counts cuts within 40 ms of a true beat', () => {
    expect(cutsOnBeat([0.52, 1.06, 2.0, 3.3], truth)).toBe(0.5);
    expect(cutsOnBeat([], truth)).toBe(1);
    expect(beatFMeasure([], truth)).toBe(0);
    expect(beatContinuity([], truth).cmlt).toBe(0);
  });
});

describe("the beat bench's target for a song (scoreSong)", () => {
  const truth = grid(0.5, 0.5, 40.25);
  const song = { beats: truth, downbeats: truth.filter((_, i) => i % 4 === 0), beatsPerBar: 4 as const, rubato: false };
  const analysis = (beats: number[], confidence: number) => ({
    version: MUSIC_ANALYSIS_VERSION,
    durationSec: 41,
    bpm: 120,
    beatPeriodSec: 0.5,
    beats,
    bars: beats.filter((_, i) => i % 4 === 0),
    beatsPerBar: 4 as const,
    onsets: [],
    confidence,
  });

  it('puts a rubato song tracked exactly, and trusted, at target (the rubato bar is the lesser one)', () => {
    const s = scoreSong(analysis(truth, 0.8), { ...song, rubato: true });
    expect(s.cuts).toBe(1);
    expect(s.ok).toBe(true);
  });

  it('takes 85 % of cuts on a beat from a doubtful rubato song, and not from a steady one', () => {
    // Every tenth beat 50 ms late: F and CMLt still 1 (within 70 ms), 5-15 % of the cuts off.
    const late = truth.map((b, i) => (i % 10 === 3 ? b + 0.05 : b));
    const rubato = scoreSong(analysis(late, 0.3), { ...song, rubato: true });
    expect(rubato.cuts).toBeGreaterThanOrEqual(0.85);
    expect(rubato.cuts).toBeLessThan(0.95);
    expect(rubato.ok).toBe(true);
    expect(scoreSong(analysis(late, 0.3), song).ok).toBe(false);
    // Trusted (a confidence of 0.5 or more), the rubato song is held to the steady bar.
    expect(scoreSong(analysis(late, 0.7), { ...song, rubato: true }).ok).toBe(false);
  });

  it('misses a song tracked on the off-beat, rubato or not, at any confidence', () => {
    const offBeat = grid(0.75, 0.5, 40.25);
    for (const confidence of [0.2, 0.9]) {
      expect(scoreSong(analysis(offBeat, confidence), song).ok).toBe(false);
      expect(scoreSong(analysis(offBeat, confidence), { ...song, rubato: true }).ok).toBe(false);
    }
  });
});
