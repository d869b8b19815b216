/**
 * Beat tracking, second half: a tempo-and-phase fit over the whole track.
 *
 * aubio's tracker follows the tempo well but its beat phase wanders: on a steady track it
 * drifts onto the off-beat for long stretches. So its output is used only for the tempo. The
 * fit then:
 *  1. refines the period around aubio's (±3 %) and picks the phase by comb-filtering an onset
 *     envelope (energy flux): the grid whose points sit on the strongest onsets wins, which puts
 *     it on the beat rather than between beats;
 *  2. snaps each grid point to the onset peak within ±15 % of a period and fits a straight line
 *     (time = phase + n * period) through those peaks by least squares, twice, dropping outliers:
 *     over a 10-minute track the period comes out to a few microseconds, so the grid does not
 *     drift;
 *  3. picks the bar phase (which of every 4 beats is the downbeat) by loudness just after the
 *     beats (downbeats are usually accented).
 * Pure functions over plain arrays; the decoding and aubio live in music-analysis.ts.
 */

export const MUSIC_ANALYSIS_VERSION = 1;

export interface MusicAnalysis {
  version: number;
  durationSec: number;
  bpm: number;
  beatPeriodSec: number;
  /** Beat times in seconds, ascending. Empty when the track has no steady pulse. */
  beats: number[];
  /** Downbeats (every fourth beat). */
  bars: number[];
  /** 0..1: how many grid beats found an onset peak near them. */
  confidence: number;
}

export interface Envelope {
  /** Onset strength per hop. */
  values: Float32Array;
  /** Seconds per hop. */
  hopSec: number;
}

/** Onset envelope: half-wave rectified change of log energy per hop. */
export function onsetEnvelope(samples: Float32Array, sampleRate: number, hop = 128): Envelope {
  const n = Math.floor(samples.length / hop);
  const values = new Float32Array(n);
  let prev = 0;
  for (let i = 0; i < n; i++) {
    let e = 0;
    const o = i * hop;
    for (let j = 0; j < hop; j++) {
      const x = samples[o + j]!;
      e += x * x;
    }
    const l = Math.log1p(1000 * (e / hop));
    values[i] = Math.max(0, l - prev);
    prev = l;
  }
  return { values, hopSec: hop / sampleRate };
}

/** Envelope value at time t (linear interpolation). */
function at(env: Envelope, t: number): number {
  const x = t / env.hopSec;
  const i = Math.floor(x);
  if (i < 0 || i + 1 >= env.values.length) return 0;
  const f = x - i;
  return env.values[i]! * (1 - f) + env.values[i + 1]! * f;
}

/** Peak of the envelope within [t - w, t + w], with parabolic interpolation. */
function peakNear(env: Envelope, t: number, w: number): { t: number; v: number } {
  const lo = Math.max(1, Math.floor((t - w) / env.hopSec));
  const hi = Math.min(env.values.length - 2, Math.ceil((t + w) / env.hopSec));
  let bi = -1;
  let bv = -Infinity;
  for (let i = lo; i <= hi; i++) {
    if (env.values[i]! > bv) {
      bv = env.values[i]!;
      bi = i;
    }
  }
  if (bi < 0) return { t, v: 0 };
  const a = env.values[bi - 1]!;
  const b = env.values[bi]!;
  const c = env.values[bi + 1]!;
  const d = a - 2 * b + c;
  const off = d !== 0 ? Math.max(-0.5, Math.min(0.5, (0.5 * (a - c)) / d)) : 0;
  return { t: (bi + off) * env.hopSec, v: b };
}

/** Brings a tempo into 70..180 BPM by octaves, where aubio's estimates are most reliable. */
export function normaliseBpm(bpm: number): number {
  if (!(bpm > 0)) return 0;
  let b = bpm;
  while (b < 70) b *= 2;
  while (b > 180) b /= 2;
  return b;
}

function combScore(env: Envelope, period: number, phase: number, duration: number): number {
  let s = 0;
  for (let t = phase; t < duration; t += period) s += at(env, t);
  return s;
}

/** Least-squares line through (n, t) points: t = a + b n. */
function fitLine(points: Array<{ n: number; t: number; w: number }>): { a: number; b: number } {
  let sw = 0,
    sn = 0,
    st = 0,
    snn = 0,
    snt = 0;
  for (const p of points) {
    sw += p.w;
    sn += p.w * p.n;
    st += p.w * p.t;
    snn += p.w * p.n * p.n;
    snt += p.w * p.n * p.t;
  }
  const det = sw * snn - sn * sn;
  const b = det !== 0 ? (sw * snt - sn * st) / det : 0;
  return { a: (st - b * sn) / sw, b };
}

/**
 * The fit. `aubioBpm` is aubio's tempo estimate (0 if none); `rawBeats` its beat times, used
 * for the tempo when aubio gives no BPM.
 */
export function fitBeats(
  env: Envelope,
  durationSec: number,
  aubioBpm: number,
  rawBeats: number[],
  /** Loudness just after time t; picks the downbeats. Defaults to the onset peak there. */
  accentAt: (t: number) => number = (t) => peakNear(env, t, 0.05).v,
): MusicAnalysis {
  const empty: MusicAnalysis = {
    version: MUSIC_ANALYSIS_VERSION,
    durationSec,
    bpm: 0,
    beatPeriodSec: 0,
    beats: [],
    bars: [],
    confidence: 0,
  };
  let bpm = normaliseBpm(aubioBpm);
  if (!bpm && rawBeats.length > 4) {
    const iois = rawBeats
      .slice(1)
      .map((b, i) => b - rawBeats[i]!)
      .sort((x, y) => x - y);
    bpm = normaliseBpm(60 / iois[Math.floor(iois.length / 2)]!);
  }
  if (!bpm || durationSec < 2) return empty;

  // 1. Period and phase by comb filtering the envelope.
  const p0 = 60 / bpm;
  let best = { period: p0, phase: 0, score: -1 };
  const phaseStep = Math.max(env.hopSec, p0 / 128);
  for (let k = -30; k <= 30; k++) {
    const period = p0 * (1 + k * 0.001);
    for (let phase = 0; phase < period; phase += phaseStep) {
      const s = combScore(env, period, phase, durationSec);
      if (s > best.score) best = { period, phase, score: s };
    }
  }

  // 2. Snap grid points to onset peaks and fit a line, twice, dropping outliers.
  let { period, phase } = best;
  let confidence = 0;
  for (let iter = 0; iter < 3; iter++) {
    const count = Math.floor((durationSec - phase) / period) + 1;
    const peaks = [];
    let strongSum = 0;
    for (let n = 0; n < count; n++) {
      const p = peakNear(env, phase + n * period, period * 0.15);
      peaks.push({ n, t: p.t, v: p.v });
      strongSum += p.v;
    }
    const mean = strongSum / Math.max(1, peaks.length);
    const tol = iter === 0 ? period * 0.15 : period * 0.08;
    const good = peaks
      .filter((p) => p.v > mean * 0.3 && Math.abs(p.t - (phase + p.n * period)) <= tol)
      .map((p) => ({ n: p.n, t: p.t, w: 1 }));
    confidence = good.length / Math.max(1, peaks.length);
    if (good.length < 4) break;
    const line = fitLine(good);
    phase = line.a;
    period = line.b;
  }
  // Phase into [0, period).
  while (phase < 0) phase += period;
  while (phase >= period) phase -= period;

  const beats: number[] = [];
  for (let t = phase; t < durationSec; t += period) beats.push(Math.round(t * 1e6) / 1e6);

  // 3. Downbeats: the beat phase (mod 4) with the strongest accents.
  const accent = [0, 0, 0, 0];
  beats.forEach((b, i) => (accent[i % 4] = accent[i % 4]! + accentAt(b)));
  const down = accent.indexOf(Math.max(...accent));
  const bars = beats.filter((_, i) => i % 4 === down);

  return {
    version: MUSIC_ANALYSIS_VERSION,
    durationSec,
    bpm: Math.round((60 / period) * 1000) / 1000,
    beatPeriodSec: period,
    beats,
    bars,
    confidence: Math.round(confidence * 1000) / 1000,
  };
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
