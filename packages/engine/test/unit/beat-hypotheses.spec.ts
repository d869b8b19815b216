import {
  chooseLevel,
  denseHats,
  denseHatsLevel,
  quarterMeans,
  lopsided,
  phaseMeans,
  steadyLevelScore,
  weakestPhase,
  onBeatPhase,
  presencePhase,
  phaseEvidence,
  PRIOR_TAP_BPM,
  scoreLevel,
  type LevelHypothesis,
  type PhaseEvidence,
} from '../../src/beat-hypotheses';
import { chooseMeter, foldContrast } from '../../src/beat-meter';
import { hopIrregularity, noteStart, trimOutsideMusic } from '../../src/beat-tracker';

const evidence = (on: number, off: number): PhaseEvidence => ({
  on: { kick: on, mid: on, high: 0, all: on },
  off: { kick: off, mid: off, high: 0, all: off },
});

const hyp = (factor: number, bpm: number, on: number): LevelHypothesis => {
  const e = evidence(on, 0);
  return { factor, hops: [], bpm, evidence: e, ...scoreLevel(e, bpm) };
};

describe('metrical level hypotheses', () => {
  it('prefers the level whose beats explain more onsets per minute', () => {
    // Same tempo prior distance (an octave either side would tie): the richer chain wins.
    expect(scoreLevel(evidence(6, 1), 120).score).toBeGreaterThan(scoreLevel(evidence(4, 1), 120).score);
    // Half the tempo with the same mean onset explains half as much.
    expect(scoreLevel(evidence(5, 1), 60).score).toBeLessThan(scoreLevel(evidence(5, 1), 120).score / 2);
  });

  it('weighs the tempo by a prior around the tapping tempo, zero outside the range people tap', () => {
    expect(scoreLevel(evidence(5, 0), PRIOR_TAP_BPM).octaves).toBe(0);
    // Double time with slightly weaker beats (off-beats in the chain) loses to the tapping level.
    const tap = scoreLevel(evidence(5, 0), 120).score;
    const double = scoreLevel(evidence(2.6, 0), 240).score;
    expect(double).toBe(0);
    const fast = scoreLevel(evidence(2.6, 0), 180).score;
    expect(fast).toBeLessThan(tap);
    expect(scoreLevel(evidence(9, 0), 50).score).toBe(0);
  });

  it('chooses the best-scoring hypothesis, and a learned arbiter can overrule it', () => {
    const hs = [hyp(1, 88, 4.5), hyp(0.5, 176, 4.2), hyp(2, 44, 5.1)];
    expect(chooseLevel(hs, 0.0058)?.factor).toBe(0.5);
    expect(chooseLevel(hs, 0.0058, { choose: () => 0 })?.factor).toBe(1);
    // An arbiter without an opinion leaves the choice to the score.
    expect(chooseLevel(hs, 0.0058, { choose: () => undefined })?.factor).toBe(0.5);
    expect(chooseLevel([], 0.0058)).toBeUndefined();
  });

  it('measures onsets at the beats and halfway between them, per band', () => {
    const n = 400;
    const kick = new Float32Array(n);
    const mid = new Float32Array(n);
    const all = new Float64Array(n);
    for (let h = 0; h < n; h += 40) {
      kick[h] = 4;
      all[h] = 4;
      mid[h + 20] = 3; // chords off the beat
      all[h + 20] = 3;
    }
    const hops = Array.from({ length: 10 }, (_, i) => i * 40);
    const e = phaseEvidence(hops, { kick, mid }, all);
    expect(e.on.kick).toBeCloseTo(4);
    expect(e.off.kick).toBe(0);
    expect(e.off.mid).toBeCloseTo(3);
    expect(e.on.all).toBeGreaterThan(e.off.all);
  });

  it('moves beats that carry no kick to the kicks halfway between them (a one-drop tracked on its skank)', () => {
    const kickEnergy = new Float32Array(500);
    for (let h = 20; h < 500; h += 40) kickEnergy[h] = 10;
    const offBeat = Array.from({ length: 12 }, (_, i) => i * 40);
    const moved = onBeatPhase(offBeat, kickEnergy);
    expect(moved.slice(0, 3)).toEqual([20, 60, 100]);
    // Beats that carry the kicks stay.
    const onBeat = Array.from({ length: 12 }, (_, i) => 20 + i * 40);
    expect(onBeatPhase(onBeat, kickEnergy)).toBe(onBeat);
  });
});

describe('levels of a steady chain', () => {
  // A waltz at 160 BPM on a 5.8 ms hop grid: a beat every 64 hops, a strong bass on 1, chords on 2 and 3.
  const hopSec = 60 / 160 / 64;
  const bpmOf = (period: number) => 60 / (period * hopSec);
  const n = 64 * 90;
  const o = new Float64Array(n);
  for (let b = 0; b * 64 < n; b++) o[b * 64] = b % 3 === 0 ? 9 : 3;
  const chain = (period: number, from = 0) => Array.from({ length: Math.floor((n - from) / period) }, (_, i) => from + i * period);

  it('folds a chain over 2 and 3 beats and finds its weakest phase', () => {
    const beat = chain(64);
    expect(phaseMeans(beat, o)).toHaveLength(5);
    // Every beat has an onset: the weakest phase keeps the chords' strength.
    expect(weakestPhase(beat, o)).toBeGreaterThan(2.5);
    // Two thirds of the tempo (a beat every 96 hops): every other beat falls on "2 and", empty.
    expect(weakestPhase(chain(96), o)).toBe(0);
    expect(weakestPhase(chain(64).slice(0, 5), o)).toBe(0);
  });

  it('calls a chain with a regular gap lopsided, and a waltz at its own tempo not', () => {
    expect(lopsided(chain(96), o)).toBe(true);
    expect(lopsided(chain(64), o)).toBe(false);
    // Twice the tempo: every other beat between the beats.
    expect(lopsided(chain(32), o)).toBe(true);
  });

  it('scores the level by the onsets every beat carries per minute under the tempo prior', () => {
    const beat = steadyLevelScore(chain(64), o, bpmOf(64));
    expect(beat).toBeGreaterThan(steadyLevelScore(chain(96), o, bpmOf(96)));
    // Half the tempo (every other beat): stronger beats on average, but half as many per minute.
    expect(beat).toBeGreaterThan(steadyLevelScore(chain(128), o, bpmOf(128)));
    // Twice the tempo gains nothing: its off-beats are empty.
    expect(steadyLevelScore(chain(32), o, 320)).toBe(0);
    expect(steadyLevelScore(chain(32), o, 180)).toBe(0);
    // Outside the range people tap the score is 0 whatever the onsets.
    expect(steadyLevelScore(chain(64), o, 50)).toBe(0);
  });
});

describe('the ends of the music', () => {
  it('drops beats where no band has an onset (silence before, a reverb tail after), and keeps soft last beats', () => {
    const hopSec = 0.01;
    const n = 1000;
    const kick = new Float32Array(n);
    const mid = new Float32Array(n);
    // A beat every 50 hops until hop 800, each with a band onset; the last two softer (a fade's
    // last notes, still a third of a beat's); then a tail without notes.
    for (let h = 100; h <= 800; h += 50) kick[h] = h >= 750 ? 1.5 : 4;
    const beats = Array.from({ length: 20 }, (_, i) => i * 50 * hopSec);
    trimOutsideMusic(beats, { kick, mid }, hopSec);
    expect(beats).toHaveLength(15);
    expect(beats[0]).toBeCloseTo(1);
    expect(beats.at(-1)).toBeCloseTo(8);
    // Every beat sounding: nothing goes.
    const all = Array.from({ length: 15 }, (_, i) => (100 + i * 50) * hopSec);
    trimOutsideMusic(all, { kick, mid }, hopSec);
    expect(all).toHaveLength(15);
    // Raw onsets (not divided by the local level) decide too: noise lifted by the local level goes.
    const sounding = new Float32Array(n);
    for (let h = 100; h <= 700; h += 50) sounding[h] = 3;
    for (let h = 750; h <= 800; h += 50) kick[h] = 4;
    const lifted = Array.from({ length: 15 }, (_, i) => (100 + i * 50) * hopSec);
    trimOutsideMusic(lifted, { kick, mid, sounding }, hopSec);
    expect(lifted.at(-1)).toBeCloseTo(7);
  });

  it("finds a beat's onset at its peak, 15 ms after the beat (beats sit before their onset peaks), at both ends", () => {
    const hopSec = 128 / 22050;
    const kick = new Float32Array(2000);
    const mid = new Float32Array(2000);
    // Onset peaks at hop 3 and every 100 hops after; the first and last beats are placed 15 ms
    // (2.6 hops) before their peaks, the others on them. Looked for only
    // within two hops of the beat, the first and last onsets are missed and those beats go.
    for (let h = 3; h <= 1503; h += 100) kick[h] = 4;
    const beats = Array.from({ length: 16 }, (_, i) => (3 + i * 100) * hopSec - (i === 0 || i === 15 ? 0.015 : 0)).map((b) =>
      Math.max(0, b),
    );
    trimOutsideMusic(beats, { kick, mid }, hopSec);
    expect(beats).toHaveLength(16);
    expect(beats[0]).toBeCloseTo(3 * hopSec - 0.015, 9);
  });
});

describe('where a note begins', () => {
  const bands = (mid: number[], at = 100) => {
    const b = { kick: new Float32Array(200), mid: new Float32Array(200), high: new Float32Array(200) };
    mid.forEach((v, i) => (b.mid[at + i] = v));
    return b;
  };

  it('moves a beat back to the first hop where a band rises to 30 % of its strongest onset', () => {
    // A strum: the mid band rises over three hops before the envelope peaks at hop 104. Hop 101
    // (3 of 8) is where it begins; hop 100 (2 of 8) is still before it.
    expect(noteStart(bands([2, 3, 8, 2, 1]), 104)).toBe(101);
    // A drum: one sharp onset at the peak itself stays there.
    expect(noteStart(bands([0, 0, 0, 0, 9]), 104)).toBe(104);
  });

  it('looks back no further than the envelope smooths (four hops)', () => {
    expect(noteStart(bands([9, 0, 0, 0, 0, 0, 1], 94), 100)).toBe(100);
  });
});

describe('phase from the presence band', () => {
  // Tracked beats every 40 hops from 0; claps and kick clicks (presence band) halfway, at 20 + 40k.
  const hops = Array.from({ length: 12 }, (_, i) => i * 40);
  const band = (at: number[], v: number) => {
    const b = new Float32Array(500);
    for (const h of at) b[h] = v;
    return b;
  };
  const beats = hops;
  const halfway = hops.map((h) => h + 20);

  it('moves beats halfway when the claps and clicks are there (dance music tracked on its off-beat bass)', () => {
    const presence = band(halfway, 5);
    for (const h of beats) presence[h] = 2; // the bass's own click, weaker
    const air = band([...beats, ...halfway], 1); // hats everywhere alike
    expect(presencePhase(hops, presence, air).slice(0, 3)).toEqual([20, 60, 100]);
  });

  it('keeps the beats when open hi-hats explain the halfway onsets (they hiss in the air band too)', () => {
    const presence = band(halfway, 5);
    for (const h of beats) presence[h] = 2;
    const air = band(halfway, 8);
    for (const h of beats) air[h] = 1;
    expect(presencePhase(hops, presence, air)).toBe(hops);
  });

  it('keeps the beats when they carry the presence onsets', () => {
    const presence = band(beats, 5);
    expect(presencePhase(hops, presence, band(beats, 1))).toBe(hops);
  });
});

describe('meter and steadiness', () => {
  it('finds 3/4 when every third beat is accented, 4/4 when every fourth (or second) is', () => {
    const waltz = Array.from({ length: 48 }, (_, i) => (i % 3 === 1 ? 3 : 1));
    expect(chooseMeter(waltz)).toEqual({ beatsPerBar: 3, phase: 1 });
    const four = Array.from({ length: 48 }, (_, i) => (i % 4 === 2 ? 3 : i % 4 === 0 ? 2 : 1));
    expect(chooseMeter(four)).toEqual({ beatsPerBar: 4, phase: 2 });
    // Accents on 1 and 3 fold evenly over three beats: still 4/4.
    const backbeat = Array.from({ length: 48 }, (_, i) => (i % 2 === 0 ? 2 : 1));
    expect(chooseMeter(backbeat).beatsPerBar).toBe(4);
    expect(foldContrast(backbeat, 3).contrast).toBeLessThan(0.05);
  });

  it('rates a steady chain and a ramp as steady and a rubato chain as irregular', () => {
    const steady = Array.from({ length: 64 }, (_, i) => i * 40 + (i % 2 ? 1 : -1));
    expect(hopIrregularity(steady)).toBeLessThan(0.012);
    const ramp: number[] = [0];
    for (let i = 1; i < 64; i++) ramp.push(ramp[i - 1]! + 40 - i * 0.1);
    expect(hopIrregularity(ramp)).toBeLessThan(0.012);
    const rub: number[] = [0];
    for (let i = 1; i < 64; i++) rub.push(rub[i - 1]! + 40 * (1 + 0.08 * Math.sin((2 * Math.PI * i) / 16)));
    expect(hopIrregularity(rub)).toBeGreaterThan(0.02);
  });
});

describe('dense hats: the tempo prior decides between T and 2T', () => {
  const hopSec = 128 / 22050;
  // A chain of 24 beats, `period` hops apart, hats in the air band at the given fractions of each beat.
  const chainWithHats = (period: number, quarters: number[]) => {
    const hops = Array.from({ length: 24 }, (_, i) => 10 + i * period);
    const air = new Float32Array(10 + 25 * period);
    for (const h of hops) quarters.forEach((v, q) => (air[Math.round(h + (q * period) / 4)] = v));
    return { hops, air };
  };
  const periodAt = (bpm: number) => Math.round(60 / bpm / hopSec);

  it('measures the hats at each quarter of the beat', () => {
    const { hops, air } = chainWithHats(periodAt(70), [4, 1.4, 2.7, 1.4]);
    expect(quarterMeans(hops, air).map((x) => Math.round(x * 10) / 10)).toEqual([4, 1.4, 2.7, 1.4]);
    expect(denseHats(hops, air)).toBe(true);
  });

  it('doubles a slow chain with sixteenth hats (half-time trap at 70 is named 140)', () => {
    const { hops, air } = chainWithHats(periodAt(70), [4, 1.4, 2.7, 1.4]);
    const out = denseHatsLevel(hops, air, hopSec, 110);
    expect(out).toHaveLength(2 * hops.length - 1);
    expect(out[1]).toBe(Math.round((hops[0]! + hops[1]!) / 2));
  });

  it('keeps a chain nearer the prior than its double (hip-hop at 85 or 90 with sixteenth hats)', () => {
    for (const bpm of [85, 90]) {
      const { hops, air } = chainWithHats(periodAt(bpm), [4, 1.4, 2.7, 1.4]);
      expect(denseHatsLevel(hops, air, hopSec, 110)).toBe(hops);
    }
  });

  it('keeps a slow chain whose hats are eighth notes (rock at 82, a one-drop at 76)', () => {
    const { hops, air } = chainWithHats(periodAt(76), [2.6, 0.3, 1.1, 0.3]);
    expect(denseHats(hops, air)).toBe(false);
    expect(denseHatsLevel(hops, air, hopSec, 110)).toBe(hops);
  });
});
