/**
 * Beat tracking, second half: beats that follow a local tempo.
 *
 * aubio's tracker (music-analysis.ts) gives a global tempo, but its beat phase wanders and one
 * global grid is wrong as soon as the music's tempo moves (a tempo change, a ramp, a live drummer).
 * So the beats here come from our own tracker over an onset envelope, in three steps:
 *
 *  1. Onset envelope (`onsetEnvelope`): the signal is split into three bands with cascaded
 *     one-pole filters (below ~200 Hz, 200 Hz-2 kHz, above 2 kHz); per hop of 128 samples
 *     (5.8 ms at 22.05 kHz) each band's log energy is differenced and half-wave rectified, and
 *     the bands are summed with weights 1 / 1 / 0.4. Kicks and snares mark the beat in most
 *     music; hi-hats play between beats, so the high band counts less. That keeps the tracker
 *     off the off-beat when the hats are loud. Log energy makes a quiet intro or a fade-out give
 *     onsets of similar size to the loud body.
 *  2. Tempo curve (`tempoCurve`): autocorrelation of the (mean-removed) envelope in 6 s windows
 *     every second, for beat periods of 70-180 BPM; each lag's salience adds half of the
 *     autocorrelation at twice the lag (a beat repeats at two beats too, an eighth note does not
 *     carry the bar) and is weighted by a broad prior around 110 BPM (the tempo people tap; half
 *     and double time lose to it when the evidence is equal) with a small bonus at aubio's global
 *     tempo estimate. A Viterbi pass over (window, period) then picks one period per window,
 *     paying for every change in proportion to its log ratio: a ramp's small steps are cheap,
 *     a tempo step is paid once, and a single odd window (a break, a fill) does not flip the
 *     tempo. The period is interpolated between window centres, per hop.
 *  3. Beats (`trackBeats`): dynamic programming over the envelope (Ellis 2007, "Beat tracking by
 *     dynamic programming"): score(t) = onset(t) + max over p in [t - 2T, t - T/2] of
 *     score(p) - alpha * ln((t - p) / T(t))^2, with T(t) the local period from step 2. The best
 *     chain of beats is traced back from the end. Where there are no onsets (a break, a silent
 *     stretch) the cheapest chain keeps the local period, so the beat carries through and resumes
 *     in phase; jitter and drift are followed because each beat sits on its own onset. A second
 *     pass re-estimates the period from the tracked beats themselves (median of nearby
 *     intervals) and tracks again, which sharpens the tempo right at a step. Each beat is then
 *     moved to the onset peak within two hops, to sub-hop precision, and the chain is extended
 *     at the local period to both ends of the track (quiet intros and fade-outs keep a beat).
 *  3b. Phase and metrical level, from two more bands of the same envelope: the kick band (below
 *     ~120 Hz) and the mid band (snares, chords). After the first DP pass, stretches of eight beats
 *     whose beats carry the kicks while the points halfway between carry snares (mid-band onsets
 *     at least a third of the beats', with some body in the kick band, which hi-hats lack) were
 *     tracked at every other beat (a fast song at half time, the faster side of a tempo step),
 *     unless the tracked beats alternate kick and snare themselves (then eighth notes of a bass or
 *     guitar are between them): there the halfway beats are added and the period halved before
 *     the second pass, as long as the tempo stays within 70-180 BPM. After the second pass, if
 *     the beats carry next to no kick energy and the points halfway between them eight times as
 *     much, the tracker followed off-beat chords or hats (a reggae one-drop) and the beats move
 *     there. An interval twice as long as those
 *     around it gets its missing beat. (Bands divided by their local level, so a quiet intro is
 *     judged like the loud body.)
 *  4. Bars: the downbeat phase (which of every 4 tracked beats) is the one whose beats are most
 *     accented (loudness just after the beat), so bars follow the tracked beats across tempo
 *     changes.
 * Pure functions over plain arrays; the decoding and aubio live in music-analysis.ts.
 */

/** 3: phase and metrical level from the kick and mid bands (step 3b); older analyses are redone. */
export const MUSIC_ANALYSIS_VERSION = 3;

export interface MusicAnalysis {
  version: number;
  durationSec: number;
  /** Mean tempo over the track (beats per minute). */
  bpm: number;
  /** Mean beat period over the track, seconds; the local period is the spacing of `beats`. */
  beatPeriodSec: number;
  /** Beat times in seconds, ascending, following the local tempo. Empty when there is no pulse. */
  beats: number[];
  /** Downbeats (every fourth tracked beat). */
  bars: number[];
  /** 0..1: how many beats sit on an onset peak. */
  confidence: number;
}

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
  bands?: { kick: Float32Array; mid: Float32Array; kickEnergy: Float32Array };
}

const BAND_WEIGHTS = [1, 1, 0.4];

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
  // Band energies over the last SMOOTH hops (23 ms): one hop (5.8 ms) is shorter than a cycle of
  // a bass note, whose energy would otherwise ripple from hop to hop.
  const SMOOTH = 4;
  const hist = new Float64Array(4 * SMOOTH);
  let pl = 0,
    pm = 0,
    ph = 0;
  const k = 1e3 / (hop * SMOOTH);
  for (let i = 0; i < n; i++) {
    let el = 0,
      em = 0,
      eh = 0,
      ek = 0;
    const o = i * hop;
    for (let j = 0; j < hop; j++) {
      const x = samples[o + j]!;
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
    pl = ll;
    pm = lm;
    ph = lh;
  }
  const kickOn = logOnsets(kickE);
  const midOn = logOnsets(midE);
  // The two bands are judged against each other beat by beat, so each is divided by its own level
  // over the surrounding 4 s: a quiet intro or a fade-out compares like the loud body.
  const level = Math.round(4 / (hop / sampleRate));
  return {
    values: highPass(values, 8),
    hopSec: hop / sampleRate,
    bands: {
      kick: localLevel(highPass(kickOn, 8), level),
      mid: localLevel(highPass(midOn, 8), level),
      kickEnergy: Float32Array.from(kickE, (e, i) => Math.max(0, e - (kickE[i - 1] ?? 0))),
    },
  };
}

/** The mean of `v` over +-`half` hops around each hop (fewer at the ends). */
function movingMean(v: Float32Array, half: number): Float32Array {
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

/** Brings a tempo into 70..180 BPM by octaves. */
export function normaliseBpm(bpm: number): number {
  if (!(bpm > 0)) return 0;
  let b = bpm;
  while (b < 70) b *= 2;
  while (b > 180) b /= 2;
  return b;
}

export const MIN_BPM = 70;
export const MAX_BPM = 180;
const PRIOR_BPM = 110;
const WINDOW_SEC = 8;
const WINDOW_STEP_SEC = 1;
/** Viterbi cost of a tempo change, per unit of |ln(ratio)|, in units of normalised salience. */
const TEMPO_CHANGE_COST = 4;
/** Ellis' "tightness": how strongly beat intervals keep to the local period. */
/** Seconds either side of a hop whose tempo estimates its beat interval may follow. */
const BAND_SEC = 2;
const TIGHTNESS = 300;

/**
 * Step 2: the local beat period, in hops, for every hop of the envelope. `seedBpm` (aubio's
 * global estimate, 0 if none) gets a small bonus.
 */
export function tempoCurve(env: Envelope, seedBpm = 0): Float64Array {
  // Autocorrelation on a 2x decimated envelope: 11.6 ms lags, parabolic interpolation after.
  const src = env.values;
  const m = Math.floor(src.length / 2);
  const d = new Float32Array(m);
  for (let i = 0; i < m; i++) d[i] = src[2 * i]! + src[2 * i + 1]!;
  const hop = env.hopSec * 2;
  const minLag = Math.floor(60 / MAX_BPM / hop);
  const maxLag = Math.ceil(60 / MIN_BPM / hop);
  const lags = maxLag - minLag + 1;
  const win = Math.max(Math.round(WINDOW_SEC / hop), 4 * maxLag + 2);
  const step = Math.round(WINDOW_STEP_SEC / hop);
  const starts: number[] = [];
  if (m <= win) starts.push(0);
  else {
    for (let s = 0; s + win <= m; s += step) starts.push(s);
    if (starts.at(-1)! + win < m) starts.push(m - win);
  }
  const seed = normaliseBpm(seedBpm);
  const prior = new Float64Array(lags);
  for (let k = 0; k < lags; k++) {
    const bpm = 60 / ((minLag + k) * hop);
    const oct = Math.log2(bpm / PRIOR_BPM);
    let w = Math.exp(-0.5 * oct * oct);
    if (seed) w *= 1 + 0.25 * Math.exp(-0.5 * (Math.log2(bpm / seed) / 0.03) ** 2);
    prior[k] = w;
  }
  const ac = new Float64Array(4 * maxLag + 2);
  const buf = new Float64Array(win);
  const obs: Float64Array[] = [];
  const sal: Float64Array[] = [];
  const maxima: number[] = [];
  for (const s of starts) {
    const len = Math.min(win, m - s);
    let mean = 0;
    for (let i = 0; i < len; i++) mean += d[s + i]!;
    mean /= Math.max(1, len);
    for (let i = 0; i < len; i++) buf[i] = d[s + i]! - mean;
    for (let lag = minLag; lag <= Math.min(4 * maxLag + 1, len - 1); lag++) {
      let a = 0;
      for (let i = lag; i < len; i++) a += buf[i]! * buf[i - lag]!;
      ac[lag] = a / (len - lag);
    }
    const row = new Float64Array(lags);
    let max = 1e-12;
    for (let k = 0; k < lags; k++) {
      const lag = minLag + k;
      const v = (Math.max(0, ac[lag]!) + 0.5 * Math.max(0, ac[2 * lag] ?? 0) + 0.25 * Math.max(0, ac[4 * lag] ?? 0)) * prior[k]!;
      row[k] = v;
      if (v > max) max = v;
    }
    sal.push(row);
    maxima.push(max);
  }
  // Evidence is normalised by a typical window's, not each window's own: a window without a
  // pulse (a break, silence) then has little say and the tempo carries through it.
  const typical = [...maxima].sort((a, b) => a - b)[Math.floor(maxima.length / 2)]!;
  for (const row of sal) {
    const o = new Float64Array(lags);
    for (let k = 0; k < lags; k++) o[k] = Math.min(1.5, row[k]! / typical);
    obs.push(o);
  }
  // Viterbi over the windows.
  const n = obs.length;
  const back = obs.map(() => new Int32Array(lags));
  let score = Float64Array.from(obs[0]!);
  const logLag = new Float64Array(lags);
  for (let k = 0; k < lags; k++) logLag[k] = Math.log(minLag + k);
  for (let w = 1; w < n; w++) {
    const next = new Float64Array(lags);
    for (let k = 0; k < lags; k++) {
      let best = -Infinity;
      let bi = k;
      for (let j = 0; j < lags; j++) {
        const v = score[j]! - TEMPO_CHANGE_COST * Math.abs(logLag[k]! - logLag[j]!);
        if (v > best) {
          best = v;
          bi = j;
        }
      }
      next[k] = best + obs[w]![k]!;
      back[w]![k] = bi;
    }
    score = next;
  }
  let k = 0;
  for (let j = 1; j < lags; j++) if (score[j]! > score[k]!) k = j;
  const path = new Float64Array(n);
  for (let w = n - 1; w >= 0; w--) {
    // Sub-lag precision from the salience around the chosen lag.
    const row = sal[w]!;
    let off = 0;
    if (k > 0 && k < lags - 1) {
      const a = row[k - 1]!,
        b = row[k]!,
        c = row[k + 1]!;
      const den = a - 2 * b + c;
      if (den < 0) off = Math.max(-0.5, Math.min(0.5, (0.5 * (a - c)) / den));
    }
    path[w] = (minLag + k + off) * 2; // back to envelope hops
    if (w > 0) k = back[w]![k]!;
  }
  // Per hop, interpolated between window centres.
  const out = new Float64Array(src.length);
  const centres = starts.map((s) => (s + Math.min(win, m - s) / 2) * 2);
  let w = 0;
  for (let i = 0; i < out.length; i++) {
    while (w + 1 < n && centres[w + 1]! <= i) w++;
    if (i <= centres[0]! || w + 1 >= n) out[i] = path[Math.min(w, n - 1)]!;
    else {
      const f = (i - centres[w]!) / (centres[w + 1]! - centres[w]!);
      out[i] = path[w]! * (1 - f) + path[w + 1]! * f;
    }
  }
  return out;
}

/**
 * The range of the period around each hop: min and max over +-`halfHops`. A tempo change is only
 * known to within a window, so the beat intervals may keep to either tempo near it.
 */
function periodBand(period: Float64Array, halfHops: number): { lo: Float64Array; hi: Float64Array; mid: Float64Array } {
  const n = period.length;
  const lo = new Float64Array(n);
  const hi = new Float64Array(n);
  // The curve is sampled coarsely enough that a stride keeps this cheap.
  const stride = Math.max(1, Math.floor(halfHops / 16));
  for (let t = 0; t < n; t++) {
    let a = Infinity,
      b = 0;
    for (let u = Math.max(0, t - halfHops); u <= Math.min(n - 1, t + halfHops); u += stride) {
      const v = period[u]!;
      if (v < a) a = v;
      if (v > b) b = v;
    }
    lo[t] = Math.min(a, period[t]!);
    hi[t] = Math.max(b, period[t]!);
  }
  return { lo, hi, mid: period };
}

/**
 * Step 3: Ellis' dynamic programming with a local period band; returns beat hops, ascending.
 * An interval outside [lo, hi] costs TIGHTNESS * ln(ratio to the band)^2; inside it, a tenth of
 * that against the local period itself, so that without onsets the beats keep the local period.
 */
function dpBeats(o: Float64Array, band: { lo: Float64Array; hi: Float64Array; mid: Float64Array }): number[] {
  const n = o.length;
  const score = new Float64Array(n);
  const prev = new Int32Array(n).fill(-1);
  // ln of every interval length in hops, looked up rather than computed in the inner loop.
  let maxD = 2;
  for (let t = 0; t < n; t++) maxD = Math.max(maxD, Math.ceil(2 * band.hi[t]!) + 1);
  const ln = new Float64Array(maxD + 1);
  for (let d = 1; d <= maxD; d++) ln[d] = Math.log(d);
  for (let t = 0; t < n; t++) {
    const lo = band.lo[t]!;
    const hi = band.hi[t]!;
    const lnLo = Math.log(lo);
    const lnHi = Math.log(hi);
    const lnMid = Math.log(band.mid[t]!);
    const from = Math.max(0, Math.floor(t - 2 * hi));
    const to = Math.floor(t - lo / 2);
    let best = 0;
    let bi = -1;
    for (let p = from; p <= to; p++) {
      const d = t - p;
      const l = ln[d]!;
      const r = d < lo ? l - lnLo : d > hi ? l - lnHi : 0;
      const q = l - lnMid;
      const v = score[p]! - TIGHTNESS * (r * r + 0.1 * q * q);
      if (v > best) {
        best = v;
        bi = p;
      }
    }
    score[t] = o[t]! + best;
    prev[t] = bi;
  }
  // The chain ends at the best score within the last period.
  const lastT = band.hi[n - 1] ?? 1;
  let end = n - 1;
  for (let t = Math.max(0, Math.floor(n - lastT)); t < n; t++) if (score[t]! > score[end]!) end = t;
  const beats: number[] = [];
  for (let t = end; t >= 0; t = prev[t]!) beats.push(t);
  return beats.reverse();
}

/** The local period (hops) from tracked beats: median of the intervals around each beat. */
function periodFromBeats(beats: number[], n: number, fallback: Float64Array): Float64Array {
  if (beats.length < 6) return fallback;
  const iv = beats.slice(1).map((b, i) => b - beats[i]!);
  const local = beats.map((_, i) => {
    const w = iv.slice(Math.max(0, i - 3), Math.min(iv.length, i + 3)).sort((a, b) => a - b);
    return w[Math.floor(w.length / 2)]!;
  });
  const out = new Float64Array(n);
  let j = 0;
  for (let t = 0; t < n; t++) {
    while (j + 1 < beats.length && beats[j + 1]! <= t) j++;
    const p = local[j]!;
    // Keep the tempo curve where the tracked beats disagree with it by an octave (skipped beats).
    const f = fallback[t]!;
    out[t] = p > f * 1.5 || p < f / 1.5 ? f : p;
  }
  return out;
}

/**
 * Beats without an onset under them (a break, a quiet passage) between two beats that have one
 * are spaced evenly between those two: the tempo carries through and the beat resumes in phase.
 */
function evenOutUnsupported(beats: number[], supported: boolean[]): void {
  let i = 0;
  while (i < beats.length) {
    if (supported[i]) {
      i++;
      continue;
    }
    let j = i;
    while (j < beats.length && !supported[j]) j++;
    if (i > 0 && j < beats.length && j - i >= 2) {
      const a = beats[i - 1]!;
      const step = (beats[j]! - a) / (j - i + 1);
      for (let k = i; k < j; k++) beats[k] = a + (k - i + 1) * step;
    }
    i = j;
  }
}

/** The strongest value of `v` within `r` hops of `h`. */
function peakNear(v: Float32Array, h: number, r = 2): number {
  let m = 0;
  for (let i = Math.max(0, h - r); i <= Math.min(v.length - 1, h + r); i++) if (v[i]! > m) m = v[i]!;
  return m;
}

/**
 * Step 3b, phase: the beat is where the kick drum lands. If the tracked beats carry next to no
 * kick-band onset while the points halfway between them carry eight times as much (the tracker
 * followed off-beat chords or hats, as in a reggae one-drop), the beats move to those halfway
 * points.
 */
function onBeatPhase(hops: number[], kickEnergy: Float32Array): number[] {
  let on = 0,
    off = 0;
  for (let i = 0; i + 1 < hops.length; i++) {
    on += peakNear(kickEnergy, hops[i]!);
    off += peakNear(kickEnergy, Math.round((hops[i]! + hops[i + 1]!) / 2));
  }
  // Only when the tracked beats have next to no low onsets: where they carry kicks of their own
  // (house, with its bass between the kicks), they are the beat however loud the bass is.
  if (!(off > 8 * on)) return hops;
  return hops.slice(0, -1).map((h, i) => Math.round((h + hops[i + 1]!) / 2));
}

/**
 * Step 3b, metrical level (which intervals between tracked beats hold a beat of their own): where the tracked beats carry the kicks and the points halfway between
 * them carry snares (a backbeat: mid-band onsets at least a third of the beats', and body in the
 * kick band, a tenth to 60 % of the beats'; hi-hats alone have neither), while the tracked beats
 * do not alternate between kick and snare themselves,
 * the drummer's beat is twice as fast: the tracker took every other beat (a fast song, or the
 * faster side of a tempo step). The halfway points are added there, while the tempo stays within
 * the range people tap (MAX_BPM). Judged over eight beats at a time; hi-hats between beats have
 * no body in the kick band and do not count.
 */
function drummersLevel(hops: number[], bands: { kick: Float32Array; mid: Float32Array }, hopSec: number): boolean[] {
  const n = hops.length;
  if (n < 9) return [];
  const mids = hops.slice(0, -1).map((h, i) => Math.round((h + hops[i + 1]!) / 2));
  const kb = hops.map((h) => peakNear(bands.kick, h));
  const mb = hops.map((h) => peakNear(bands.mid, h));
  const km = mids.map((h) => peakNear(bands.kick, h));
  const mm = mids.map((h) => peakNear(bands.mid, h));
  const sum = (xs: number[], a: number, b: number) => xs.slice(a, b).reduce((x, y) => x + y, 0);
  const double = new Array<boolean>(n - 1).fill(false);
  const W = 8;
  for (let a = 0; a + W <= n - 1; a++) {
    const b = a + W;
    const bpm = (60 * W) / ((hops[b]! - hops[a]!) * hopSec);
    // Snares already on every other tracked beat (the mid band alternating) mean the tracked beats
    // are the drummer's: eighth notes of a bass or a guitar between them are not a backbeat.
    let even = 0,
      odd = 0;
    for (let i = a; i < b; i++) {
      if (i % 2) odd += mb[i]!;
      else even += mb[i]!;
    }
    const alternating = Math.max(even, odd) >= 2 * Math.min(even, odd);
    const backbeat =
      !alternating &&
      2 * bpm <= MAX_BPM &&
      sum(mm, a, b) >= 0.35 * sum(mb, a, b) &&
      sum(km, a, b) >= 0.1 * sum(kb, a, b) &&
      sum(km, a, b) <= 0.6 * sum(kb, a, b);
    // Each halfway point of such a stretch needs its own snare body (a stretch may reach across a
    // tempo step into beats that are already the drummer's).
    if (backbeat) for (let i = a; i < b; i++) double[i] ||= km[i]! >= 0.1 * (sum(kb, a, b) / W);
  }
  // Only runs of four intervals or more count (a single odd window is not a change of level).
  for (let i = 0; i < n - 1; i++) {
    if (!double[i]) continue;
    let j = i;
    while (j + 1 < n - 1 && double[j + 1]) j++;
    if (j - i + 1 < 4) for (let k = i; k <= j; k++) double[k] = false;
    i = j;
  }
  return double;
}

/**
 * A beat the tracker skipped: an interval about twice as long as the intervals around it (within
 * an eighth) gets the beat halfway, where the chain of beats lost one (at a tempo step, near an end).
 */
function fillSkippedBeats(hops: number[]): number[] {
  const iv = hops.slice(1).map((h, i) => h - hops[i]!);
  const out: number[] = [];
  hops.forEach((h, i) => {
    out.push(h);
    if (i >= iv.length) return;
    const around = [...iv.slice(Math.max(0, i - 3), i), ...iv.slice(i + 1, i + 4)].sort((a, b) => a - b);
    if (around.length < 2) return;
    const local = around[Math.floor(around.length / 2)]!;
    if (Math.abs(iv[i]! / local - 2) <= 0.25) out.push(Math.round(h + iv[i]! / 2));
  });
  return out;
}

export interface TrackOptions {
  /** aubio's global tempo estimate (0 if none): a small bonus in the tempo search. */
  seedBpm?: number;
  /** Loudness just after time t; picks the downbeats. Defaults to the onset peak there. */
  accentAt?: (t: number) => number;
}

/** Steps 2-4 over an envelope. */
export function trackBeats(env: Envelope, durationSec: number, opts: TrackOptions = {}): MusicAnalysis {
  const empty: MusicAnalysis = {
    version: MUSIC_ANALYSIS_VERSION,
    durationSec,
    bpm: 0,
    beatPeriodSec: 0,
    beats: [],
    bars: [],
    confidence: 0,
  };
  const n = Math.min(env.values.length, Math.floor(durationSec / env.hopSec));
  if (durationSec < 2 || n < 16) return empty;
  const values = env.values.subarray(0, n);
  // Normalise by the standard deviation (Ellis) so the tightness means the same on every track.
  let mean = 0;
  for (let i = 0; i < n; i++) mean += values[i]!;
  mean /= n;
  let sd = 0;
  for (let i = 0; i < n; i++) sd += (values[i]! - mean) ** 2;
  sd = Math.sqrt(sd / n);
  // No pulse at all (silence, a steady tone): no beats.
  if (!(sd > 1e-3)) return empty;
  const o = new Float64Array(n);
  for (let i = 0; i < n; i++) o[i] = values[i]! / sd;
  const curve = tempoCurve({ values, hopSec: env.hopSec }, opts.seedBpm ?? 0);
  const halfBand = Math.round(BAND_SEC / env.hopSec);
  let hops = dpBeats(o, periodBand(curve, halfBand));
  // Where the first pass took every other beat of a backbeat, the period is halved there, so the
  // second pass tracks the drummer's beat itself (also through a tempo step into that region).
  let trackPeriod = curve;
  const doubled = env.bands ? drummersLevel(hops, env.bands, env.hopSec) : [];
  if (doubled.some(Boolean)) {
    // Each doubled interval gets its halfway beat, and half its length as the local period.
    trackPeriod = Float64Array.from(curve);
    const withHalves: number[] = [];
    hops.forEach((h, i) => {
      withHalves.push(h);
      const next = hops[i + 1];
      if (!doubled[i] || next === undefined) return;
      withHalves.push(Math.round((h + next) / 2));
      for (let t = h; t < Math.min(n, next); t++) trackPeriod[t] = (next - h) / 2;
    });
    hops = withHalves;
  }
  hops = dpBeats(o, periodBand(periodFromBeats(hops, n, trackPeriod), Math.round(halfBand / 2)));
  if (hops.length < 2) return empty;
  if (env.bands) hops = onBeatPhase(hops, env.bands.kickEnergy);
  hops = fillSkippedBeats(hops);
  if (hops.length < 2) return empty;

  // Sub-hop precision: the onset peak within two hops, parabolic interpolation around it.
  const beats: number[] = [];
  const strength: number[] = [];
  for (const h of hops) {
    let bi = h;
    for (let i = Math.max(1, h - 2); i <= Math.min(n - 2, h + 2); i++) if (o[i]! > o[bi]!) bi = i;
    let off = 0;
    if (bi > 0 && bi < n - 1) {
      const a = o[bi - 1]!,
        b = o[bi]!,
        c = o[bi + 1]!;
      const den = a - 2 * b + c;
      if (den < 0) off = Math.max(-0.5, Math.min(0.5, (0.5 * (a - c)) / den));
    }
    strength.push(o[bi]!);
    beats.push((bi + off) * env.hopSec);
  }
  // A beat is supported by an onset of at least a third of a typical beat's.
  const typical = [...strength].sort((a, b) => a - b)[Math.floor(strength.length / 2)]!;
  const supported = strength.map((v) => v > Math.max(1, typical / 3));
  const onPeak = supported.filter(Boolean).length;
  const confidence = onPeak / hops.length;
  evenOutUnsupported(beats, supported);
  // Extend at the local period to both ends (quiet intros, fade-outs).
  // (At the median of the nearest intervals: one odd interval at an end does not set the pace.)
  const edge = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const firstP = edge(beats.slice(1, 5).map((b, i) => b - beats[i]!));
  while (beats[0]! - firstP >= 0) beats.unshift(beats[0]! - firstP);
  const lastP = edge(
    beats
      .slice(-5)
      .slice(1)
      .map((b, i) => b - beats.slice(-5)[i]!),
  );
  while (beats.at(-1)! + lastP < durationSec) beats.push(beats.at(-1)! + lastP);
  const rounded = beats.map((b) => Math.round(b * 1e6) / 1e6);

  // Step 4: downbeats.
  const accentAt = opts.accentAt ?? ((t: number) => o[Math.round(t / env.hopSec)] ?? 0);
  const accent = [0, 0, 0, 0];
  rounded.forEach((b, i) => (accent[i % 4] = accent[i % 4]! + accentAt(b)));
  const down = accent.indexOf(Math.max(...accent));
  const bars = rounded.filter((_, i) => i % 4 === down);

  // Mean period by least squares over the beat index, so a steady track's tempo is exact.
  const k = rounded.length;
  let sx = 0,
    sy = 0,
    sxx = 0,
    sxy = 0;
  rounded.forEach((t, i) => {
    sx += i;
    sy += t;
    sxx += i * i;
    sxy += i * t;
  });
  const period = (k * sxy - sx * sy) / (k * sxx - sx * sx);
  return {
    version: MUSIC_ANALYSIS_VERSION,
    durationSec,
    bpm: Math.round((60 / period) * 1000) / 1000,
    beatPeriodSec: period,
    beats: rounded,
    bars,
    confidence: Math.round(confidence * 1000) / 1000,
  };
}

/**
 * The tracker with the historical signature: `aubioBpm` seeds the tempo search; `rawBeats`
 * (aubio's beats) give a seed when aubio reports no tempo.
 */
export function fitBeats(
  env: Envelope,
  durationSec: number,
  aubioBpm: number,
  rawBeats: number[],
  accentAt?: (t: number) => number,
): MusicAnalysis {
  let seed = normaliseBpm(aubioBpm);
  if (!seed && rawBeats.length > 4) {
    const iois = rawBeats
      .slice(1)
      .map((b, i) => b - rawBeats[i]!)
      .sort((x, y) => x - y);
    seed = normaliseBpm(60 / iois[Math.floor(iois.length / 2)]!);
  }
  return trackBeats(env, durationSec, { seedBpm: seed, accentAt });
}

/** Local beat period at time t: the spacing of the tracked beats around it. */
export function periodAt(m: Pick<MusicAnalysis, 'beats' | 'beatPeriodSec'>, t: number): number {
  const b = m.beats;
  if (b.length < 2) return m.beatPeriodSec;
  let lo = 0,
    hi = b.length - 1;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (b[mid]! <= t) lo = mid;
    else hi = mid;
  }
  return b[hi]! - b[lo]! > 0 ? b[hi]! - b[lo]! : m.beatPeriodSec;
}

/** F-measure of detected beats against reference beats at `toleranceSec` (each matched once). */
export function beatFMeasure(detected: number[], reference: number[], toleranceSec = 0.07): number {
  if (!detected.length || !reference.length) return 0;
  let i = 0,
    j = 0,
    hits = 0;
  while (i < detected.length && j < reference.length) {
    const d = detected[i]! - reference[j]!;
    if (Math.abs(d) <= toleranceSec) {
      hits++;
      i++;
      j++;
    } else if (d < 0) i++;
    else j++;
  }
  const p = hits / detected.length;
  const r = hits / reference.length;
  return p + r ? (2 * p * r) / (p + r) : 0;
}

/** Share of `reference` beats that have a detected beat within `toleranceSec`. */
export function beatAccuracy(detected: number[], reference: number[], toleranceSec = 0.05): number {
  if (!reference.length) return 0;
  let j = 0;
  let hits = 0;
  for (const r of reference) {
    while (j + 1 < detected.length && detected[j + 1]! <= r) j++;
    const near = [detected[j], detected[j + 1]].some((d) => d !== undefined && Math.abs(d - r) <= toleranceSec);
    if (near) hits++;
  }
  return hits / reference.length;
}
