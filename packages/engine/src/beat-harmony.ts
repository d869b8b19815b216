/**
 * Beat tracking, step 3f: phase from where the chords change (the design is in beat-tracker.ts).
 *
 * Harmonic change: the signal is low-passed at 2 kHz and decimated 4x (to 5.5 kHz at the analysis rate),
 * cut into 186 ms Hann frames every 23 ms, and each frame's spectrum (55 Hz-2 kHz) folded into the
 * twelve pitch classes (a chroma vector). The change at a frame is one minus the cosine
 * similarity of the summed chroma of the four frames before it and the four after it: near 0
 * while a chord holds, up to 1 where the harmony moves. Songs change chords on a bar line, and a
 * bar line is a beat, so this marks the beat where the drums say little (a bossa's soft kick, its
 * bass and guitar both between the beats).
 */
import { peakNear, presenceOnOff } from './beat-peaks.js';
import { cosineSimilarity } from './numeric.js';

/** Decimation factor, frame and hop (samples after decimation) of the chroma analysis. */
const DECIMATE = 4;
const FRAME = 1024;
const HOP = 128;
/** Frames summed on each side of a frame to compare the harmony before and after it. */
const SIDE = 4;

/** In-place radix-2 FFT of (re, im), length a power of two; `cos`/`sin` hold the twiddles of that length. */
function fft(re: Float64Array, im: Float64Array, cos: Float64Array, sin: Float64Array): void {
  const n = re.length;
  for (let i = 1, j = 0; i < n; i++) {
    let bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) {
      const r = re[i]!;
      re[i] = re[j]!;
      re[j] = r;
      const q = im[i]!;
      im[i] = im[j]!;
      im[j] = q;
    }
  }
  for (let len = 2; len <= n; len <<= 1) {
    const half = len >> 1;
    const step = n / len;
    for (let i = 0; i < n; i += len) {
      for (let j = 0; j < half; j++) {
        const wr = cos[j * step]!,
          wi = -sin[j * step]!;
        const a = i + j,
          b = a + half;
        const vr = re[b]! * wr - im[b]! * wi;
        const vi = re[b]! * wi + im[b]! * wr;
        re[b] = re[a]! - vr;
        im[b] = im[a]! - vi;
        re[a] = re[a]! + vr;
        im[a] = im[a]! + vi;
      }
    }
  }
}

/**
 * Harmonic change per envelope hop (`hopSec` apart, `hops` of them): 0..1, see the file comment.
 * Returns zeros for a signal shorter than two frames.
 */
export function harmonicChange(samples: Float32Array, sampleRate: number, hopSec: number, hops: number): Float32Array {
  const out = new Float32Array(hops);
  // Low-pass (4th-order Butterworth at 2 kHz: two biquads, Q 0.541 and 1.307) and keep every
  // DECIMATE-th sample: hi-hats and cymbals above the new Nyquist (2.76 kHz) must not fold back
  // into the pitch classes.
  const m = Math.floor(samples.length / DECIMATE);
  const x = new Float32Array(m);
  const sections = [0.5412, 1.3066].map((q) => {
    const w = (2 * Math.PI * 2000) / sampleRate;
    const alpha = Math.sin(w) / (2 * q);
    const a0 = 1 + alpha;
    const b1 = (1 - Math.cos(w)) / a0;
    return { b0: b1 / 2, b1, b2: b1 / 2, a1: (-2 * Math.cos(w)) / a0, a2: (1 - alpha) / a0, x1: 0, x2: 0, y1: 0, y2: 0 };
  });
  for (let i = 0; i < m * DECIMATE; i++) {
    let v = samples[i]!;
    for (const f of sections) {
      const y = f.b0 * v + f.b1 * f.x1 + f.b2 * f.x2 - f.a1 * f.y1 - f.a2 * f.y2;
      f.x2 = f.x1;
      f.x1 = v;
      f.y2 = f.y1;
      f.y1 = y;
      v = y;
    }
    if (i % DECIMATE === DECIMATE - 1) x[(i - DECIMATE + 1) / DECIMATE] = v;
  }
  const rate = sampleRate / DECIMATE;
  const frames = m >= FRAME ? Math.floor((m - FRAME) / HOP) + 1 : 0;
  if (frames < 2 * SIDE + 1) return out;
  const win = new Float64Array(FRAME);
  const cos = new Float64Array(FRAME);
  const sin = new Float64Array(FRAME);
  for (let i = 0; i < FRAME; i++) {
    win[i] = 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / FRAME);
    cos[i] = Math.cos((2 * Math.PI * i) / FRAME);
    sin[i] = Math.sin((2 * Math.PI * i) / FRAME);
  }
  // Pitch class of each FFT bin between 55 Hz and 2 kHz (-1 outside).
  const top = Math.min(FRAME / 2 - 1, Math.floor((2000 * FRAME) / rate));
  const pc = new Int8Array(top + 1).fill(-1);
  for (let k = 1; k <= top; k++) {
    const f = (k * rate) / FRAME;
    if (f >= 55 && f <= 2000) pc[k] = (((Math.round(12 * Math.log2(f / 440)) + 9) % 12) + 12) % 12;
  }
  const chroma = new Float64Array(frames * 12);
  const re = new Float64Array(FRAME);
  const im = new Float64Array(FRAME);
  for (let t = 0; t < frames; t++) {
    const o = t * HOP;
    for (let i = 0; i < FRAME; i++) {
      re[i] = x[o + i]! * win[i]!;
      im[i] = 0;
    }
    fft(re, im, cos, sin);
    for (let k = 1; k <= top; k++) if (pc[k]! >= 0) chroma[t * 12 + pc[k]!]! += Math.sqrt(re[k]! * re[k]! + im[k]! * im[k]!);
  }
  // Change at each frame boundary (between frames t - 1 and t), then onto the envelope's hops.
  const change = new Float64Array(frames);
  const before = new Float64Array(12);
  const after = new Float64Array(12);
  for (let t = SIDE; t <= frames - SIDE; t++) {
    before.fill(0);
    after.fill(0);
    for (let j = 1; j <= SIDE; j++)
      for (let p = 0; p < 12; p++) {
        before[p]! += chroma[(t - j) * 12 + p]!;
        after[p]! += chroma[(t + j - 1) * 12 + p]!;
      }
    // Silence on either side is no change.
    change[t] = 1 - cosineSimilarity(before, after, 1);
  }
  const frameSec = HOP / rate;
  const centreSec = FRAME / 2 / rate;
  for (let i = 0; i < hops; i++) {
    // change[t] compares frames t-4..t-1 with t..t+3: its boundary lies between the centres of
    // frames t-1 and t, half a frame before frame t's centre.
    const f = (i * hopSec - centreSec) / frameSec + 0.5;
    const lo = Math.floor(f);
    if (lo < 0 || lo + 1 >= frames) continue;
    out[i] = change[lo]! + (change[lo + 1]! - change[lo]!) * (f - lo);
  }
  return out;
}

/**
 * The halfway points' strongest bar phase of harmonic change must be this many times the beats'.
 * Set on the bench corpus, between a dance song's off-beat bass (1.15: it changes note between the
 * beats) and a bossa tracked on its off-beats (1.31).
 */
export const HARMONY_PHASE_RATIO = 1.22;
/** ... and they must carry at least as much kick-band energy rise as the beats. */
export const HARMONY_KICK_RATIO = 1;

/**
 * A backbeat that keeps the beats: they carry at least DRUMS_KEEP_RATIO times the halfway points'
 * presence-band onset, and the air band rises with it (at least DRUMS_HISS_SHARE of that ratio: a
 * snare or a clap hisses as much as it rings; a skank's chord stabs ring at 3 kHz and barely hiss).
 */
export const DRUMS_KEEP_RATIO = 1.3;
export const DRUMS_HISS_SHARE = 0.85;

/** The strongest phase of the harmonic change at `hops`, folded over `beatsPerBar` (mean per phase). */
function strongestBarPhase(hops: number[], harmony: Float32Array, beatsPerBar: number): number {
  const sum = new Array<number>(beatsPerBar).fill(0);
  const count = new Array<number>(beatsPerBar).fill(0);
  hops.forEach((h, i) => {
    sum[i % beatsPerBar]! += peakNear(harmony, h, 8);
    count[i % beatsPerBar]!++;
  });
  return Math.max(...sum.map((s, i) => s / Math.max(1, count[i]!)));
}

/**
 * Step 3f: if the bar line's chord change (the strongest phase of the harmonic change, folded
 * over 3 and over 4 beats) lands halfway between the tracked beats, HARMONY_PHASE_RATIO times
 * more than on them, and the kick band's energy rises at least as much there (HARMONY_KICK_RATIO), the
 * tracker followed the off-beats (a bossa's syncopated bass and guitar) and the beats move
 * halfway. Both cues are asked for: an off-beat bass line changes notes between the beats (dance
 * music) without the chords changing there, and a one-drop's chords land between kicks. Not where
 * the beats carry the snares or claps (`DRUMS_KEEP_RATIO`, `DRUMS_HISS_SHARE`): a funk band's bass
 * and chords anticipate the bar line, its backbeat does not. (Set on the bench corpus: funk's
 * backbeat 1.57 in the presence band and 1.52 in the air band; a reggae skank tracked as the beat
 * 1.92 and 1.42.)
 */
export function harmonyPhase(
  hops: number[],
  harmony: Float32Array,
  kickEnergy: Float32Array,
  drums?: { presence: Float32Array; air: Float32Array },
): number[] {
  if (hops.length < 9) return hops;
  // A backbeat on the beats (claps or snares: the presence band clearly stronger there than halfway,
  // and the air band as much) keeps them, whatever the chords do (funk anticipates its chords by a sixteenth).
  if (drums) {
    const p = presenceOnOff(hops, drums.presence);
    const a = presenceOnOff(hops, drums.air);
    const pr = p.on / Math.max(1e-9, p.off);
    const ar = a.on / Math.max(1e-9, a.off);
    if (pr >= DRUMS_KEEP_RATIO && ar >= DRUMS_HISS_SHARE * pr) return hops;
  }
  const mids = hops.slice(0, -1).map((h, i) => Math.round((h + hops[i + 1]!) / 2));
  const on = hops.slice(0, -1);
  const bar = (xs: number[]) => Math.max(strongestBarPhase(xs, harmony, 3), strongestBarPhase(xs, harmony, 4));
  const kick = (xs: number[]) => xs.reduce((a, h) => a + peakNear(kickEnergy, h), 0);
  const [hOn, hOff] = [bar(on), bar(mids)];
  if (!(hOff > HARMONY_PHASE_RATIO * hOn) || !(kick(mids) > HARMONY_KICK_RATIO * kick(on))) return hops;
  return mids;
}
