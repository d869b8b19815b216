#!/usr/bin/env node
// Writes the starter music library (media/starter/<mood>/<Title>.mp3): six songs of 2-3 minutes,
// composed here as scores and played by FluidSynth with the General MIDI sound font
// (apt-get install fluidsynth fluid-soundfont-gm), each released as CC0 with a LICENSE file
// beside it. The scores use the beat bench's corpus kit (packages/engine/src/bench/corpus:
// SongBuilder places notes on exact beats, midi.ts writes the MIDI file), read as built.
// Deterministic: the same seeds give the same scores. Usage: node scripts/make-starter-music.js [OUT]
'use strict';
const { execFileSync, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const corpus = path.join(root, 'packages', 'engine', 'dist', 'bench', 'corpus');
if (!fs.existsSync(path.join(corpus, 'song-kit.js'))) {
  const b = spawnSync(process.execPath, [path.join(root, 'scripts', 'build.js')], { stdio: 'inherit', cwd: root });
  if (b.status !== 0) process.exit(b.status ?? 1);
}
const { beatTimes, DRUM: D, SongBuilder, steady } = require(path.join(corpus, 'song-kit.js'));
const { writeMidi } = require(path.join(corpus, 'midi.js'));
const { mulberry32 } = require(path.join(root, 'packages', 'engine', 'dist', 'numeric.js'));

const SOUND_FONT = '/usr/share/sounds/sf2/FluidR3_GM.sf2';
const OUT = path.resolve(process.argv[2] ?? path.join(root, 'media', 'starter'));
/** MP3 bit rate: small files, clean enough for a reel's soundtrack. */
const BITRATE = '112k';

// Chords as MIDI pitches, lowest first (a triad or seventh around middle C).
const C = {
  C: [48, 52, 55, 60],
  Cmaj7: [48, 52, 55, 59],
  Dm: [50, 53, 57, 62],
  Dm7: [50, 53, 57, 60],
  D: [50, 54, 57, 62],
  Em: [52, 55, 59, 64],
  E: [52, 56, 59, 64],
  F: [53, 57, 60, 65],
  Fmaj7: [53, 57, 60, 64],
  G: [55, 59, 62, 67],
  Am: [57, 60, 64, 69],
  Am7: [57, 60, 64, 67],
  Bb: [58, 62, 65, 70],
  Bm: [59, 62, 66, 71],
};
const MAJOR = [0, 2, 4, 5, 7, 9, 11];

/**
 * One song: `form` lists its sections ([name, bars, progression]); `play(s, ctx)` writes one bar
 * (ctx: bar start in beats, chord, section name, bar within the section, bar index, rng).
 */
function compose({ title, mood, bpm, seed, beatsPerBar = 4, form, programs, play, fadeOutSec = 6, description }) {
  const bars = form.reduce((n, [, b]) => n + b, 0);
  const s = new SongBuilder(beatTimes(bars * beatsPerBar + 8, steady(bpm), 0.3), beatsPerBar, seed, 5);
  for (const [ch, prog] of Object.entries(programs)) s.program(Number(ch), prog);
  const r = mulberry32(seed * 7919);
  let bar = 0;
  for (const [section, count, progression] of form) {
    for (let i = 0; i < count; i++, bar++) {
      const chord = progression[i % progression.length];
      play(s, { b: s.bar(bar), chord, section, i, count, bar, r });
    }
  }
  // The last chord rings out over the fade.
  const end = s.t(bars * beatsPerBar) + 3;
  return { title, mood, bpm, description, song: s.song({ name: title, description, bpm: String(bpm), durationSec: end, fadeOutSec }) };
}

/** A melody for one bar: chord tones on strong beats, scale steps between, around `centre`. */
function melodyBar(s, { b, chord, r }, ch, vel, rhythm, centre, key = 0) {
  const tones = chord.map((p) => p + 12);
  let last = centre;
  for (const [pos, dur] of rhythm) {
    const strong = pos % 1 === 0;
    let pitch;
    if (strong) {
      const options = [...tones, ...tones.map((p) => p + 12)];
      pitch = options.reduce((best, p) => (Math.abs(p - last - (r() - 0.5) * 6) < Math.abs(best - last) ? p : best));
    } else {
      const step = r() < 0.5 ? -1 : 1;
      const degree = MAJOR.findIndex((d) => (last - key - d) % 12 === 0);
      pitch =
        degree < 0
          ? last + step
          : last + (MAJOR[(degree + step + 7) % 7] - MAJOR[degree] + (step > 0 ? (degree === 6 ? 12 : 0) : degree === 0 ? -12 : 0));
    }
    pitch = Math.max(centre - 7, Math.min(centre + 9, pitch));
    s.note(b + pos, pitch, vel * (strong ? 1 : 0.85), ch, dur);
    last = pitch;
  }
}

const RHYTHMS = [
  [
    [0, 1],
    [1, 0.5],
    [1.5, 0.5],
    [2, 1.5],
  ],
  [
    [0, 0.5],
    [0.5, 0.5],
    [1, 1],
    [2.5, 0.5],
    [3, 1],
  ],
  [
    [0, 1.5],
    [1.5, 0.5],
    [2, 0.5],
    [2.5, 0.5],
    [3, 1],
  ],
  [
    [0, 2],
    [2, 2],
  ],
];
/** The same two-bar phrase through a section: motifs repeat, as songs do. */
const phrase = (ctx, salt) => RHYTHMS[(Math.floor(ctx.i / 2) * 3 + salt + (ctx.i % 2)) % RHYTHMS.length];

const bass = (chord) => chord[0] - 24;

const songs = [
  compose({
    title: 'Golden Hour Drive',
    mood: 'upbeat',
    bpm: 118,
    seed: 101,
    description: 'sunny pop-rock: electric piano, clean guitar, bass and a live kit',
    programs: { 0: 33, 1: 4, 2: 27, 3: 80 },
    form: [
      ['intro', 4, [C.C, C.G, C.Am, C.F]],
      ['verse', 16, [C.C, C.G, C.Am, C.F]],
      ['chorus', 8, [C.F, C.G, C.C, C.Am]],
      ['verse', 16, [C.C, C.G, C.Am, C.F]],
      ['chorus', 8, [C.F, C.G, C.C, C.Am]],
      ['bridge', 8, [C.Am, C.F, C.C, C.G]],
      ['chorus', 8, [C.F, C.G, C.C, C.Am]],
      ['outro', 4, [C.C, C.G, C.Am, C.F]],
    ],
    play(s, ctx) {
      const { b, chord, section, i } = ctx;
      const full = section !== 'intro' && section !== 'outro';
      if (i === 0) s.hit(b, D.crash, 100);
      for (let k = 0; k < 4; k++) {
        s.hit(b + k, k % 2 ? D.snare : D.kick, k % 2 ? 105 : 115);
        if (k === 2) s.hit(b + 2.5, D.kick, 85);
        for (const h of [0, 0.5]) s.hit(b + k + h, D.closedHat, h ? 50 : 70);
        s.note(b + k, bass(chord), 105, 0, 0.45);
        s.note(b + k + 0.5, bass(chord) + (k === 3 ? 7 : 0), 85, 0, 0.4);
        s.chord(b + k, chord.slice(1), 70, 1, 0.9);
      }
      if (full)
        for (const k of [0.5, 1.5, 2.5, 3.5])
          s.chord(
            b + k,
            chord.slice(1).map((p) => p + 12),
            55,
            2,
            0.3,
            5,
          );
      if (section === 'chorus' || section === 'bridge') melodyBar(s, ctx, 3, 78, phrase(ctx, 1), 74);
    },
  }),
  compose({
    title: 'Neon Tide',
    mood: 'energetic',
    bpm: 126,
    seed: 202,
    description: 'four-on-the-floor dance: kick on every beat, synth bass, pads and a lead',
    programs: { 0: 38, 1: 89, 2: 81, 3: 90 },
    form: [
      ['intro', 8, [C.Am, C.F, C.C, C.G]],
      ['build', 8, [C.Am, C.F, C.C, C.G]],
      ['drop', 16, [C.Am, C.F, C.C, C.G]],
      ['break', 8, [C.F, C.G, C.Am, C.Am]],
      ['build', 8, [C.Am, C.F, C.C, C.G]],
      ['drop', 16, [C.Am, C.F, C.C, C.G]],
      ['drop', 16, [C.F, C.G, C.Am, C.C]],
      ['outro', 8, [C.Am, C.F, C.C, C.G]],
    ],
    play(s, ctx) {
      const { b, chord, section, i } = ctx;
      const drop = section === 'drop';
      s.chord(
        b,
        chord.map((p) => p + 12),
        section === 'break' ? 75 : 55,
        1,
        4,
      );
      if (section === 'break') {
        for (let k = 0; k < 4; k++) s.note(b + k, chord[2] + 12, 60, 3, 0.9);
        return;
      }
      if (drop && i % 8 === 0) s.hit(b, D.crash, 105);
      for (let k = 0; k < 4; k++) {
        s.hit(b + k, D.kick, 120);
        if (k % 2) s.hit(b + k, D.clap, section === 'intro' ? 70 : 95);
        s.hit(b + k + 0.5, D.openHat, section === 'intro' ? 45 : 75);
        for (const q of [0.25, 0.75]) s.hit(b + k + q, D.closedHat, 35);
        // The bass sits on the beat with the kick, then answers on the eighth after.
        s.note(b + k, bass(chord) + 12, 110, 0, 0.3);
        if (section !== 'intro') s.note(b + k + 0.5, bass(chord) + 24, 80, 0, 0.25);
      }
      if (section === 'build' && i >= 4) for (let q = 0; q < 8; q++) s.hit(b + q / 2, D.snare, 50 + (i - 4) * 12);
      if (drop) melodyBar(s, ctx, 2, 72, phrase(ctx, 0), 76);
    },
  }),
  compose({
    title: 'Paper Lanterns',
    mood: 'chill',
    bpm: 86,
    seed: 303,
    description: 'lo-fi hip-hop: swung drums, mellow electric piano and a round bass',
    programs: { 0: 32, 1: 4, 2: 11 },
    form: [
      ['intro', 4, [C.Fmaj7, C.Em, C.Dm7, C.Cmaj7]],
      ['a', 16, [C.Fmaj7, C.Em, C.Dm7, C.Cmaj7]],
      ['b', 8, [C.Am7, C.Dm7, C.G, C.Cmaj7]],
      ['a', 16, [C.Fmaj7, C.Em, C.Dm7, C.Cmaj7]],
      ['b', 8, [C.Am7, C.Dm7, C.G, C.Cmaj7]],
      ['outro', 4, [C.Fmaj7, C.Em, C.Dm7, C.Cmaj7]],
    ],
    play(s, ctx) {
      const { b, chord, section } = ctx;
      const swing = 0.58;
      s.chord(b, chord, 62, 1, 1.8, 12);
      s.chord(b + 2 + swing - 0.5, chord, 52, 1, 1.4, 12);
      if (section === 'intro' || section === 'outro') {
        for (let k = 0; k < 4; k++) s.hit(b + k, D.stick, 45);
        return;
      }
      s.hit(b, D.kick, 112);
      s.hit(b + 1 + swing, D.kick, 85);
      s.hit(b + 2.5, D.kick, 95);
      s.hit(b + 1, D.snare, 100);
      s.hit(b + 3, D.snare, 100);
      for (let k = 0; k < 4; k++) {
        s.hit(b + k, D.closedHat, 65);
        s.hit(b + k + swing, D.closedHat, 40);
      }
      s.note(b, bass(chord), 100, 0, 1.4);
      s.note(b + 1.5 + (swing - 0.5), bass(chord), 75, 0, 0.4);
      s.note(b + 2.5, bass(chord) + 7, 90, 0, 1.2);
      if (section === 'b') melodyBar(s, ctx, 2, 65, phrase(ctx, 2), 79);
    },
  }),
  compose({
    title: 'Slow Orbit',
    mood: 'chill',
    bpm: 96,
    seed: 404,
    description: 'dreamy downtempo: warm pads, a steady soft kit, harp arpeggios and a flute',
    programs: { 0: 33, 1: 89, 2: 46, 3: 73 },
    form: [
      ['intro', 8, [C.C, C.Am, C.F, C.G]],
      ['a', 16, [C.C, C.Am, C.F, C.G]],
      ['b', 16, [C.F, C.G, C.Em, C.Am]],
      ['a', 16, [C.C, C.Am, C.F, C.G]],
      ['b', 8, [C.F, C.G, C.Em, C.Am]],
      ['outro', 8, [C.C, C.Am, C.F, C.G]],
    ],
    play(s, ctx) {
      const { b, chord, section } = ctx;
      s.chord(b, chord, 60, 1, 4);
      for (let e = 0; e < 8; e++) s.note(b + e / 2, chord[[0, 1, 2, 3, 2, 1, 2, 3][e]] + 12, e % 2 ? 55 : 70, 2, 0.6);
      if (section === 'intro') return;
      for (let k = 0; k < 4; k++) {
        s.hit(b + k, k % 2 ? D.stick : D.kick, k % 2 ? 75 : 100);
        s.hit(b + k + 0.5, D.shaker, 45);
        s.hit(b + k, D.shaker, 60);
      }
      s.note(b, bass(chord), 95, 0, 1.8);
      s.note(b + 2, bass(chord), 85, 0, 1.8);
      if (section === 'b') melodyBar(s, ctx, 3, 70, phrase(ctx, 3), 77);
    },
  }),
  compose({
    title: 'First Light',
    mood: 'cinematic',
    bpm: 100,
    seed: 505,
    description: 'cinematic build: strings, horns, choir, timpani and driving toms',
    programs: { 0: 48, 1: 60, 2: 52, 3: 47, 4: 43 },
    form: [
      ['intro', 8, [C.Am, C.F, C.C, C.G]],
      ['rise', 16, [C.Am, C.F, C.C, C.G]],
      ['theme', 16, [C.F, C.G, C.Am, C.C]],
      ['calm', 8, [C.Am, C.F, C.C, C.G]],
      ['theme', 16, [C.F, C.G, C.Am, C.C]],
      ['outro', 4, [C.F, C.G, C.C, C.C]],
    ],
    play(s, ctx) {
      const { b, chord, section, i } = ctx;
      const big = section === 'theme';
      s.chord(b, chord, big ? 85 : 65, 0, 4);
      s.note(b, bass(chord), 90, 4, 4);
      if (section === 'calm') {
        s.chord(
          b,
          chord.map((p) => p + 12),
          50,
          2,
          4,
        );
        for (let k = 0; k < 4; k++) s.note(b + k, chord[2] + 12, 50, 1, 0.9);
        return;
      }
      if (big && i % 4 === 0) s.hit(b, D.crash, 100);
      for (let k = 0; k < 4; k++) {
        s.note(b + k, bass(chord) + 12, k === 0 ? 110 : 85, 3, 0.5);
        if (section !== 'intro') {
          // A kick on every beat under the toms: the pulse a cut follows.
          s.hit(b + k, D.kick, 105);
          s.hit(b + k, D.floorTom, k % 2 ? 70 : 95);
          if (k === 3) s.hit(b + k + 0.5, D.midTom, 55);
          if (k % 2) s.hit(b + k, D.snare, 95);
        }
      }
      if (big) {
        s.chord(
          b,
          chord.map((p) => p + 12),
          70,
          2,
          4,
        );
        melodyBar(s, ctx, 1, 85, phrase(ctx, 0), 72);
      }
    },
  }),
  compose({
    title: 'Backroad Stomp',
    mood: 'acoustic',
    bpm: 138,
    seed: 606,
    description: 'folk stomp: strummed steel guitar, upright bass, claps, kick and a whistle tune',
    programs: { 0: 32, 1: 25, 2: 78, 3: 22 },
    form: [
      ['intro', 4, [C.G, C.D, C.Em, C.C]],
      ['verse', 16, [C.G, C.D, C.Em, C.C]],
      ['chorus', 16, [C.C, C.G, C.D, C.G]],
      ['verse', 16, [C.G, C.D, C.Em, C.C]],
      ['chorus', 16, [C.C, C.G, C.D, C.G]],
      ['break', 8, [C.Em, C.C, C.G, C.D]],
      ['chorus', 16, [C.C, C.G, C.D, C.G]],
      ['outro', 4, [C.G, C.D, C.G, C.G]],
    ],
    play(s, ctx) {
      const { b, chord, section } = ctx;
      for (const [pos, vel, dir] of [
        [0, 90, 14],
        [1, 70, -10],
        [1.5, 60, 10],
        [2, 85, 14],
        [3, 70, -10],
        [3.5, 60, 10],
      ])
        s.chord(b + pos, chord, vel, 1, 0.45, dir);
      if (section === 'intro') return;
      for (let k = 0; k < 4; k++) {
        s.hit(b + k, D.kick, k % 2 ? 90 : 118);
        if (k % 2) s.hit(b + k, D.clap, 95);
        s.hit(b + k + 0.5, D.tambourine, 50);
        s.note(b + k, bass(chord) + (k % 2 ? 7 : 0), 100, 0, 0.7);
      }
      if (section === 'chorus') melodyBar(s, ctx, 2, 70, phrase(ctx, 1), 81, 7);
      if (section === 'break') melodyBar(s, ctx, 3, 60, phrase(ctx, 2), 72, 7);
    },
  }),
];

function render({ song }, file) {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'reelsmith-starter-music-'));
  try {
    const mid = path.join(tmp, 'song.mid');
    const wav = path.join(tmp, 'song.wav');
    fs.writeFileSync(mid, writeMidi(song.midi));
    execFileSync('fluidsynth', ['-ni', '-q', '-g', '0.6', '-r', '44100', '-F', wav, SOUND_FONT, mid], { stdio: 'ignore' });
    const d = song.durationSec.toFixed(3);
    const fade = `afade=t=in:d=0.05,afade=t=out:st=${(song.durationSec - song.fadeOutSec).toFixed(3)}:d=${song.fadeOutSec}`;
    // Loudness as streaming services play it (-14 LUFS), peaks kept under full scale.
    execFileSync('ffmpeg', [
      ...['-nostdin', '-v', 'error', '-y', '-i', wav],
      ...['-af', `atrim=0:${d},apad=whole_dur=${d},${fade},loudnorm=I=-14:TP=-1.5:LRA=11,aresample=44100`],
      ...['-c:a', 'libmp3lame', '-b:a', BITRATE, '-metadata', `title=${path.basename(file, '.mp3')}`, '-metadata', 'artist=Reelsmith'],
      file,
    ]);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

const only = process.env.ONLY;
for (const t of songs) {
  if (only && t.title !== only) continue;
  const dir = path.join(OUT, t.mood);
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${t.title}.mp3`);
  render(t, file);
  const minutes = `${Math.floor(t.song.durationSec / 60)}:${String(Math.round(t.song.durationSec % 60)).padStart(2, '0')}`;
  fs.writeFileSync(
    `${file}.LICENSE.txt`,
    `"${t.title}" (${minutes}, ${t.bpm} BPM, ${t.mood}): ${t.description}.\n` +
      'Source: composed and rendered by the Reelsmith authors (scripts/make-starter-music.js: a score played by FluidSynth ' +
      'with the FluidR3_GM General MIDI sound font by Frank Wen, MIT licence).\n' +
      'Licence: CC0 1.0 Universal (public domain dedication), https://creativecommons.org/publicdomain/zero/1.0/\n',
  );
  console.log(`${path.relative(root, file)}  ${minutes}  ${t.bpm} BPM  ${(fs.statSync(file).size / 1e6).toFixed(2)} MB`);
}
