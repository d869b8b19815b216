import type { MusicAnalysis } from '../../src/index';
import { planEdit, type PlanInput } from '../../src/plan';
import {
  applyTempoCorrection,
  applyTempoCorrections,
  correctionProblem,
  fitTaps,
  normaliseCorrections,
  tappedBpm,
} from '../../src/tempo-correction';

/** A steady track: beats every 60/bpm s from `first`, downbeats every 4 from `down`. */
function track(durationSec: number, bpm: number, first = 0.25, down = 0): MusicAnalysis {
  const p = 60 / bpm;
  const beats: number[] = [];
  for (let t = first; t < durationSec; t += p) beats.push(Math.round(t * 1e6) / 1e6);
  return { version: 2, durationSec, bpm, beatPeriodSec: p, beats, bars: beats.filter((_, i) => i % 4 === down), confidence: 1 };
}

const close = (xs: number[], ys: number[], tol = 1e-5) => {
  expect(xs).toHaveLength(ys.length);
  xs.forEach((x, i) => expect(Math.abs(x - ys[i]!)).toBeLessThanOrEqual(tol));
};

describe('halve, double, shift', () => {
  it('halves: every other beat dropped, the downbeats kept, the tempo halved', () => {
    const a = track(20, 120);
    const h = applyTempoCorrection(a, { kind: 'halve' });
    expect(h.bpm).toBeCloseTo(60, 3);
    expect(h.beatPeriodSec).toBeCloseTo(1, 6);
    close(h.beats.slice(0, 4), [0.25, 1.25, 2.25, 3.25]);
    // Bars of four beats at the new tempo: every other old bar.
    close(h.bars.slice(0, 3), [0.25, 4.25, 8.25]);
    expect(a.beats[1]).toBe(0.75); // the input is not changed
  });

  it('halves keeping the beats the downbeats sit on (downbeat on the second beat)', () => {
    const h = applyTempoCorrection(track(10, 120, 0.25, 1), { kind: 'halve' });
    close(h.beats.slice(0, 3), [0.75, 1.75, 2.75]);
    expect(h.bars[0]).toBeCloseTo(0.75, 6);
  });

  it('doubles: a beat halfway between each pair, and before the first when inside the track', () => {
    const d = applyTempoCorrection(track(10, 75, 0.4), { kind: 'double' });
    expect(d.bpm).toBeCloseTo(150, 3);
    close(d.beats.slice(0, 4), [0, 0.4, 0.8, 1.2]);
    expect(d.beats.at(-1)!).toBeLessThan(10);
    expect(d.beats.at(-1)!).toBeGreaterThan(10 - 0.4 - 1e-6);
    // The first downbeat stays where it was; bars of four at 150 BPM.
    close(d.bars.slice(0, 2), [0.4, 2]);
  });

  it('follows a tempo change when halving and doubling', () => {
    // 100 BPM for 10 s, then 132 BPM.
    const beats: number[] = [];
    let t = 0.1;
    while (t < 20) {
      beats.push(Math.round(t * 1e6) / 1e6);
      t += t < 10 ? 0.6 : 60 / 132;
    }
    const a: MusicAnalysis = {
      version: 2,
      durationSec: 20,
      bpm: 115,
      beatPeriodSec: 0.52,
      beats,
      bars: beats.filter((_, i) => i % 4 === 0),
      confidence: 1,
    };
    const h = applyTempoCorrection(a, { kind: 'halve' });
    expect(h.beats[1]! - h.beats[0]!).toBeCloseTo(1.2, 6);
    expect(h.beats.at(-1)! - h.beats.at(-2)!).toBeCloseTo(120 / 132, 5);
    const d = applyTempoCorrection(a, { kind: 'double' });
    expect(d.beats[2]! - d.beats[1]!).toBeCloseTo(0.3, 6);
    expect(d.beats.at(-2)! - d.beats.at(-3)!).toBeCloseTo(30 / 132, 5);
  });

  it('shifts half a beat: every beat to the middle of its interval, downbeats with it', () => {
    const s = applyTempoCorrection(track(10, 120, 0.25), { kind: 'shift' });
    // 0.25 - 0.25 = 0 is still inside the track: the grid covers it.
    close(s.beats.slice(0, 4), [0, 0.5, 1, 1.5]);
    expect(s.bpm).toBeCloseTo(120, 3);
    close(s.bars.slice(0, 2), [0.5, 2.5]);
  });

  it("drops the tracked beats' strength: every beat of the corrected grid counts as sure", () => {
    const a = { ...track(20, 120, 0.25), version: 9 };
    const weakStart = { ...a, beatStrength: a.beats.map((_, i) => (i < 4 ? 0.1 : 0.9)) };
    for (const kind of ['halve', 'double', 'shift'] as const)
      expect(applyTempoCorrection(weakStart, { kind }).beatStrength).toBeUndefined();
    expect(applyTempoCorrection(weakStart, { kind: 'tap', taps: [0.25, 0.75, 1.25, 1.75] }).beatStrength).toBeUndefined();
  });

  it('keeps a meter of three (beatsPerBar)', () => {
    const a = { ...track(12, 120), beatsPerBar: 3 as const };
    a.bars = a.beats.filter((_, i) => i % 3 === 0);
    const d = applyTempoCorrection(a, { kind: 'double' });
    close(d.bars.slice(0, 3), [0.25, 1, 1.75]);
  });

  it("moves the plan's cuts (standard pacing: four beats a segment)", () => {
    const clip = { durationSec: 30 };
    const input = (m: MusicAnalysis): PlanInput => ({
      clips: [clip, clip],
      music: { durationSec: 16, analysis: m },
      pacing: 'standard',
      beatMapping: true,
      intelligence: false,
      fps: 30,
    });
    const a = track(16, 120, 0.5);
    const cuts = (m: MusicAnalysis) => planEdit(input(m)).segments.map((s) => s.end);
    // Within a frame (30 fps) of the beats: bar lines at 2.5, 4.5, ... before.
    close(cuts(a), [2.5, 4.5, 6.5, 8.5, 10.5, 12.5, 14.5, 16], 0.02);
    // Half the tempo: eight-beat bars, so cuts every four (two-second) beats on the bar lines.
    close(cuts(applyTempoCorrection(a, { kind: 'halve' })), [4.5, 8.5, 12.5, 16], 0.02);
    // Twice the tempo: four beats are one second.
    close(cuts(applyTempoCorrection(a, { kind: 'double' })).slice(0, 4), [1, 2, 3, 4], 0.02);
    // Half a beat later: beats at 0.25, 0.75, ...; the cuts leave the old beats.
    close(cuts(applyTempoCorrection(a, { kind: 'shift' })).slice(0, 3), [1.75, 3.75, 5.75], 0.02);
  });
});

describe('tap tempo', () => {
  it('tapping along at the found tempo gives the beats found, none added where the music has stopped', () => {
    // The music starts at 1.25 s and stops at 8 s of a 10-s track (a reverb tail after it).
    const full = track(10, 120, 1.25);
    const a = { ...full, beats: full.beats.filter((b) => b < 8), bars: full.bars.filter((b) => b < 8) };
    const t = applyTempoCorrection(a, { kind: 'tap', taps: a.beats.slice(2, 8).map((b) => b + 0.02) });
    close(t.beats, a.beats);
  });

  it('fits period and phase by least squares, a missed tap counted as a skipped beat', () => {
    const taps = [1.02, 1.51, 2.0, 3.01, 3.49, 4.0]; // 120 BPM, the tap at 2.5 missed
    const { period, phase } = fitTaps(taps);
    expect(period).toBeCloseTo(0.5, 2);
    expect(phase).toBeCloseTo(1.01, 1);
    expect(tappedBpm(taps)).toBeGreaterThan(118);
    expect(tappedBpm(taps)).toBeLessThan(122);
  });

  it('snaps taps near the tracked tempo onto the tracked beats (late taps, jitter)', () => {
    const a = track(20, 120, 0.25);
    const taps = [2.28, 2.8, 3.27, 3.79, 4.3, 4.77]; // ~30 ms late on the beats at 2.25, 2.75, ...
    const c = applyTempoCorrection(a, { kind: 'tap', taps });
    close(c.beats, a.beats);
    close(c.bars, a.bars);
  });

  it('snaps taps at the off-beat to the off-beat grid', () => {
    const a = track(20, 120, 0.25);
    const taps = [2.5, 3.0, 3.5, 4.0, 4.5];
    const c = applyTempoCorrection(a, { kind: 'tap', taps });
    expect(c.bpm).toBeCloseTo(120, 3);
    close(c.beats.slice(0, 3), [0, 0.5, 1]);
  });

  it('snaps taps at twice the tracked tempo (a 150 BPM song tracked at 75)', () => {
    const a = track(20, 75, 0.3);
    const p = 0.4;
    const taps = [0, 1, 2, 3, 4, 5, 6, 7].map((k) => 4.7 + k * p + (k % 2 ? 0.01 : -0.01));
    const c = applyTempoCorrection(a, { kind: 'tap', taps });
    expect(c.bpm).toBeCloseTo(150, 2);
    // The taps sit on the tracked beats' halfway points and on the beats: 0.3 + k * 0.4.
    expect(c.beats[0]).toBeCloseTo(0.3, 6);
    for (const b of c.beats) expect(Math.abs(((b - 0.3) / 0.4) % 1) < 1e-5 || Math.abs(((b - 0.3) / 0.4) % 1) > 1 - 1e-5).toBe(true);
  });

  it('snaps to the right one of every other beat when tapping at half the tracked tempo', () => {
    const a = track(20, 140, 0.2);
    const p = 60 / 140;
    const taps = [3, 5, 7, 9, 11].map((k) => 0.2 + k * p + 0.02);
    const c = applyTempoCorrection(a, { kind: 'tap', taps });
    expect(c.bpm).toBeCloseTo(70, 2);
    expect(c.beats.some((b) => Math.abs(b - (0.2 + 3 * p)) < 1e-5)).toBe(true);
    expect(c.beats.some((b) => Math.abs(b - (0.2 + 4 * p)) < 1e-5)).toBe(false);
  });

  it('lays a steady grid through the taps when they match no level of the tracked beats', () => {
    const a = track(20, 120, 0.25);
    const p = 60 / 97;
    const taps = [0, 1, 2, 3, 4, 5].map((k) => 5 + k * p);
    const c = applyTempoCorrection(a, { kind: 'tap', taps });
    expect(c.bpm).toBeCloseTo(97, 2);
    expect(c.beats[0]).toBeGreaterThanOrEqual(0);
    expect(c.beats[0]).toBeLessThan(p);
    expect(c.beats.some((b) => Math.abs(b - 5) < 1e-5)).toBe(true);
    expect(c.beats.at(-1)! + p).toBeGreaterThanOrEqual(20);
    // Bars start at the first tap's beat.
    expect(c.bars.some((b) => Math.abs(b - 5) < 1e-5)).toBe(true);
  });

  it('says what is wrong with taps that cannot be used', () => {
    expect(correctionProblem({ kind: 'tap', taps: [1, 1.5, 2] })).toMatch(/at least 4/);
    expect(correctionProblem({ kind: 'tap', taps: [1, 1.5, 1.4, 2] })).toMatch(/increase/);
    expect(correctionProblem({ kind: 'tap', taps: [1, 1.1, 1.2, 1.3] })).toMatch(/600 BPM/);
    expect(correctionProblem({ kind: 'tap', taps: [-1, 0, 1, 2] })).toMatch(/seconds/);
    expect(correctionProblem({ kind: 'tap', taps: [1, 1.5, 2, 2.5] })).toBeNull();
    expect(() => applyTempoCorrection(track(10, 120), { kind: 'tap', taps: [1, 2] })).toThrow(/at least 4/);
  });
});

describe('a list of corrections', () => {
  it('cancels a halve and a double, two shifts; a tap replaces what came before', () => {
    expect(normaliseCorrections([{ kind: 'halve' }, { kind: 'double' }])).toEqual([]);
    expect(normaliseCorrections([{ kind: 'double' }, { kind: 'halve' }, { kind: 'shift' }])).toEqual([{ kind: 'shift' }]);
    expect(normaliseCorrections([{ kind: 'shift' }, { kind: 'shift' }, { kind: 'double' }])).toEqual([{ kind: 'double' }]);
    const tap = { kind: 'tap' as const, taps: [1, 1.5, 2, 2.5] };
    expect(normaliseCorrections([{ kind: 'double' }, { kind: 'shift' }, tap, { kind: 'halve' }])).toEqual([tap, { kind: 'halve' }]);
  });

  it('applies them in order', () => {
    const a = track(20, 120, 0.25);
    const c = applyTempoCorrections(a, [{ kind: 'double' }, { kind: 'shift' }]);
    expect(c.bpm).toBeCloseTo(240, 3);
    expect(c.beats[0]).toBeCloseTo(0.125, 6);
    close(applyTempoCorrections(a, [{ kind: 'halve' }, { kind: 'double' }]).beats, a.beats);
  });
});
