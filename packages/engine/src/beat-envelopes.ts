/** Beat tracking, step 1: the onset envelope and its bands (the design is in beat-tracker.ts). */
import { harmonicChange } from './beat-harmony.js';

export interface Envelope {
  /** Onset strength per hop. */
  values: Float32Array;
  /** Seconds per hop. */
  hopSec: number;
  /**
   * Onsets of two bands alone, per hop: `kick` below ~120 Hz (kick drums, bass notes) and `mid`
   * 200 Hz-2 kHz (snares, chords), on a log scale and divided by their local level (they decide
   * the metrical level, step 3b, whatever the loudness), and `kickEnergy`, the rise of the kick
   * band's energy (it decides the phase: where the loudest low notes land).
   */
  bands?: {
    kick: Float32Array;
    mid: Float32Array;
    kickEnergy: Float32Array;
    high?: Float32Array;
    presence?: Float32Array;
    air?: Float32Array;
    /**
     * The onsets of all three bands (kick, mid, high) at their largest, not divided by the local
     * level: a note in a fade-out still rises in log energy, while the noise after the music's
     * end barely does (trimOutsideMusic, beat-onsets.ts).
     */
    sounding?: Float32Array;
    /** How much the harmony (chroma) changes at each hop, 0..1 (beat-harmony.ts): chords change on bar lines. */
    harmony?: Float32Array;
  };
}

const BAND_WEIGHTS = [1, 1, 0.4];

/**
 * Band energies are summed over this many hops (23 ms at 128-sample hops and 22.05 kHz): one hop
 * (5.8 ms) is shorter than a cycle of a bass note, whose energy would otherwise ripple from hop to hop.
 */
export const BAND_SMOOTH_HOPS = 4;

/** Onset envelope: band-weighted, half-wave rectified change of log energy per hop. */
export function onsetEnvelope(samples: Float32Array, sampleRate: number, hop = 128): Envelope {
  const n = Math.floor(samples.length / hop);
  const values = new Float32Array(n);
  const lowA = 1 - Math.exp((-2 * Math.PI * 200) / sampleRate);
  const midA = 1 - Math.exp((-2 * Math.PI * 2000) / sampleRate);
  const kickA = 1 - Math.exp((-2 * Math.PI * 120) / sampleRate);
  let l1 = 0,
    l2 = 0,
    m1 = 0,
    m2 = 0,
    k1 = 0,
    k2 = 0;
  // Smoothed energies of the kick and mid bands per hop (their onsets are taken below, on a log
  // scale that does not flatten quiet passages).
  const kickE = new Float64Array(n);
  const midE = new Float64Array(n);
  const highE = new Float64Array(n);
  // Presence band: a band-pass around 3 kHz (Q 1), where claps, snares and a kick's beater click
  // sit, above a bass's harmonics and below an open hi-hat's hiss. Its energy per hop, unsmoothed.
  const presE = new Float64Array(n);
  const pw = (2 * Math.PI * 3000) / sampleRate;
  const pal = Math.sin(pw) / 2;
  const pa0 = 1 + pal;
  const pb0 = pal / pa0,
    pa1 = (-2 * Math.cos(pw)) / pa0,
    pa2 = (1 - pal) / pa0;
  let px1 = 0,
    px2 = 0,
    py1 = 0,
    py2 = 0;
  // Air band: the same around 8 kHz, where hi-hats hiss (it tells their onsets from a clap's).
  const airE = new Float64Array(n);
  const aw = (2 * Math.PI * Math.min(8000, 0.4 * sampleRate)) / sampleRate;
  const aal = Math.sin(aw) / 2;
  const aa0 = 1 + aal;
  const ab0 = aal / aa0,
    aa1 = (-2 * Math.cos(aw)) / aa0,
    aa2 = (1 - aal) / aa0;
  let ay1 = 0,
    ay2 = 0;
  // Band energies over the last BAND_SMOOTH_HOPS hops. (Declared like the filter states above only in
  // form: one running number per band, each updated by its own filter.)
  const SMOOTH = BAND_SMOOTH_HOPS;
  const hist = new Float64Array(4 * SMOOTH);
  let pl = 0,
    pm = 0,
    ph = 0;
  const k = 1e3 / (hop * SMOOTH);
  for (let i = 0; i < n; i++) {
    let el = 0,
      em = 0,
      eh = 0,
      ek = 0,
      ep = 0,
      ea = 0;
    const o = i * hop;
    for (let j = 0; j < hop; j++) {
      const x = samples[o + j]!;
      const py = pb0 * (x - px2) - pa1 * py1 - pa2 * py2;
      const ay = ab0 * (x - px2) - aa1 * ay1 - aa2 * ay2;
      ay2 = ay1;
      ay1 = ay;
      ea += ay * ay;
      px2 = px1;
      px1 = x;
      py2 = py1;
      py1 = py;
      ep += py * py;
      l1 += lowA * (x - l1);
      l2 += lowA * (l1 - l2);
      m1 += midA * (x - m1);
      m2 += midA * (m1 - m2);
      k1 += kickA * (x - k1);
      k2 += kickA * (k1 - k2);
      const low = l2;
      const mid = m2 - l2;
      const high = x - m2;
      el += low * low;
      em += mid * mid;
      eh += high * high;
      ek += k2 * k2;
    }
    const slot = (i % SMOOTH) * 4;
    hist[slot] = el;
    hist[slot + 1] = em;
    hist[slot + 2] = eh;
    hist[slot + 3] = ek;
    let sl = 0,
      sm = 0,
      sh = 0,
      sk = 0;
    for (let q = 0; q < SMOOTH; q++) {
      sl += hist[q * 4]!;
      sm += hist[q * 4 + 1]!;
      sh += hist[q * 4 + 2]!;
      sk += hist[q * 4 + 3]!;
    }
    const ll = Math.log1p(k * sl);
    const lm = Math.log1p(k * sm);
    const lh = Math.log1p(k * sh);
    values[i] = BAND_WEIGHTS[0]! * Math.max(0, ll - pl) + BAND_WEIGHTS[1]! * Math.max(0, lm - pm) + BAND_WEIGHTS[2]! * Math.max(0, lh - ph);
    kickE[i] = sk;
    midE[i] = sm;
    highE[i] = sh;
    presE[i] = ep;
    airE[i] = ea;
    pl = ll;
    pm = lm;
    ph = lh;
  }
  const kickOn = logOnsets(kickE);
  const midOn = logOnsets(midE);
  const highOn = logOnsets(highE);
  // The two bands are judged against each other beat by beat, so each is divided by its own level
  // over the surrounding 4 s: a quiet intro or a fade-out compares like the loud body.
  const level = Math.round(4 / (hop / sampleRate));
  return {
    values: highPass(values, 8),
    hopSec: hop / sampleRate,
    bands: {
      kick: localLevel(highPass(kickOn, 8), level),
      mid: localLevel(highPass(midOn, 8), level),
      high: localLevel(highPass(highOn, 8), level),
      presence: logOnsets(presE),
      air: logOnsets(airE),
      sounding: highPass(
        kickOn.map((k, i) => Math.max(k, midOn[i]!, highOn[i]!)),
        8,
      ),
      kickEnergy: Float32Array.from(kickE, (e, i) => Math.max(0, e - (kickE[i - 1] ?? 0))),
      harmony: harmonicChange(samples, sampleRate, hop / sampleRate, n),
    },
  };
}

/** The mean of `v` over +-`half` hops around each hop (fewer at the ends). */
export function movingMean(v: Float32Array, half: number): Float32Array {
  const out = new Float32Array(v.length);
  let sum = 0;
  let lo = 0,
    hi = -1;
  for (let i = 0; i < v.length; i++) {
    const a = Math.max(0, i - half);
    const b = Math.min(v.length - 1, i + half);
    while (hi < b) sum += v[++hi]!;
    while (lo < a) sum -= v[lo++]!;
    out[i] = sum / (b - a + 1);
  }
  return out;
}

/**
 * The envelope minus its moving average over +-`half` hops, clipped at 0: sharp onsets stay,
 * slow swells (a pad's beating, vibrato, a crescendo) go.
 */
function highPass(v: Float32Array, half: number): Float32Array {
  const mean = movingMean(v, half);
  return v.map((x, i) => Math.max(0, x - mean[i]!));
}

/**
 * Half-wave rectified change of log energy per hop, with a floor 40 dB under the mean energy: a
 * quiet intro's onsets are as big as the loud body's (log1p would make them small), silence has none.
 */
function logOnsets(e: Float64Array): Float32Array {
  let mean = 0;
  for (let i = 0; i < e.length; i++) mean += e[i]!;
  const floor = (mean / Math.max(1, e.length)) * 1e-4 + 1e-12;
  const out = new Float32Array(e.length);
  let prev = Math.log(floor);
  for (let i = 0; i < e.length; i++) {
    const l = Math.log(e[i]! + floor);
    out[i] = Math.max(0, l - prev);
    prev = l;
  }
  return out;
}

/** Each value divided by the mean over +-`half` hops (plus a floor of a hundredth of the overall mean). */
function localLevel(v: Float32Array, half: number): Float32Array {
  let total = 0;
  for (let i = 0; i < v.length; i++) total += v[i]!;
  const floor = (total / Math.max(1, v.length)) * 0.01 + 1e-9;
  const mean = movingMean(v, half);
  return v.map((x, i) => x / (mean[i]! + floor));
}
