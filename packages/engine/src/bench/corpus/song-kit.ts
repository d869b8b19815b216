/**
 * Building blocks for the corpus songs: true beat times from a tempo (steady, ramp, step,
 * rubato), and a builder that places notes at fractional beat positions with a player's timing
 * jitter and velocity variation. The true beats are the list the notes are placed on, so they
 * are exact.
 */
import { mulberry32 } from '../../numeric.js';
import type { Control, MidiSong, Note } from './midi.js';

export const gauss = (r: () => number) => Math.sqrt(-2 * Math.log(r() + 1e-12)) * Math.cos(2 * Math.PI * r());

/** `count` beat times from `start`, beat i lasting 60 / bpmAt(i) seconds. */
export function beatTimes(count: number, bpmAt: (i: number) => number, start = 0.4): number[] {
  const out: number[] = [];
  let t = start;
  for (let i = 0; i < count; i++) {
    out.push(Math.round(t * 1e6) / 1e6);
    t += 60 / bpmAt(i);
  }
  return out;
}

/**
 * Rubato around `bpm`: slow phrase-long swells (+-`depth`), a random walk, and a ritardando into
 * every phrase end (`phraseBeats`), as a solo player or a conductor breathes.
 */
export function rubato(bpm: number, depth: number, phraseBeats: number, seed: number): (i: number) => number {
  const r = mulberry32(seed);
  const walk: number[] = [];
  let w = 0;
  for (let i = 0; i < 2000; i++) {
    w = 0.85 * w + 0.35 * depth * gauss(r);
    walk.push(w);
  }
  return (i) => {
    const inPhrase = (i % phraseBeats) / phraseBeats;
    const swell = depth * Math.sin(2 * Math.PI * inPhrase);
    const rit = inPhrase > 0.8 ? -1.5 * depth * ((inPhrase - 0.8) / 0.2) : 0;
    return bpm * (1 + swell + rit + walk[i % walk.length]!);
  };
}

export const DRUM = {
  kick: 36,
  stick: 37,
  snare: 38,
  clap: 39,
  floorTom: 41,
  closedHat: 42,
  pedalHat: 44,
  midTom: 47,
  openHat: 46,
  crash: 49,
  ride: 51,
  tambourine: 54,
  cowbell: 56,
  conga: 64,
  shaker: 70,
  claves: 75,
  muteTriangle: 80,
  triangle: 81,
} as const;

/** Chords (MIDI pitches, lowest first) of a few common progressions. */
export const CHORDS = {
  C: [48, 52, 55, 60],
  Am: [45, 52, 57, 60],
  F: [41, 48, 53, 57],
  G: [43, 50, 55, 59],
  Dm: [50, 53, 57, 60],
  Em: [52, 55, 59, 64],
  E: [52, 56, 59, 64],
  A7: [45, 52, 55, 61],
  D7: [50, 54, 57, 60],
  Cmaj7: [48, 52, 55, 59],
  Fmaj7: [41, 45, 48, 52],
} as const;
export type Chord = readonly number[];

/** The pop progression (I-V-vi-IV in C) and its minor turn (vi-IV-I-V), the corpus songs' usual harmony. */
export const POP: Chord[] = [CHORDS.C, CHORDS.G, CHORDS.Am, CHORDS.F];
export const MINOR: Chord[] = [CHORDS.Am, CHORDS.F, CHORDS.C, CHORDS.G];
/** A chord's bass note: its lowest pitch an octave down. */
export const root = (c: Chord) => c[0]! - 12;
/** A constant tempo, as `beatTimes` takes one. */
export const steady = (bpm: number) => () => bpm;

export interface Song {
  name: string;
  description: string;
  midi: MidiSong;
  /** True beats (the level people tap), seconds. */
  beats: number[];
  /** True downbeats, seconds. */
  downbeats: number[];
  /** Beats per bar of the score. */
  beatsPerBar: number;
  /** Nominal tempo (BPM) of the tapped level, for the table. */
  bpm: string;
  /** Solo rubato: the pulse is truly ambiguous (a lower target). */
  rubato?: boolean;
  /** Seconds of audio to render. */
  durationSec: number;
  /** Fade out over the last this many seconds (ffmpeg afade). */
  fadeOutSec?: number;
}

export class SongBuilder {
  readonly notes: Note[] = [];
  readonly controls: Control[] = [];
  readonly programs: Partial<Record<number, number>> = {};
  private readonly r: () => number;
  constructor(
    readonly beats: number[],
    readonly beatsPerBar: number,
    seed: number,
    /** Standard deviation of a player's timing, ms. */
    readonly jitterMs = 6,
  ) {
    this.r = mulberry32(seed);
  }
  /** Time of fractional beat position `pos` (linear between beats, extrapolated past the end). */
  t(pos: number): number {
    const b = this.beats;
    const i = Math.max(0, Math.min(b.length - 2, Math.floor(pos)));
    return b[i]! + (pos - i) * (b[i + 1]! - b[i]!);
  }
  /** Beat period at position `pos`, seconds. */
  period(pos: number): number {
    return this.t(pos + 1) - this.t(pos);
  }
  program(ch: number, prog: number): this {
    this.programs[ch] = prog;
    return this;
  }
  /** One note at beat position `pos`, `dur` in beats. */
  note(pos: number, pitch: number, velocity: number, ch: number, dur = 0.25, jitterMs = this.jitterMs): void {
    const time = this.t(pos) + (gauss(this.r) * jitterMs) / 1000;
    const vel = velocity * (1 + 0.08 * gauss(this.r));
    this.notes.push({ time: Math.max(0, time), dur: dur * this.period(pos), channel: ch, pitch, velocity: vel });
  }
  /** A drum hit (channel 9). */
  hit(pos: number, pitch: number, velocity: number): void {
    this.note(pos, pitch, velocity, 9, 0.2);
  }
  /** A chord; `strumMs` spreads its notes (a guitar strum; negative strums upwards). */
  chord(pos: number, pitches: Chord, velocity: number, ch: number, dur: number, strumMs = 0): void {
    const base = gauss(this.r) * this.jitterMs;
    const order = strumMs < 0 ? [...pitches].reverse() : pitches;
    order.forEach((p, k) => {
      const time = this.t(pos) + (base + k * Math.abs(strumMs)) / 1000;
      this.notes.push({
        time: Math.max(0, time),
        dur: dur * this.period(pos),
        channel: ch,
        pitch: p,
        velocity: velocity * (1 + 0.06 * gauss(this.r)),
      });
    });
  }
  /** A controller change at beat position `pos`. */
  cc(pos: number, ch: number, controller: number, value: number): void {
    this.controls.push({ time: Math.max(0, this.t(pos)), channel: ch, controller, value });
  }
  /** Beat positions of bar `bar` (0-based). */
  bar(bar: number): number {
    return bar * this.beatsPerBar;
  }
  song(
    meta: Omit<Song, 'midi' | 'beats' | 'downbeats' | 'beatsPerBar' | 'durationSec'> & { durationSec?: number; beatsPerBar?: number },
  ): Song {
    const end = meta.durationSec ?? this.beats.at(-1)! + 1.5;
    const beats = this.beats.filter((b) => b < end);
    const bpb = meta.beatsPerBar ?? this.beatsPerBar;
    return {
      ...meta,
      beatsPerBar: bpb,
      durationSec: end,
      beats,
      downbeats: beats.filter((_, i) => i % bpb === 0),
      midi: { programs: this.programs, notes: this.notes, controls: this.controls },
    };
  }
}
