/**
 * Synthetic drum tracks whose true beats are known exactly, for the beat tracker's bench and
 * tests. Each track is built from a list of beat times (the "drummer's" beats): kick, snare,
 * hi-hats and a sustained pad are mixed at those times, so the reference is the list itself.
 * Deterministic: a fixed-seed noise source.
 */
import { mulberry32 } from '../numeric.js';

export interface BeatTrack {
  name: string;
  description: string;
  sampleRate: number;
  samples: Float32Array;
  /** True beat times, seconds. */
  beats: number[];
}

const gauss = (r: () => number) => Math.sqrt(-2 * Math.log(r() + 1e-12)) * Math.cos(2 * Math.PI * r());

class Mix {
  readonly out: Float32Array;
  private readonly noise = mulberry32(7);
  constructor(
    readonly seconds: number,
    readonly sr = 22050,
  ) {
    this.out = new Float32Array(Math.round(seconds * sr));
  }
  private add(t: number, len: number, f: (x: number) => number, gain: number): void {
    const a = Math.round(t * this.sr);
    const n = Math.round(len * this.sr);
    for (let i = Math.max(0, a); i < Math.min(this.out.length, a + n); i++) this.out[i]! += gain * f((i - a) / this.sr);
  }
  kick(t: number, gain = 1): void {
    // Pitch sweep 120 -> 50 Hz, 250 ms.
    this.add(t, 0.25, (x) => Math.sin(2 * Math.PI * (50 * x + (70 / 30) * (1 - Math.exp(-30 * x)))) * Math.exp(-12 * x), 0.8 * gain);
  }
  snare(t: number, gain = 1): void {
    const r = this.noise;
    this.add(t, 0.18, (x) => (0.6 * (r() * 2 - 1) + 0.5 * Math.sin(2 * Math.PI * 190 * x)) * Math.exp(-22 * x), 0.55 * gain);
  }
  hat(t: number, gain = 1, open = false): void {
    const r = this.noise;
    let prev = 0;
    // First difference of white noise: a bright hiss.
    this.add(
      t,
      open ? 0.25 : 0.06,
      (x) => {
        const w = r() * 2 - 1;
        const v = w - prev;
        prev = w;
        return v * Math.exp((open ? -14 : -70) * x);
      },
      0.3 * gain,
    );
  }
  /** A short chord stab (a guitar or organ skank), decaying. */
  stab(t: number, gain = 0.4): void {
    this.add(
      t,
      0.15,
      (x) =>
        (Math.exp(-4 * x) * (Math.sin(2 * Math.PI * 261.6 * x) + Math.sin(2 * Math.PI * 329.6 * x) + Math.sin(2 * Math.PI * 392 * x))) / 3,
      gain,
    );
  }
  /** A sustained chord (no attacks) over [t0, t1): music that is not percussion. */
  pad(t0: number, t1: number, gain = 0.12): void {
    this.add(
      t0,
      t1 - t0,
      (x) => {
        const env = Math.min(1, x / 0.5, (t1 - t0 - x) / 0.5);
        return (env * (Math.sin(2 * Math.PI * 220 * x) + Math.sin(2 * Math.PI * 277.2 * x) + Math.sin(2 * Math.PI * 329.6 * x))) / 3;
      },
      gain,
    );
  }
  /** Multiplies the mix by a gain curve (intros, fade-outs). */
  shape(g: (t: number) => number): void {
    for (let i = 0; i < this.out.length; i++) this.out[i]! *= g(i / this.sr);
  }
}

/** Beat times from a tempo function (BPM at time t), integrated. */
function beatsFrom(seconds: number, bpmAt: (t: number) => number, start = 0.1): number[] {
  const out: number[] = [];
  let t = start;
  while (t < seconds - 0.05) {
    out.push(t);
    // Midpoint integration of the period.
    const half = 30 / bpmAt(t);
    t += 60 / bpmAt(t + half);
  }
  return out;
}

/** A rock/pop bar: kick on 1 and 3, snare on 2 and 4, hats on every eighth (swung if asked). */
function rock(m: Mix, beats: number[], opts: { hats?: number; swing?: number; accent?: boolean } = {}): void {
  const hats = opts.hats ?? 0.6;
  beats.forEach((b, i) => {
    const next = beats[i + 1] ?? b + (b - (beats[i - 1] ?? b - 0.5));
    if (i % 2 === 0) m.kick(b, opts.accent && i % 4 === 0 ? 1.2 : 1);
    else m.snare(b);
    m.hat(b, hats * 0.7);
    m.hat(b + (next - b) * (opts.swing ?? 0.5), hats);
  });
}

/**
 * The tracks, `seconds` long each (60 by default; the break needs 25 s). `only` picks some by name
 * (the others are not synthesised).
 */
export function beatTracks(opts: { sampleRate?: number; seconds?: number; only?: string[] } = {}): BeatTrack[] {
  const sr = opts.sampleRate ?? 22050;
  const s = opts.seconds ?? 60;
  const tracks: BeatTrack[] = [];
  const want = (name: string) => !opts.only || opts.only.includes(name);
  const push = (name: string, description: string, m: Mix, beats: number[]) =>
    tracks.push({ name, description, sampleRate: sr, samples: m.out, beats });
  /** An accented rock beat over a pad, at the tempo `bpmAt` gives at each time. */
  const rockTrack = (name: string, description: string, bpmAt: (t: number) => number) => {
    const m = new Mix(s, sr);
    const beats = beatsFrom(s, bpmAt);
    rock(m, beats, { accent: true });
    m.pad(0, s);
    push(name, description, m, beats);
  };

  if (want('steady')) rockTrack('steady', '120 BPM rock beat', () => 120);
  if (want('tempo step')) rockTrack('tempo step', `100 BPM, then 132 BPM from ${s / 2} s`, (t) => (t < s / 2 ? 100 : 132));
  if (want('tempo ramp')) rockTrack('tempo ramp', `90 -> 140 BPM over ${s} s`, (t) => 90 + (50 * t) / s);
  if (want('live drummer')) {
    const m = new Mix(s, sr);
    const r = mulberry32(42);
    // Tempo drifts +-4 % around 116 BPM; each hit lands with 10 ms (sd) of jitter.
    const grid = beatsFrom(s, (t) => 116 * (1 + 0.04 * Math.sin((2 * Math.PI * t) / 40) + 0.015 * Math.sin((2 * Math.PI * t) / 9)));
    const beats = grid.map((b) => Math.max(0.01, b + 0.01 * gauss(r)));
    rock(m, beats, { accent: true });
    m.pad(0, s);
    push('live drummer', '116 BPM drifting +-4 % with 10 ms timing jitter', m, beats);
  }
  if (want('syncopated')) {
    const m = new Mix(s, sr);
    const beats = beatsFrom(s, () => 108);
    // Kick on 1, the "and" of 2, and 3; snare on 2 and 4; loud open hats on every off-beat.
    beats.forEach((b, i) => {
      const p = (beats[i + 1] ?? b + 60 / 108) - b;
      const inBar = i % 4;
      if (inBar === 0 || inBar === 2) m.kick(b);
      if (inBar === 1) m.kick(b + p / 2, 0.9);
      if (inBar === 1 || inBar === 3) m.snare(b);
      m.hat(b + p / 2, 1.6, true);
    });
    m.pad(0, s);
    push('syncopated', '108 BPM, a kick on the "and" of 2, loud open hats on every off-beat', m, beats);
  }
  if (want('break')) {
    const m = new Mix(s, sr);
    const beats = beatsFrom(s, () => 124);
    const p = 60 / 124;
    // Beats 32-47: a 16-beat break with only the pad.
    rock(
      m,
      beats.filter((_, i) => i < 32 || i >= 48),
      { accent: true },
    );
    m.pad(0, s, 0.18);
    push(
      'break',
      `124 BPM with a 16-beat break (${(beats[32]! - 0).toFixed(1)}-${(beats[48]! - p / 2).toFixed(1)} s) of pad only`,
      m,
      beats,
    );
  }
  if (want('swing')) {
    const m = new Mix(s, sr);
    const beats = beatsFrom(s, () => 96);
    rock(m, beats, { swing: 2 / 3, hats: 0.9 });
    m.pad(0, s);
    push('swing', '96 BPM, swung eighths (2:1)', m, beats);
  }
  if (want('half/double time')) {
    const m = new Mix(s, sr);
    const beats = beatsFrom(s, () => 85);
    // Hip-hop: kick 1 and the "a" of 2, snare 2 and 4, sixteenth hats: 170 BPM is the wrong octave.
    beats.forEach((b, i) => {
      const p = (beats[i + 1] ?? b + 60 / 85) - b;
      if (i % 4 === 0 || i % 4 === 2) m.kick(b);
      if (i % 4 === 1) m.kick(b + 0.75 * p, 0.7);
      if (i % 2 === 1) m.snare(b);
      for (let k = 0; k < 4; k++) m.hat(b + (k * p) / 4, k === 0 ? 0.7 : 0.45);
    });
    m.pad(0, s);
    push('half/double time', '85 BPM hip-hop with sixteenth hats', m, beats);
  }
  if (want('one-drop')) {
    const m = new Mix(s, sr);
    const beats = beatsFrom(s, () => 75);
    // Reggae one-drop: kick and snare together on 3 only, chord stabs on every off-beat, hats on
    // beats and off-beats alike. The loudest regular onsets are off the beat.
    beats.forEach((b, i) => {
      const p = (beats[i + 1] ?? b + 0.8) - b;
      if (i % 4 === 2) {
        m.kick(b);
        m.snare(b, 0.8);
      }
      m.stab(b + p / 2);
      m.hat(b, 0.5);
      m.hat(b + p / 2, 0.5);
    });
    push('one-drop', '75 BPM reggae one-drop: kick and snare on 3 only, chord stabs on every off-beat', m, beats);
  }
  if (want('step to 1.5x'))
    rockTrack('step to 1.5x', `100 BPM, then 150 BPM from ${s / 2} s (kick and snare alternate on the beat)`, (t) =>
      t < s / 2 ? 100 : 150,
    );
  if (want('fast')) rockTrack('fast', '172 BPM rock: kick and snare alternate on the beat, 86 BPM is the bait', () => 172);
  if (want('quiet intro + fade')) {
    const m = new Mix(s, sr);
    const beats = beatsFrom(s, () => 128);
    rock(m, beats, { accent: true });
    m.pad(0, s);
    // 8 s intro at -30 dB, then full; a 12 s fade-out to silence.
    m.shape((t) => (t < 8 ? 0.03 : 1) * Math.min(1, Math.max(0, (s - t) / 12)));
    push('quiet intro + fade', '128 BPM, 8 s intro at -30 dB, 12 s fade-out', m, beats);
  }
  return tracks;
}

/** The existing 10-minute steady track (120 BPM kick, off-beat hats), as an ffmpeg source. */
export const STEADY_10MIN_SOURCE =
  "aevalsrc='(1+0.6*lt(mod(t\\,2)\\,0.5))*0.7*sin(2*PI*55*t)*exp(-25*mod(t\\,0.5))+0.25*sin(2*PI*7000*t+3*sin(2*PI*3100*t))*exp(-60*mod(t+0.25\\,0.5))'";
