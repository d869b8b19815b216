/**
 * Songs with a known form, synthesised sample by sample, so every beat, bar line and section is
 * exactly known: a quiet intro, verses, loud choruses and an outro, in 4/4 or 3/4. Drums (kick,
 * snare, hats), a bass and chords; the verse and the chorus have different chords and loudness,
 * as in real songs. Written as 16-bit WAV (then, if asked, MP3 with ffmpeg).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import type { SectionKind } from '@reelsmith/proto';

/** The section kinds this synthesiser writes: every kind but a bridge. */
export type Part = Exclude<SectionKind, 'bridge'>;

export interface SongSpec {
  bpm: number;
  beatsPerBar: 3 | 4;
  /** The parts in order, with their lengths in bars. */
  form: Array<[Part, number]>;
  sampleRate?: number;
}

export interface Song {
  samples: Float32Array;
  sampleRate: number;
  durationSec: number;
  beats: number[];
  bars: number[];
  parts: Array<{ part: Part; start: number; end: number }>;
}

const midiHz = (m: number) => 440 * 2 ** ((m - 69) / 12);
/** Chords as MIDI roots and qualities; two bars each. */
const CHORDS: Record<Part, Array<[number, 'maj' | 'min']>> = {
  intro: [
    [57, 'min'],
    [53, 'maj'],
  ],
  verse: [
    [57, 'min'],
    [53, 'maj'],
  ],
  chorus: [
    [48, 'maj'],
    [55, 'maj'],
  ],
  outro: [
    [50, 'min'],
    [57, 'min'],
  ],
};
/** Gain of each part (the chorus loudest, the intro and outro quiet) and which drums play. */
const MIX: Record<Part, { gain: number; kick: boolean; snare: boolean; hats: boolean; bass: boolean }> = {
  intro: { gain: 0.08, kick: true, snare: false, hats: false, bass: false },
  verse: { gain: 0.3, kick: true, snare: true, hats: false, bass: true },
  chorus: { gain: 0.9, kick: true, snare: true, hats: true, bass: true },
  outro: { gain: 0.08, kick: true, snare: false, hats: false, bass: false },
};

/** A deterministic noise source (xorshift). */
function noise(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return ((x >>> 0) / 4294967296) * 2 - 1;
  };
}

export function synthSong(spec: SongSpec): Song {
  const sr = spec.sampleRate ?? 22050;
  const beatSec = 60 / spec.bpm;
  const barSec = beatSec * spec.beatsPerBar;
  const totalBars = spec.form.reduce((s, [, n]) => s + n, 0);
  const durationSec = totalBars * barSec + 0.5;
  const out = new Float32Array(Math.round(durationSec * sr));
  const rnd = noise(7);
  // Each sound is computed once (per key) and mixed in by copying: fast enough for long songs.
  const sounds = new Map<string, Float32Array>();
  const sound = (key: string, len: number, f: (t: number) => number) => {
    let w = sounds.get(key);
    if (!w) {
      w = new Float32Array(Math.round(len * sr));
      for (let i = 0; i < w.length; i++) w[i] = f(i / sr);
      sounds.set(key, w);
    }
    return w;
  };
  const mix = (t0: number, w: Float32Array, gain: number) => {
    const a = Math.round(t0 * sr);
    const n = Math.min(w.length, out.length - a);
    for (let i = 0; i < n; i++) out[a + i]! += gain * w[i]!;
  };
  const beats: number[] = [];
  const bars: number[] = [];
  const parts: Song['parts'] = [];
  let bar = 0;
  for (const [part, n] of spec.form) {
    parts.push({ part, start: bar * barSec, end: (bar + n) * barSec });
    for (let k = 0; k < n; k++, bar++) {
      const t0 = bar * barSec;
      bars.push(t0);
      const [root, quality] = CHORDS[part][Math.floor(k / 2) % CHORDS[part].length]!;
      const third = quality === 'maj' ? 4 : 3;
      const g = MIX[part].gain;
      // Chords: a triad (with its octave) held over the bar, soft attack and release.
      const chord = sound(`chord${root}${quality}`, barSec, (t) => {
        const env = Math.min(1, t / 0.03) * Math.min(1, (barSec - t) / 0.05);
        let v = 0;
        for (const m of [root, root + third, root + 7, root + 12]) {
          const w = 2 * Math.PI * midiHz(m) * t;
          v += Math.sin(w) + 0.3 * Math.sin(2 * w);
        }
        return 0.12 * env * v;
      });
      mix(t0, chord, g);
      for (let b = 0; b < spec.beatsPerBar; b++) {
        const tb = t0 + b * beatSec;
        beats.push(tb);
        const accent = b === 0 ? 1.6 : 1;
        const kick = sound(
          'kick',
          0.25,
          (t) => 0.9 * Math.exp(-t / 0.08) * Math.sin(2 * Math.PI * (50 * t + (70 / 20) * (1 - Math.exp(-20 * t)))),
        );
        if (MIX[part].kick) mix(tb, kick, Math.max(g, 0.15) * accent);
        // A crash on the one (not in the intro or outro).
        if (b === 0 && part !== 'intro' && part !== 'outro')
          mix(
            tb,
            sound(`crash${bar % 4}`, 0.6, () => 0.25 * rnd()),
            g,
          );
        if (MIX[part].snare && b % 2 === 1)
          mix(
            tb,
            sound('snare', 0.2, (t) => 0.5 * Math.exp(-t / 0.05) * (rnd() + 0.5 * Math.sin(2 * Math.PI * 190 * t))),
            g,
          );
        if (MIX[part].bass && (b === 0 || b === 2))
          mix(
            tb,
            sound(`bass${root}`, beatSec * 0.9, (t) => 0.35 * Math.exp(-t / 0.4) * Math.sin(2 * Math.PI * midiHz(root - 12) * t)),
            g,
          );
        if (MIX[part].hats)
          for (const off of [0, beatSec / 2])
            mix(
              tb + off,
              sound('hat', 0.04, (t) => 0.12 * Math.exp(-t / 0.01) * rnd()),
              g,
            );
      }
    }
  }
  // Crash tails die out; keep the peak under full scale.
  let peak = 0;
  for (const x of out) peak = Math.max(peak, Math.abs(x));
  if (peak > 0.95) for (let i = 0; i < out.length; i++) out[i]! *= 0.95 / peak;
  return { samples: out, sampleRate: sr, durationSec: out.length / sr, beats, bars, parts };
}

/** Writes the song as 16-bit mono WAV; with `.mp3`, converts it with ffmpeg. */
export function writeSong(song: Song, file: string): string {
  const wav = file.replace(/\.\w+$/, '') + '.wav';
  const n = song.samples.length;
  const buf = Buffer.alloc(44 + n * 2);
  buf.write('RIFF', 0);
  buf.writeUInt32LE(36 + n * 2, 4);
  buf.write('WAVEfmt ', 8);
  buf.writeUInt32LE(16, 16);
  buf.writeUInt16LE(1, 20);
  buf.writeUInt16LE(1, 22);
  buf.writeUInt32LE(song.sampleRate, 24);
  buf.writeUInt32LE(song.sampleRate * 2, 28);
  buf.writeUInt16LE(2, 32);
  buf.writeUInt16LE(16, 34);
  buf.write('data', 36);
  buf.writeUInt32LE(n * 2, 40);
  for (let i = 0; i < n; i++) buf.writeInt16LE(Math.round(Math.max(-1, Math.min(1, song.samples[i]!)) * 32767), 44 + i * 2);
  fs.writeFileSync(wav, buf);
  if (file.endsWith('.mp3')) {
    execFileSync('ffmpeg', ['-v', 'error', '-y', '-i', wav, '-c:a', 'libmp3lame', '-b:a', '128k', file], { stdio: 'pipe' });
    return file;
  }
  return wav;
}

/** Seconds from t to the nearest of xs. */
export const distance = (t: number, xs: readonly number[]) => Math.min(...xs.map((x) => Math.abs(x - t)));

/** Seconds of [a, b) inside the song's parts of kind `part`. */
export const secondsIn = (song: Song, part: Part, a: number, b: number) =>
  song.parts.filter((p) => p.part === part).reduce((s, p) => s + Math.max(0, Math.min(b, p.end) - Math.max(a, p.start)), 0);
