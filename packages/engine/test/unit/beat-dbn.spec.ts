import { MAX_TAU, MIN_TAU, decodeBeats, regridWeakBeats, type DecodedBeats } from '../../src/beat-dbn';
import { beatFeatures, featureBands, FEATURE_FPS } from '../../src/beat-features';
import { beatFMeasure } from '../../src/beat-measures';
import { analysisFromActivations, beatConfidence } from '../../src/beat-learned';
import { LOW_BEAT_CONFIDENCE } from '../../src/beat-onsets';
import { WEAK_BEAT } from '../../src/beat-tracker';

/** Activations at 100 fps with a peak at each beat (downbeat activation on every `meter`-th). */
function activations(beats: number[], meter: number, seconds: number, noise = 0) {
  const n = Math.ceil(seconds * FEATURE_FPS) + 1;
  const beat = new Float32Array(n);
  const down = new Float32Array(n);
  let s = 7;
  const rnd = () => (s = (s * 16807) % 2147483647) / 2147483647;
  for (let i = 0; i < n; i++) beat[i] = noise * rnd();
  beats.forEach((b, k) => {
    const i = Math.round(b * FEATURE_FPS);
    for (const [d, v] of [
      [-1, 0.4],
      [0, 0.9],
      [1, 0.4],
    ] as const) {
      if (i + d < 0 || i + d >= n) continue;
      beat[i + d] = Math.max(beat[i + d]!, v);
      if (k % meter === 0) down[i + d] = Math.max(down[i + d]!, v * 0.9);
    }
  });
  return { beat, down, n };
}

/** Beats from 0.3 s to 40 s: 40 at 100 BPM, then 130 BPM. */
function stepBeats(): number[] {
  const beats: number[] = [];
  for (let t = 0.3, i = 0; t < 40; i++) {
    beats.push(t);
    t += 60 / (i < 40 ? 100 : 130);
  }
  return beats;
}

/** The decoded downbeats: the beats at position 0 of their bar. */
const downbeatsOf = (d: DecodedBeats) => d.beats.filter((_, i) => d.positions[i] === 0);

describe('beat decoding (bar-pointer model over the activations)', () => {
  it('finds the beats, the downbeats and a 3/4 meter', () => {
    const beats = Array.from({ length: 60 }, (_, i) => 0.5 + i * (60 / 150));
    const { beat, down } = activations(beats, 3, 26);
    const d = decodeBeats(beat, down, FEATURE_FPS);
    expect(d.beatsPerBar).toBe(3);
    expect(beatFMeasure(d.beats, beats)).toBeGreaterThan(0.98);
    const bars = downbeatsOf(d);
    expect(
      beatFMeasure(
        bars,
        beats.filter((_, i) => i % 3 === 0),
      ),
    ).toBeGreaterThan(0.95);
  });

  it('follows a tempo step (100 -> 130 BPM) in 4/4, through noise', () => {
    const beats = stepBeats();
    const { beat, down } = activations(beats, 4, 41, 0.15);
    const d = decodeBeats(beat, down, FEATURE_FPS);
    expect(d.beatsPerBar).toBe(4);
    expect(beatFMeasure(d.beats, beats)).toBeGreaterThan(0.97);
    const bars = downbeatsOf(d);
    expect(
      beatFMeasure(
        bars,
        beats.filter((_, i) => i % 4 === 0),
      ),
    ).toBeGreaterThan(0.9);
  });

  it('counts a weaker off-beat as a beat at a higher obsLambda only', () => {
    // Beats at 75 BPM and a weaker activation of 0.4 on every off-beat (a skank, a hi-hat). The
    // downbeat activation is half the beat's everywhere, so the bar says nothing.
    const beats = Array.from({ length: 30 }, (_, i) => 0.5 + i * 0.8);
    const { beat } = activations(beats, 4, 25);
    for (const b of beats) {
      const i = Math.round((b + 0.4) * FEATURE_FPS);
      if (i < beat.length) beat[i] = Math.max(beat[i]!, 0.4);
    }
    const down = beat.map((b) => b / 2);
    const doubled = decodeBeats(beat, down, FEATURE_FPS, 0.1, 16);
    const kept = decodeBeats(beat, down, FEATURE_FPS, 0.1, 4);
    // At 16 (madmom's; the engine's is 8) the off-beats are beats too: twice the tempo; at 4 the true beats alone.
    expect(doubled.beats.length).toBeGreaterThan(1.8 * beats.length);
    expect(beatFMeasure(kept.beats, beats)).toBeGreaterThan(0.97);
  });

  it('decodes 6/8 at its dotted-quarter beat, not at 3:2 as 3/4', () => {
    // 6/8 at 60 BPM (a beat of three eighths, two beats a bar): the downbeat activation on every
    // other beat as high as the beat's, and eighth notes between the beats (0.2 and 0.5, as the
    // model gives them).
    const beats = Array.from({ length: 30 }, (_, i) => 0.5 + i);
    const { beat, down } = activations(beats, 2, 31);
    down.forEach((v, i) => (down[i] = v > 0 ? beat[i]! : 0));
    for (const b of beats)
      for (const [third, v] of [
        [1, 0.2],
        [2, 0.5],
      ] as const)
        beat[Math.round((b + third / 3) * FEATURE_FPS)] = v;
    const d = decodeBeats(beat, down, FEATURE_FPS);
    expect(beatFMeasure(d.beats, beats)).toBeGreaterThan(0.97);
    const bars = downbeatsOf(d);
    // Two bars of 6/8 to a decoded bar of 4 (15 bars of 6/8: about 7 decoded ones), and every
    // decoded downbeat is a true one.
    expect(bars.length).toBeGreaterThanOrEqual(6);
    expect(bars.every((t) => beats.some((b, i) => i % 2 === 0 && Math.abs(b - t) < 0.03))).toBe(true);
  });

  it('takes the metrical level the tempo prior believes where the activations allow two', () => {
    // Peaks every 0.3 s (200 BPM) alternating 0.9 and 0.6: the song at 200 BPM, or at 100 BPM on
    // the strong peaks with the weak ones off-beats.
    const fast = Array.from({ length: 80 }, (_, i) => 0.5 + i * 0.3);
    const { beat, down } = activations(fast, 8, 25);
    fast.forEach((b, i) => {
      if (i % 2 === 1) for (const d of [-1, 0, 1]) beat[Math.round(b * FEATURE_FPS) + d]! *= 2 / 3;
    });
    const slow = fast.filter((_, i) => i % 2 === 0);
    // A log prior per period MIN_TAU..MAX_TAU (frames at 50 fps): 0 near `tau`, -8 elsewhere.
    const prior = (tau: number) => Array.from({ length: MAX_TAU - MIN_TAU + 1 }, (_, j) => (Math.abs(MIN_TAU + j - tau) <= 1 ? 0 : -8));
    const atSlow = decodeBeats(beat, down, FEATURE_FPS, 0.1, undefined, prior(30));
    const atFast = decodeBeats(beat, down, FEATURE_FPS, 0.1, undefined, prior(15));
    expect(beatFMeasure(atSlow.beats, slow)).toBeGreaterThan(0.97);
    expect(beatFMeasure(atFast.beats, fast)).toBeGreaterThan(0.97);
    expect(() => decodeBeats(beat, down, FEATURE_FPS, 0.1, undefined, [0, 0, 0])).toThrow(RangeError);
  });

  it('weighs changes of the period by the costs given: at prohibitive ones a tempo step is not followed; a negative one is refused', () => {
    const beats = stepBeats();
    const { beat, down } = activations(beats, 4, 41, 0.15);
    const held = decodeBeats(beat, down, FEATURE_FPS, 0.1, undefined, undefined, { tempoChange: 1e4, oneFrameChange: 1e4 });
    const followed = decodeBeats(beat, down, FEATURE_FPS);
    // The median gap between the beats after the step (from 32 s): 60/130 s where it is followed.
    const gapAfterStep = (d: DecodedBeats) => {
      const late = d.beats.filter((b) => b > 32);
      const gaps = late
        .slice(1)
        .map((b, i) => b - late[i]!)
        .sort((a, b) => a - b);
      return gaps[gaps.length >> 1]!;
    };
    expect(Math.abs(gapAfterStep(followed) - 60 / 130)).toBeLessThan(0.02);
    expect(Math.abs(gapAfterStep(held) - 60 / 130)).toBeGreaterThan(0.05);
    expect(beatFMeasure(held.beats, beats)).toBeLessThan(0.8);
    expect(beatFMeasure(followed.beats, beats)).toBeGreaterThan(0.97);
    for (const costs of [{ oneFrameChange: -1 }, { tempoChange: NaN }]) {
      expect(() => decodeBeats(beat, down, FEATURE_FPS, 0.1, undefined, undefined, costs)).toThrow(RangeError);
      // Refused before the input's length is looked at: too short a song to decode is no excuse.
      expect(() => decodeBeats(new Float32Array(10), new Float32Array(10), FEATURE_FPS, 0.1, undefined, undefined, costs)).toThrow(
        RangeError,
      );
    }
  });

  it('refuses an obsLambda at which no frame could be weighed (1 or less, not a number)', () => {
    const n = 2000;
    for (const bad of [1, 0, -3, NaN])
      expect(() => decodeBeats(new Float32Array(n), new Float32Array(n), FEATURE_FPS, 0.1, bad)).toThrow(RangeError);
  });

  it('gives no beats in silence and a confidence that follows the activations', () => {
    const n = 2000;
    const d = decodeBeats(new Float32Array(n), new Float32Array(n), FEATURE_FPS);
    expect(d.beats).toEqual([]);
    expect(beatConfidence(Array(20).fill(0.9))).toBe(1);
    expect(beatConfidence(Array(20).fill(0.1))).toBe(0);
  });

  it('answers a steady tone (faint ripples, one peak where it stops) as no pulse: no beats, no onsets to cut on', () => {
    // What the model gives an 8 s sine tone in AAC: 0.05-0.07 ripples, 0.67 at its end.
    const n = 801;
    const beat = new Float32Array(n).map((_, i) => 0.03 + 0.04 * Math.abs(Math.sin(i * 0.37)));
    beat[798] = 0.66;
    beat[799] = 0.67;
    const a = analysisFromActivations({ beat, downbeat: new Float32Array(n), fps: FEATURE_FPS }, 8);
    expect([a.beats, a.bars, a.onsets, a.bpm, a.confidence]).toEqual([[], [], [], 0, 0]);
    // A click where it starts too: two strong peaks 8 s apart are no pulse either.
    beat[10] = 0.7;
    const clicks = analysisFromActivations({ beat, downbeat: new Float32Array(n), fps: FEATURE_FPS }, 8);
    expect([clicks.beats, clicks.onsets]).toEqual([[], []]);
  });

  it('cuts a doubtful song only on peaks of at least 0.1, never on the faint ones a grid runs through', () => {
    // Four strong beats, 19 s of faint pulses (0.06) on the same 120 BPM grid, four strong beats:
    // the median activation puts the confidence at 0, and the faint peaks, on the pulse, are no notes.
    const n = 2401;
    const beat = new Float32Array(n).fill(0.01);
    for (let k = 0; k < 47; k++) {
      const i = 50 + k * 50;
      const v = k < 4 || k > 42 ? 0.9 : 0.06;
      beat[i] = v;
      beat[i - 1] = beat[i + 1] = v / 2;
    }
    const a = analysisFromActivations({ beat, downbeat: new Float32Array(n), fps: FEATURE_FPS }, 24);
    expect(a.confidence).toBeLessThan(LOW_BEAT_CONFIDENCE);
    expect(a.beats.length).toBeGreaterThanOrEqual(4);
    // Onsets on the strong peaks only (those the decoded beats agree with), none on a faint one.
    expect(a.onsets!.length).toBeGreaterThanOrEqual(4);
    expect(a.onsets!.map((t) => [t, beat[Math.round(t * FEATURE_FPS)]! > 0.5])).toEqual(a.onsets!.map((t) => [t, true]));
  });
});

describe("weak beats on the strong beats' grid (regridWeakBeats)", () => {
  /** Decoded beats at 120 BPM from 1 s, with the activation `weak` on the beats listed in `weakAt`. */
  const decoded = (weakAt: number[], shift: number): DecodedBeats => {
    const grid = Array.from({ length: 20 }, (_, i) => 1 + i * 0.5);
    return {
      beats: grid.map((t, i) => (weakAt.includes(i) ? t + shift : t)),
      positions: grid.map((_, i) => i % 4),
      beatsPerBar: 4,
      strength: grid.map((_, i) => (weakAt.includes(i) ? 0.15 : 0.8)),
    };
  };

  it("puts a sparse intro's weak beats, and weak beats between strong ones, back on the grid", () => {
    // The first three beats, two in the middle and the last two 50 ms late (a faint peak the
    // decoding followed).
    const d = decoded([0, 1, 2, 9, 10, 18, 19], 0.05);
    const r = regridWeakBeats(d, 0.3);
    r.beats.forEach((t, i) => expect(Math.abs(t - (1 + i * 0.5))).toBeLessThan(1e-6));
    expect(r.positions).toEqual(d.positions);
    expect(r.strength).toEqual(d.strength);
    // Under a lower bound those beats count as strong and keep their times.
    expect(regridWeakBeats(d, 0.1).beats).toEqual(d.beats);
  });

  it('leaves the beats as decoded where fewer than two beats are strong, or none is weak', () => {
    const allWeak = decoded(
      Array.from({ length: 20 }, (_, i) => i),
      0.05,
    );
    expect(regridWeakBeats(allWeak, 0.3)).toBe(allWeak);
    const noneWeak = decoded([], 0);
    expect(regridWeakBeats(noneWeak, 0.3)).toBe(noneWeak);
  });
});

describe('beat features', () => {
  it('are channel-major: the bands, then their rises, at 100 frames per second', () => {
    const sr = 22050;
    const x = new Float32Array(sr * 2);
    // A click every half second.
    for (let k = 0; k < 4; k++) for (let i = 0; i < 200; i++) x[k * (sr / 2) + 1000 + i] = Math.sin(i) * 0.8;
    const f = beatFeatures(x);
    expect(f.bands).toBe(featureBands());
    expect(f.frames).toBe(201);
    expect(f.data.length).toBe(2 * f.bands * f.frames);
    // The rise channels peak at the clicks (sample 1000 + k * 11025: frames ~4.5 + 50k).
    const rise = (t: number) => {
      let s = 0;
      for (let b = 0; b < f.bands; b++) s += f.data[(f.bands + b) * f.frames + t]!;
      return s;
    };
    for (let k = 0; k < 4; k++) {
      const around = [0, 1, 2, 3, 4, 5, 6, 7].map((d) => rise(50 * k + d));
      expect(Math.max(...around)).toBeGreaterThan(5 * Math.max(rise(50 * k + 25), 1e-3));
    }
    expect(f.data.every((v) => Number.isFinite(v) && v >= 0)).toBe(true);
  });
});

describe('the learned analysis (beat-learned.ts)', () => {
  it("cuts a wavering song on the activation's strong peaks, at the peak, and a steady one on its grid", () => {
    // Rubato: the beat's length swings by 12 % over eight beats; a weak peak (0.3) on each off-beat.
    const beats: number[] = [];
    for (let t = 0.6, i = 0; t < 30; i++) {
      beats.push(Math.round(t * 100) / 100);
      t += 0.6 * (1 + 0.12 * Math.sin((2 * Math.PI * i) / 8));
    }
    const { beat, down, n } = activations(beats, 4, 31);
    for (let k = 0; k + 1 < beats.length; k++) beat[Math.round(((beats[k]! + beats[k + 1]!) / 2) * FEATURE_FPS)] = 0.3;
    const wavering = analysisFromActivations({ beat, downbeat: down, fps: FEATURE_FPS }, (n - 1) / FEATURE_FPS);
    expect(wavering.confidence).toBeLessThan(LOW_BEAT_CONFIDENCE);
    expect(wavering.onsets?.length).toBeGreaterThan(beats.length / 3);
    // Each onset is a beat's peak frame itself (the activation peaks on the beat: no latency).
    for (const t of wavering.onsets ?? []) expect(Math.min(...beats.map((b) => Math.abs(b - t)))).toBeLessThan(1e-6);

    // Where no grid is trusted, a weak beat stays where the playing put it (rubato swinging by 8 %,
    // the first three beats' activation and every fourth's at 0.25); on the strong beats' grid the
    // first three would be 40 ms off.
    const played: number[] = [];
    for (let t = 0.6, i = 0; t < 30; i++) {
      played.push(Math.round(t * 100) / 100);
      t += 0.6 * (1 + 0.08 * Math.sin((2 * Math.PI * i) / 8));
    }
    const offGrid = (xs: number[]) => Math.max(...xs.map((t) => Math.min(...played.map((b) => Math.abs(b - t)))));
    const weak = activations(played, 4, 31);
    played.forEach((b, k) => {
      if (k < 3 || k % 4 === 2) for (const d of [-1, 0, 1]) weak.beat[Math.round(b * FEATURE_FPS) + d]! *= 0.25 / 0.9;
    });
    const kept = analysisFromActivations({ beat: weak.beat, downbeat: weak.down, fps: FEATURE_FPS }, (weak.n - 1) / FEATURE_FPS);
    expect(kept.confidence).toBeLessThan(LOW_BEAT_CONFIDENCE);
    expect(kept.beats.length).toBe(played.length);
    expect(offGrid(kept.beats)).toBeLessThan(0.015);
    const gridded = regridWeakBeats(decodeBeats(weak.beat, weak.down, FEATURE_FPS), WEAK_BEAT);
    expect(offGrid(gridded.beats)).toBeGreaterThan(0.015);

    const steady = Array.from({ length: 50 }, (_, i) => 0.5 + i * 0.5);
    const a = activations(steady, 4, 26);
    const grid = analysisFromActivations({ beat: a.beat, downbeat: a.down, fps: FEATURE_FPS }, (a.n - 1) / FEATURE_FPS);
    expect(grid.confidence).toBeGreaterThanOrEqual(LOW_BEAT_CONFIDENCE);
    expect(grid.onsets).toEqual([]);
    expect(beatFMeasure(grid.beats, steady)).toBeGreaterThan(0.98);
  });
});
