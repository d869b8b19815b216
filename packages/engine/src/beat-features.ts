/**
 * The beat model's input: a log-magnitude filtered spectrogram at 100 frames per second, and its
 * half-wave rectified rise from the frame before. This one function feeds both training
 * (tools/beat-model/make-data.mjs writes its output to files that train.py reads) and inference
 * (beat-model.ts), so the two cannot drift apart.
 *
 * Mono samples at 22,050 Hz; frame i is centred on sample round(i * 220.5) (exactly 100 frames a
 * second); a 1,024-sample Hann window (46 ms); magnitudes through triangular filters spaced six
 * to the octave from 30 Hz to 10 kHz (filters that would share their FFT bins at the low end
 * merged into one); log10(1 + 10 * magnitude).
 */

export const FEATURE_SAMPLE_RATE = 22050;
export const FEATURE_FPS = 100;
const FRAME = 1024;
const BANDS_PER_OCTAVE = 6;
const F_MIN = 30;
const F_MAX = 10000;

interface Filterbank {
  /** Per band: first bin and weights. */
  start: Int32Array;
  weights: Float32Array[];
}

let bank: Filterbank | undefined;

function filterbank(): Filterbank {
  if (bank) return bank;
  const binHz = FEATURE_SAMPLE_RATE / FRAME;
  // Centre frequencies, then rounded to bins; duplicates are dropped so every band has its own bin.
  const freqs: number[] = [];
  for (let f = F_MIN; f <= F_MAX * 1.0001; f *= 2 ** (1 / BANDS_PER_OCTAVE)) freqs.push(f);
  const bins = [...new Set(freqs.map((f) => Math.round(f / binHz)))];
  const start: number[] = [];
  const weights: Float32Array[] = [];
  for (let b = 1; b + 1 < bins.length; b++) {
    const lo = bins[b - 1]!;
    const mid = bins[b]!;
    const hi = bins[b + 1]!;
    const w = new Float32Array(hi - lo + 1);
    for (let k = lo; k <= hi; k++) {
      w[k - lo] = k <= mid ? (k - lo + 1) / (mid - lo + 1) : (hi - k + 1) / (hi - mid + 1);
    }
    let sum = 0;
    for (const x of w) sum += x;
    for (let i = 0; i < w.length; i++) w[i]! /= sum;
    start.push(lo);
    weights.push(w);
  }
  bank = { start: Int32Array.from(start), weights };
  return bank;
}

/** The number of spectral bands; the model's input has twice this many channels. */
export function featureBands(): number {
  return filterbank().weights.length;
}

let twiddle: { cos: Float64Array; sin: Float64Array; rev: Uint32Array } | undefined;
/** Twiddles of every stage from the size-8 stage on, each stage's contiguous; the bit reversal. */
function tables() {
  if (twiddle) return twiddle;
  const cos: number[] = [];
  const sin: number[] = [];
  for (let size = 8; size <= FRAME; size <<= 1) {
    for (let k = 0; k < size >> 1; k++) {
      cos.push(Math.cos((2 * Math.PI * k) / size));
      sin.push(-Math.sin((2 * Math.PI * k) / size));
    }
  }
  const rev = new Uint32Array(FRAME);
  const bits = Math.log2(FRAME);
  for (let i = 0; i < FRAME; i++) {
    let r = 0;
    for (let b = 0; b < bits; b++) r |= ((i >> b) & 1) << (bits - 1 - b);
    rev[i] = r;
  }
  twiddle = { cos: Float64Array.from(cos), sin: Float64Array.from(sin), rev };
  return twiddle;
}

/**
 * In-place radix-2 FFT of FRAME points whose input is already in bit-reversed order (`fill`
 * writes it so): the first two stages without multiplications, then one twiddle per k.
 */
function fft(re: Float64Array, im: Float64Array): void {
  const { cos, sin } = tables();
  const n = FRAME;
  // Sizes 2 and 4 together: twiddles 1 and -i.
  for (let s = 0; s < n; s += 4) {
    const r0 = re[s]! + re[s + 1]!;
    const i0 = im[s]! + im[s + 1]!;
    const r1 = re[s]! - re[s + 1]!;
    const i1 = im[s]! - im[s + 1]!;
    const r2 = re[s + 2]! + re[s + 3]!;
    const i2 = im[s + 2]! + im[s + 3]!;
    const r3 = re[s + 2]! - re[s + 3]!;
    const i3 = im[s + 2]! - im[s + 3]!;
    re[s] = r0 + r2;
    im[s] = i0 + i2;
    re[s + 2] = r0 - r2;
    im[s + 2] = i0 - i2;
    // (r3 + i i3) * -i = i3 - i r3
    re[s + 1] = r1 + i3;
    im[s + 1] = i1 - r3;
    re[s + 3] = r1 - i3;
    im[s + 3] = i1 + r3;
  }
  let tw = 0;
  for (let size = 8; size <= n; size <<= 1) {
    const half = size >> 1;
    for (let k = 0; k < half; k++) {
      const c = cos[tw + k]!;
      const si = sin[tw + k]!;
      for (let a = k; a < n; a += size) {
        const b = a + half;
        const tr = re[b]! * c - im[b]! * si;
        const ti = re[b]! * si + im[b]! * c;
        re[b] = re[a]! - tr;
        im[b] = im[a]! - ti;
        re[a] = re[a]! + tr;
        im[a] = im[a]! + ti;
      }
    }
    tw += half;
  }
}

/**
 * The model input for `samples` (mono, 22,050 Hz): channel-major [2 * bands][frames], the log
 * spectrogram's bands then their rises, as one Float32Array; `frames` = floor(duration * 100) + 1.
 */
export function beatFeatures(samples: Float32Array): { data: Float32Array; bands: number; frames: number } {
  const fb = filterbank();
  const nb = fb.weights.length;
  const frames = Math.floor((samples.length / FEATURE_SAMPLE_RATE) * FEATURE_FPS) + 1;
  const data = new Float32Array(2 * nb * frames);
  const win = new Float64Array(FRAME);
  for (let i = 0; i < FRAME; i++) win[i] = 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / FRAME);
  const re = new Float64Array(FRAME);
  const im = new Float64Array(FRAME);
  const mag = new Float64Array(FRAME / 2 + 1);
  const mag2 = new Float64Array(FRAME / 2 + 1);
  const { rev } = tables();
  // The windowed frame, written in bit-reversed order (fft's input order).
  const fill = (buf: Float64Array, frame: number) => {
    const c = Math.round(frame * (FEATURE_SAMPLE_RATE / FEATURE_FPS)) - FRAME / 2;
    for (let i = 0; i < FRAME; i++) {
      const s = c + i;
      buf[rev[i]!] = s >= 0 && s < samples.length ? samples[s]! * win[i]! : 0;
    }
  };
  const bandsOf = (m: Float64Array, frame: number) => {
    for (let b = 0; b < nb; b++) {
      const w = fb.weights[b]!;
      const s0 = fb.start[b]!;
      let acc = 0;
      for (let k = 0; k < w.length; k++) acc += w[k]! * m[s0 + k]!;
      data[b * frames + frame] = Math.log10(1 + 10 * acc);
    }
  };
  // Two real frames per complex FFT: frame a in the real part, frame b in the imaginary part.
  for (let f = 0; f < frames; f += 2) {
    fill(re, f);
    const two = f + 1 < frames;
    if (two) fill(im, f + 1);
    else im.fill(0);
    fft(re, im);
    for (let k = 0; k <= FRAME / 2; k++) {
      const j = (FRAME - k) % FRAME;
      const ar = (re[k]! + re[j]!) / 2;
      const ai = (im[k]! - im[j]!) / 2;
      const br = (im[k]! + im[j]!) / 2;
      const bi = (re[j]! - re[k]!) / 2;
      mag[k] = Math.sqrt(ar * ar + ai * ai);
      mag2[k] = Math.sqrt(br * br + bi * bi);
    }
    bandsOf(mag, f);
    if (two) bandsOf(mag2, f + 1);
  }
  for (let b = 0; b < nb; b++) {
    const row = b * frames;
    const out = (nb + b) * frames;
    for (let t = 1; t < frames; t++) data[out + t] = Math.max(0, data[row + t]! - data[row + t - 1]!);
  }
  return { data, bands: nb, frames };
}
