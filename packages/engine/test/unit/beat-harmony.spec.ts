import { harmonicChange, harmonyPhase } from '../../src/beat-harmony';

const SR = 22050;
const HOP_SEC = 128 / SR;

/** Sine tones of `chords[i]` (MIDI notes) for `secEach` seconds each, one after another. */
function chords(list: number[][], secEach: number): Float32Array {
  const per = Math.round(secEach * SR);
  const out = new Float32Array(per * list.length);
  list.forEach((notes, c) => {
    for (let i = 0; i < per; i++) {
      let v = 0;
      for (const n of notes) v += Math.sin((2 * Math.PI * 440 * 2 ** ((n - 69) / 12) * i) / SR);
      out[c * per + i] = (0.2 * v) / notes.length;
    }
  });
  return out;
}

describe('harmonic change (chroma)', () => {
  it('peaks where the chord changes and stays near zero while a chord holds', () => {
    const C = [48, 60, 64, 67];
    const G = [43, 59, 62, 67];
    const samples = chords([C, G, C], 2);
    const hops = Math.floor(samples.length / 128);
    const hc = harmonicChange(samples, SR, HOP_SEC, hops);
    const at = (t: number) => hc[Math.round(t / HOP_SEC)]!;
    let peak = 0;
    for (let i = Math.round(1.5 / HOP_SEC); i < Math.round(2.5 / HOP_SEC); i++) if (hc[i]! > hc[peak]!) peak = i;
    // The change from C to G at 2 s, to within 30 ms, and clearly above the held chords.
    expect(Math.abs(peak * HOP_SEC - 2)).toBeLessThan(0.03);
    expect(hc[peak]!).toBeGreaterThan(0.2);
    expect(at(1)).toBeLessThan(0.02);
    expect(at(3)).toBeLessThan(0.02);
    // The same chord played on after a change: the second change (G to C at 4 s) is found too.
    let second = Math.round(3.5 / HOP_SEC);
    for (let i = second; i < Math.round(4.5 / HOP_SEC); i++) if (hc[i]! > hc[second]!) second = i;
    expect(Math.abs(second * HOP_SEC - 4)).toBeLessThan(0.03);
  });

  it('gives zeros, not NaN, for a signal shorter than a frame or than one comparison', () => {
    // 50 ms (under one 186 ms frame) and two chords in 0.35 s (seven frames, a comparison needs nine).
    for (const short of [
      chords([[48, 60, 64, 67]], 0.05),
      chords(
        [
          [48, 60, 64, 67],
          [43, 59, 62, 67],
        ],
        0.175,
      ),
    ]) {
      const hc = harmonicChange(short, SR, HOP_SEC, Math.floor(short.length / 128) + 8);
      expect(Array.from(hc).every((v) => v === 0)).toBe(true);
    }
  });
});

describe('phase from the chord changes', () => {
  // A chain every 100 hops; the bar line (every fourth interval) where `harmonyAt` says.
  const hops = Array.from({ length: 33 }, (_, i) => 1000 + i * 100);
  const arrays = (harmonyAtMid: boolean, kickAtMid: boolean) => {
    const harmony = new Float32Array(5000);
    const kick = new Float32Array(5000);
    hops.forEach((h, i) => {
      const mid = h + 50;
      if (i % 4 === 0) harmony[harmonyAtMid ? mid : h] = 0.5;
      kick[kickAtMid ? mid : h] = 1;
      kick[kickAtMid ? h : mid] = 0.5;
    });
    return { harmony, kick };
  };

  it('moves the beats halfway when the chords and the kicks change there (a bossa tracked on its off-beats)', () => {
    const { harmony, kick } = arrays(true, true);
    expect(harmonyPhase(hops, harmony, kick)).toEqual(hops.slice(0, -1).map((h) => h + 50));
  });

  it('keeps the beats when the chords change on them', () => {
    const { harmony, kick } = arrays(false, true);
    expect(harmonyPhase(hops, harmony, kick)).toBe(hops);
  });

  // Presence (3 kHz) and air (8 kHz) onsets: on the beats at `onP`/`onA`, halfway at 1.
  const drums = (onP: number, onA: number) => {
    const presence = new Float32Array(5000);
    const air = new Float32Array(5000);
    hops.forEach((h) => {
      presence[h] = onP;
      air[h] = onA;
      presence[h + 50] = 1;
      air[h + 50] = 1;
    });
    return { presence, air };
  };

  it('keeps the beats when they carry the backbeat, snares that ring and hiss (funk anticipates its chords)', () => {
    const { harmony, kick } = arrays(true, true);
    expect(harmonyPhase(hops, harmony, kick, drums(1.6, 1.5))).toBe(hops);
  });

  it('still moves beats that carry chord stabs, which ring at 3 kHz but barely hiss (a skank tracked as the beat)', () => {
    const { harmony, kick } = arrays(true, true);
    expect(harmonyPhase(hops, harmony, kick, drums(1.8, 1.3))).toEqual(hops.slice(0, -1).map((h) => h + 50));
  });

  it('keeps the beats when the kicks are on them, whatever the chords do (an off-beat bass line)', () => {
    const { harmony, kick } = arrays(true, false);
    expect(harmonyPhase(hops, harmony, kick)).toBe(hops);
  });
});
