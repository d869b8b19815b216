import { smoothSteadyBeats } from '../../src/beat-dp';
import { drummersLevel, strongerParity } from '../../src/beat-hypotheses';
import { onsetsOnPulse, swellStarts } from '../../src/beat-tracker';
import { lagSalience } from '../../src/beat-tempo';

const HOP_SEC = 128 / 22050;

describe('a backbeat between the tracked beats', () => {
  // Tracked beats every 140 hops (74 BPM): kicks on them, snares (mid band with some kick-band body) halfway.
  const hops = Array.from({ length: 25 }, (_, i) => 200 + i * 140);
  const bands = (quarterHats: number) => {
    const b = { kick: new Float32Array(4000), mid: new Float32Array(4000), high: new Float32Array(4000) };
    hops.forEach((h) => {
      b.kick[h] = 10;
      b.mid[h] = 2;
      b.high[h] = 6;
      b.kick[h + 70] = 3;
      b.mid[h + 70] = 10;
      b.high[h + 70] = 10;
      b.high[h + 35] = quarterHats;
      b.high[h + 105] = quarterHats;
    });
    return b;
  };

  it('doubles the tempo when the faster beat has eighth notes of its own (hats on the quarter points)', () => {
    const doubled = drummersLevel(hops, bands(5), HOP_SEC);
    expect(doubled.filter(Boolean).length).toBe(hops.length - 1);
  });

  it('keeps the tempo when nothing plays between the halfway points and the beats (a reggae skank)', () => {
    expect(drummersLevel(hops, bands(0), HOP_SEC).some(Boolean)).toBe(false);
  });

  it('judges by the snares alone when no high band is given', () => {
    const { kick, mid } = bands(0);
    expect(drummersLevel(hops, { kick, mid }, HOP_SEC).filter(Boolean).length).toBe(hops.length - 1);
  });
});

describe('beats halfway towards the local pulse', () => {
  const grid = (n: number, at: (i: number) => number) => Array.from({ length: n }, (_, i) => at(i));

  it('moves a late note halfway back to the pulse the neighbours keep', () => {
    const beats = grid(30, (i) => 1 + i * 0.5);
    beats[12] = beats[12]! + 0.04;
    const out = smoothSteadyBeats(beats);
    // The quadratic through 13 beats keeps about a sixth of the 40 ms at the beat; it moves halfway to the fit.
    expect(out[12]! - (1 + 12 * 0.5)).toBeGreaterThan(0.015);
    expect(out[12]! - (1 + 12 * 0.5)).toBeLessThan(0.025);
    // Its neighbours move by a few ms at most.
    expect(Math.abs(out[11]! - beats[11]!)).toBeLessThan(0.005);
  });

  it('never moves a beat before the start of the track', () => {
    // A first beat at 0 whose neighbours sit 20 ms early: the fit is about -20 ms, halfway -10 ms.
    const beats = grid(20, (i) => i * 0.5 - (i ? 0.02 : 0));
    const out = smoothSteadyBeats(beats);
    expect(out[0]).toBe(0);
    expect(out.every((b) => b >= 0)).toBe(true);
  });

  it('leaves a steady grid and a tempo ramp where they are', () => {
    const steady = grid(30, (i) => 0.3 + i * 0.6);
    smoothSteadyBeats(steady).forEach((b, i) => expect(Math.abs(b - steady[i]!)).toBeLessThan(1e-9));
    // A ramp: the period shrinks by 2 ms a beat (90 -> 109 BPM over 36 s); a quadratic follows it.
    const ramp: number[] = [0];
    for (let i = 1; i < 60; i++) ramp.push(ramp[i - 1]! + 0.667 - 0.002 * i);
    smoothSteadyBeats(ramp).forEach((b, i) => expect(Math.abs(b - ramp[i]!)).toBeLessThan(1e-6));
  });

  it('leaves beats alone at a tempo step and in rubato, where no smooth pulse fits', () => {
    const step = grid(40, (i) => (i < 20 ? i * 0.6 : 12 + (i - 20) * 0.45));
    const out = smoothSteadyBeats(step);
    // The four beats either side of the step stay exactly; further away the fit is poor or exact.
    for (let i = 16; i <= 23; i++) expect(out[i]).toBe(step[i]);
    out.forEach((b, i) => expect(Math.abs(b - step[i]!)).toBeLessThan(0.01));
    const rubato = grid(30, (i) => i * 0.7 + 0.08 * Math.sin(i * 1.7));
    expect(smoothSteadyBeats(rubato)).toEqual(rubato);
  });
});

describe('the salience of a beat period', () => {
  it('adds half the autocorrelation two beats on and a quarter at the bar', () => {
    const ac = new Float64Array(400);
    ac[50] = 1;
    ac[100] = 0.8;
    ac[200] = 0.6;
    expect(lagSalience(ac, 50, 400)).toBeCloseTo(1 + 0.4 + 0.15, 9);
  });

  it('finds the bar a lag or two off four rounded beat lags (a beat of 52.7 lags rounds to 53; its bar is at 211)', () => {
    const ac = new Float64Array(400);
    ac[53] = 1;
    ac[105] = 0.8;
    ac[211] = 0.6;
    expect(lagSalience(ac, 53, 400)).toBeCloseTo(1 + 0.4 + 0.15, 9);
    // Three lags off is another period, not rounding.
    const far = new Float64Array(400);
    far[53] = 1;
    far[209] = 0.6;
    expect(lagSalience(far, 53, 400)).toBeCloseTo(1, 9);
  });

  it('ignores lags past the window', () => {
    const ac = new Float64Array(400).fill(0.5);
    expect(lagSalience(ac, 50, 120)).toBeCloseTo(0.5 + 0.25, 9);
  });
});

describe("rubato: the pulse under a player's eighth notes", () => {
  // A chain every 60 hops (0.35 s, 172 BPM) over a solo player: beats at even positions carry chords.
  const hops = Array.from({ length: 30 }, (_, i) => 100 + i * 60);
  const envelope = (odd: number) => {
    const o = new Float64Array(2000);
    hops.forEach((h, i) => (o[h] = i % 2 ? odd : 4));
    return o;
  };

  it('keeps the stronger parity when every other beat carries under half the onset', () => {
    expect(strongerParity(hops, envelope(1.5), HOP_SEC)).toEqual(hops.filter((_, i) => i % 2 === 0));
  });

  it('keeps the chain when both parities carry onsets, or when half its tempo is too slow to tap', () => {
    expect(strongerParity(hops, envelope(2.5), HOP_SEC)).toBe(hops);
    const slow = hops.map((h) => h * 3);
    const o = new Float64Array(6000);
    slow.forEach((h, i) => (o[h] = i % 2 ? 1 : 4));
    // 57 BPM halved is 29: no.
    expect(strongerParity(slow, o, HOP_SEC)).toBe(slow);
  });

  it('cuts a doubtful grid on the strong onsets the tracked pulse agrees with', () => {
    const beats = [1, 2, 3, 4, 5, 6];
    const onsets = [1.01, 1.5, 2.02, 2.5, 3, 4.02, 4.5, 5.98];
    expect(onsetsOnPulse(onsets, beats, 0.2)).toEqual([1.01, 2.02, 3, 4.02, 5.98]);
    // A trusted grid, or too few onsets on the pulse: all of them.
    expect(onsetsOnPulse(onsets, beats, 0.9)).toBe(onsets);
    expect(onsetsOnPulse([1.5, 2.5, 3.5, 4.5, 5, 1], beats, 0.2)).toEqual([1.5, 2.5, 3.5, 4.5, 5, 1]);
  });
});

describe('where a swelling note begins', () => {
  const bands = (mid: Record<number, number>) => {
    const b = { kick: new Float32Array(400), mid: new Float32Array(400), high: new Float32Array(400) };
    for (const [i, v] of Object.entries(mid)) b.mid[Number(i)] = v;
    return b;
  };
  // An onset reported at its envelope peak, hop 200 (t = 200 hops - 15 ms).
  const t = 200 * HOP_SEC - 0.015;

  it('moves a strong onset back to where a bowed or blown note starts rising, up to 17 hops (99 ms)', () => {
    const [start] = swellStarts([t], bands({ 186: 1, 188: 3, 195: 5, 200: 8 }), HOP_SEC);
    expect(start).toBeCloseTo(188 * HOP_SEC, 6);
  });

  it('keeps a struck note (nothing before its peak) and looks no further back than 17 hops', () => {
    expect(swellStarts([t], bands({ 200: 8 }), HOP_SEC)[0]).toBeCloseTo(t, 6);
    expect(swellStarts([t], bands({ 180: 8, 200: 8 }), HOP_SEC)[0]).toBeCloseTo(t, 6);
  });
});
