import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MAX_TAU, MIN_TAU } from '../../src/beat-dbn';
import { TEMPO_INPUT_SIZE, riseCurves, tempoLogPrior, tempoPriorInput, tempoPriorModel } from '../../src/beat-tempo-prior';

const FPS = 100;

/** A curve at 100 fps with a peak every `period` seconds. */
function pulses(period: number, seconds: number, height = 1): Float32Array {
  const x = new Float32Array(seconds * FPS);
  for (let t = 0.2; t < seconds; t += period) x[Math.round(t * FPS)] = height;
  return x;
}

/** The beat activation's autocorrelation (the input's first 121 values, lags 10-130 at 50 fps). */
const beatLagPeak = (input: Float32Array) => {
  let best = 0;
  for (let i = 1; i <= 120; i++) if (input[i]! > input[best]!) best = i;
  return 10 + best;
};

describe('the tempo prior (beat-tempo-prior.ts)', () => {
  it("reads how the song repeats: the beat activation's autocorrelation peaks at its period, read faster with a stretch", () => {
    // 120 BPM: a beat every 0.5 s, 25 frames at the decoding's 50 fps.
    const beat = pulses(0.5, 30);
    const curves = { beat, downbeat: pulses(2, 30), rises: [beat, beat, beat], fps: FPS };
    const input = tempoPriorInput(curves);
    expect(input.length).toBe(TEMPO_INPUT_SIZE);
    expect(beatLagPeak(input)).toBe(25);
    // Read 1.25 times faster: 20 frames.
    expect(beatLagPeak(tempoPriorInput(curves, 1.25))).toBe(20);
    expect(input.every((v) => Number.isFinite(v) && Math.abs(v) <= 1.0001)).toBe(true);
    expect(() => tempoPriorInput({ ...curves, rises: [beat] })).toThrow(RangeError);
  });

  it('sums the rises of the low, middle and high thirds of the bands', () => {
    const bands = 6;
    const frames = 4;
    const data = new Float32Array(2 * bands * frames);
    // Rise channels (the second half): band b rises by b + 1 at frame 2.
    for (let b = 0; b < bands; b++) data[(bands + b) * frames + 2] = b + 1;
    const [low, mid, high] = riseCurves(data, bands, frames);
    expect(Array.from(low!)).toEqual([0, 0, 3, 0]);
    expect(Array.from(mid!)).toEqual([0, 0, 7, 0]);
    expect(Array.from(high!)).toEqual([0, 0, 11, 0]);
  });

  it('judges the metrical level, not the tempo within it: periods near the likeliest cost nothing', () => {
    const nt = MAX_TAU - MIN_TAU + 1;
    const p = new Float64Array(nt).fill(0.2 / (nt - 1));
    p[30 - MIN_TAU] = 0.8; // 100 BPM
    const lp = tempoLogPrior(p, 2);
    expect(lp[30 - MIN_TAU]).toBe(0);
    // A ramp to 10 % faster or slower is free; twice and half the tempo (15, 60) are not.
    expect(lp[27 - MIN_TAU]).toBe(0);
    expect(lp[33 - MIN_TAU]).toBe(0);
    expect(lp[15 - MIN_TAU]).toBeLessThan(-8);
    expect(lp[60 - MIN_TAU]).toBeLessThan(-8);
  });

  it('refuses a weights file for another input, or with missing or non-finite weights; none is null', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tempo-prior-'));
    try {
      const good = tempoPriorModel()!;
      const write = (name: string, m: object) => {
        fs.writeFileSync(path.join(dir, name), JSON.stringify(m));
        return path.join(dir, name);
      };
      expect(() => tempoPriorModel(write('inputs.json', { ...good, inputs: 10 }))).toThrow(/not a tempo prior/);
      expect(() => tempoPriorModel(write('short.json', { ...good, b1: good.b1.slice(1) }))).toThrow(/missing or unusable/);
      expect(() => tempoPriorModel(write('nan.json', { ...good, std: [0, ...good.std.slice(1)] }))).toThrow(/missing or unusable/);
      expect(tempoPriorModel(path.join(dir, 'none.json'))).toBeNull();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('is committed for this input and these periods', () => {
    const m = tempoPriorModel();
    expect(m).not.toBeNull();
    expect(m!.inputs).toBe(TEMPO_INPUT_SIZE);
    expect(m!.taus).toEqual(Array.from({ length: MAX_TAU - MIN_TAU + 1 }, (_, j) => MIN_TAU + j));
  });
});
