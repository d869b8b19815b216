/**
 * The beat corpus: songs in the styles people bring, written as scores (MIDI notes at exact beat
 * positions, with a player's timing jitter) and played by sampled General MIDI instruments
 * (corpus.ts renders them). The true beats and downbeats are the score's.
 */
import { beatTimes, CHORDS, DRUM, rubato, SongBuilder, type Chord, type Song } from './song-kit.js';

const D = DRUM;
const POP: Chord[] = [CHORDS.C, CHORDS.G, CHORDS.Am, CHORDS.F];
const MINOR: Chord[] = [CHORDS.Am, CHORDS.F, CHORDS.C, CHORDS.G];
const root = (c: Chord) => c[0]! - 12;
const steady = (bpm: number) => () => bpm;

/** Dance, 126: four on the floor, open hats and bass on the off-beat, a four-bar breakdown. */
function dance(): Song {
  const s = new SongBuilder(beatTimes(72, steady(126)), 4, 11, 3).program(0, 38).program(1, 89).program(2, 81);
  for (let bar = 0; bar < 18; bar++) {
    const b = s.bar(bar);
    const ch = MINOR[bar % 4]!;
    const breakdown = bar >= 8 && bar < 12;
    s.chord(
      b,
      ch.map((p) => p + 12),
      breakdown ? 70 : 55,
      1,
      4,
    );
    for (let k = 0; k < 4; k++) {
      if (breakdown) {
        if (k % 2 === 0) s.note(b + k + 0.5, ch[2]! + 24, 80, 2, 0.4);
        continue;
      }
      s.hit(b + k, D.kick, 115);
      s.hit(b + k + 0.5, D.openHat, 100);
      s.hit(b + k + 0.25, D.closedHat, 45);
      s.hit(b + k + 0.75, D.closedHat, 45);
      if (k % 2) s.hit(b + k, D.clap, 90);
      s.note(b + k + 0.5, root(ch), 112, 0, 0.4);
    }
  }
  return s.song({ name: 'dance-126', description: 'dance 126, off-beat hats and bass, breakdown', bpm: '126' });
}

/** Waltz, 3/4 at 160: bass on 1, piano chords on 2 and 3, a flute melody. */
function waltz(): Song {
  const s = new SongBuilder(beatTimes(84, steady(160)), 3, 12, 10).program(0, 32).program(1, 0).program(2, 73);
  const prog: Chord[] = [CHORDS.C, CHORDS.G, CHORDS.G, CHORDS.C, CHORDS.F, CHORDS.C, CHORDS.G, CHORDS.C];
  for (let bar = 0; bar < 28; bar++) {
    const b = s.bar(bar);
    const ch = prog[bar % 8]!;
    s.note(b, root(ch), 100, 0, 1);
    s.chord(
      b + 1,
      ch.slice(1).map((p) => p + 12),
      68,
      1,
      0.7,
    );
    s.chord(
      b + 2,
      ch.slice(1).map((p) => p + 12),
      62,
      1,
      0.7,
    );
    if (bar % 2 === 0) s.note(b, ch[3]! + 12, 78, 2, 2.5);
    else s.note(b + 1, ch[2]! + 12, 70, 2, 2);
  }
  return s.song({ name: 'waltz-160', description: 'waltz 3/4 160, bass on 1, chords on 2 and 3', bpm: '160' });
}

/** Bossa nova, 132: clave on the rim, syncopated nylon guitar, bass 1 / 2-and, soft shaker. */
function bossa(): Song {
  const s = new SongBuilder(beatTimes(80, steady(132)), 4, 13, 8).program(0, 32).program(1, 24);
  const prog: Chord[] = [CHORDS.Cmaj7, CHORDS.Dm, CHORDS.G, CHORDS.Cmaj7];
  for (let bar = 0; bar < 20; bar++) {
    const b = s.bar(bar);
    const ch = prog[bar % 4]!;
    const clave = bar % 2 === 0 ? [0, 1.5, 3] : [1, 2.5];
    for (const c of clave) s.hit(b + c, D.stick, 85);
    for (const g of bar % 2 === 0 ? [0, 1.5, 2.5] : [0.5, 1.5, 3]) s.chord(b + g, ch, 72, 1, 0.6, 6);
    for (const [p, n] of [
      [0, root(ch)],
      [1.5, root(ch) + 7],
      [2, root(ch) + 7],
      [3.5, root(ch)],
    ] as const)
      s.note(b + p, n, 95, 0, 0.9);
    s.hit(b, D.kick, 60);
    s.hit(b + 2, D.kick, 55);
    for (let k = 0; k < 8; k++) s.hit(b + k / 2, D.shaker, k % 2 ? 40 : 55);
  }
  return s.song({ name: 'bossa-132', description: 'bossa nova 132, clave, syncopated guitar', bpm: '132' });
}

/** Solo piano ballad, 70 with rubato: bass notes, eighth-note arpeggios, a melody. */
function pianoBallad(): Song {
  const s = new SongBuilder(beatTimes(48, rubato(70, 0.06, 16, 3)), 4, 14, 15).program(0, 0);
  for (let bar = 0; bar < 12; bar++) {
    const b = s.bar(bar);
    const ch = POP[bar % 4]!;
    s.note(b, root(ch), 80, 0, 2);
    s.note(b + 2, root(ch) + 7, 65, 0, 2);
    for (let k = 0; k < 8; k++) s.note(b + k / 2, ch[1 + (k % 3)]!, k % 2 ? 40 : 52, 0, 0.6);
    s.note(b, ch[3]! + 12, 85, 0, 1.5);
    s.note(b + 1.5, ch[2]! + 12, 70, 0, 1);
    s.note(b + 3, ch[1]! + 24, 72, 0, 1);
  }
  return s.song({ name: 'piano-ballad-70', description: 'solo piano ballad 70, rubato', bpm: '70 (rubato)', rubato: true });
}

/** Solo strummed steel guitar, 96 rising to 108: down, down-up, up-down-up. */
function strummedGuitar(): Song {
  const s = new SongBuilder(
    beatTimes(72, (i) => 96 + (12 * i) / 72),
    4,
    15,
    10,
  ).program(0, 25);
  for (let bar = 0; bar < 18; bar++) {
    const b = s.bar(bar);
    const ch = [CHORDS.G, CHORDS.Em, CHORDS.C, CHORDS.D7][bar % 4]!;
    const down = ch.map((p) => p - 5 + 12).concat([ch[3]! + 12]);
    const up = down.slice(2);
    s.chord(b, down, 100, 0, 1, 12);
    s.chord(b + 1, down, 88, 0, 0.5, 10);
    s.chord(b + 1.5, up, 62, 0, 0.5, -7);
    s.chord(b + 2.5, up, 66, 0, 0.5, -7);
    s.chord(b + 3, down, 86, 0, 0.5, 10);
    s.chord(b + 3.5, up, 60, 0, 0.5, -7);
  }
  return s.song({ name: 'strummed-guitar', description: 'solo strummed guitar 96 -> 108', bpm: '96->108' });
}

/** House, 124: four on the floor, a side-chained pad pumping on every beat, off-beat bass. */
function house(): Song {
  const s = new SongBuilder(beatTimes(72, steady(124)), 4, 16, 3).program(0, 39).program(1, 90);
  for (let bar = 0; bar < 18; bar++) {
    const b = s.bar(bar);
    const ch = [CHORDS.Am, CHORDS.Em, CHORDS.F, CHORDS.G][bar % 4]!;
    s.chord(
      b,
      ch.map((p) => p + 12),
      100,
      1,
      4,
    );
    for (let k = 0; k < 4; k++) {
      // Side-chain pumping: the pad ducks on the kick and swells back over the beat.
      for (const [f, v] of [
        [0, 20],
        [0.1, 50],
        [0.25, 80],
        [0.5, 110],
        [0.75, 127],
      ] as const)
        s.cc(b + k + f, 1, 11, v);
      s.hit(b + k, D.kick, 118);
      s.hit(b + k + 0.5, D.openHat, 80);
      for (const q of [0.25, 0.75]) s.hit(b + k + q, D.closedHat, 40);
      if (k % 2) s.hit(b + k, D.clap, 80);
      s.note(b + k + 0.5, root(ch), 118, 0, 0.35);
      s.note(b + k + 0.75, root(ch) + 12, 70, 0, 0.2);
    }
  }
  return s.song({ name: 'house-124', description: 'house 124, side-chain pumping pad, off-beat bass', bpm: '124' });
}

/** Reggae one-drop, 76: kick and rim on 3 only, skank on every off-beat, a walking bass. */
function reggae(): Song {
  const s = new SongBuilder(beatTimes(48, steady(76)), 4, 17, 9).program(0, 33).program(1, 27).program(2, 16);
  for (let bar = 0; bar < 12; bar++) {
    const b = s.bar(bar);
    const ch = [CHORDS.Am, CHORDS.Dm, CHORDS.G, CHORDS.C][bar % 4]!;
    s.hit(b + 2, D.kick, 110);
    s.hit(b + 2, D.stick, 100);
    for (let k = 0; k < 8; k++) s.hit(b + k / 2, D.closedHat, k % 2 ? 35 : 50);
    for (let k = 0; k < 4; k++) {
      s.chord(
        b + k + 0.5,
        ch.map((p) => p + 12),
        95,
        1,
        0.2,
        4,
      );
      s.chord(
        b + k + 0.5,
        ch.map((p) => p + 12),
        60,
        2,
        0.25,
      );
    }
    for (const [p, d] of [
      [0, 0.75],
      [1, 0.5],
      [1.5, 0.5],
      [2.5, 0.5],
      [3, 0.75],
    ] as const)
      s.note(b + p, root(ch) + (p === 1.5 ? 7 : 0), 100, 0, d);
  }
  return s.song({ name: 'reggae-one-drop-76', description: 'reggae one-drop 76, skank on the off-beats', bpm: '76' });
}

/** Rock, 82: kick 1 and 3, snare 2 and 4, eighth hats, eighth-note bass and power chords. */
function rock(): Song {
  const s = new SongBuilder(beatTimes(56, steady(82)), 4, 18, 7).program(0, 33).program(1, 30);
  for (let bar = 0; bar < 14; bar++) {
    const b = s.bar(bar);
    const ch = [CHORDS.Em, CHORDS.C, CHORDS.G, CHORDS.D7][bar % 4]!;
    if (bar % 4 === 0) s.hit(b, D.crash, 95);
    s.hit(b, D.kick, 110);
    s.hit(b + 2, D.kick, 105);
    s.hit(b + 2.5, D.kick, 80);
    s.hit(b + 1, D.snare, 110);
    s.hit(b + 3, D.snare, 110);
    for (let k = 0; k < 8; k++) {
      s.hit(b + k / 2, D.closedHat, k % 2 ? 55 : 75);
      s.note(b + k / 2, root(ch), k % 2 ? 85 : 95, 0, 0.45);
      s.chord(b + k / 2, [ch[0]!, ch[0]! + 7], k % 2 ? 80 : 95, 1, 0.4);
    }
  }
  return s.song({ name: 'rock-82', description: 'rock 82, eighth notes in bass and guitar', bpm: '82' });
}

/** Hip-hop, 90, swung sixteenths on the hats, kick and bass together, snare 2 and 4. */
function hipHop(): Song {
  const s = new SongBuilder(beatTimes(56, steady(90)), 4, 19, 6).program(0, 38).program(1, 4);
  const sw = (q: number) => (q % 0.5 === 0.25 ? q + 0.07 : q);
  for (let bar = 0; bar < 14; bar++) {
    const b = s.bar(bar);
    const ch = [CHORDS.Dm, CHORDS.Am, CHORDS.Dm, CHORDS.E][bar % 4]!;
    for (const k of [0, 0.75, 2.5]) {
      s.hit(b + sw(k), D.kick, 112);
      s.note(b + sw(k), root(ch), 105, 0, 0.5);
    }
    s.hit(b + 1, D.snare, 108);
    s.hit(b + 3, D.snare, 108);
    for (let k = 0; k < 16; k++) s.hit(b + sw(k / 4), D.closedHat, [70, 35, 55, 40][k % 4]!);
    s.chord(b, ch, 55, 1, 1.5);
    s.chord(b + sw(2.25), ch, 50, 1, 1);
  }
  return s.song({ name: 'hip-hop-90', description: 'hip-hop 90, swung sixteenths', bpm: '90' });
}

/** 6/8 folk ballad: two dotted-quarter beats a bar at 76, guitar arpeggios in eighths. */
function sixEight(): Song {
  const s = new SongBuilder(beatTimes(40, steady(76)), 2, 20, 8).program(0, 25).program(1, 32);
  for (let bar = 0; bar < 20; bar++) {
    const b = s.bar(bar);
    const ch = [CHORDS.G, CHORDS.Em, CHORDS.C, CHORDS.D7][Math.floor(bar / 2) % 4]!;
    for (let e = 0; e < 6; e++) s.note(b + e / 3, ch[[0, 1, 2, 3, 2, 1][e]!]! + 12, e % 3 ? 55 : 78, 0, 0.5);
    s.note(b, root(ch), 95, 1, 0.9);
    s.note(b + 1, root(ch) + 7, 80, 1, 0.9);
    s.hit(b, D.kick, 95);
    s.hit(b + 1, D.stick, 80);
    for (let e = 0; e < 6; e++) s.hit(b + e / 3, D.tambourine, e % 3 ? 30 : 55);
  }
  return s.song({ name: 'six-eight-76', description: '6/8, dotted quarter 76', bpm: '76' });
}

/** Baião, 2/4 at 112: zabumba (dotted-eighth + sixteenth + beat 2), triangle, accordion. */
function baiao(): Song {
  const s = new SongBuilder(beatTimes(68, steady(112)), 2, 21, 7).program(0, 32).program(1, 21);
  for (let bar = 0; bar < 34; bar++) {
    const b = s.bar(bar);
    const ch = [CHORDS.G, CHORDS.G, CHORDS.D7, CHORDS.D7, CHORDS.C, CHORDS.G, CHORDS.D7, CHORDS.G][bar % 8]!;
    s.hit(b, D.kick, 110);
    s.hit(b, D.floorTom, 90);
    s.hit(b + 0.75, D.floorTom, 80);
    s.hit(b + 1, D.kick, 100);
    s.hit(b + 1.5, D.stick, 70);
    for (let k = 0; k < 8; k++) s.hit(b + k / 4, k % 4 === 2 ? D.triangle : D.muteTriangle, k % 4 === 2 ? 80 : 50);
    s.note(b, root(ch), 100, 0, 0.7);
    s.note(b + 0.75, root(ch) + 7, 85, 0, 0.25);
    s.note(b + 1, root(ch) + 12, 90, 0, 0.9);
    s.chord(b + 0.5, ch.slice(1), 70, 1, 0.3);
    s.chord(b + 1.5, ch.slice(1), 70, 1, 0.3);
  }
  return s.song({ name: 'baiao-112', description: 'baião 2/4 112, zabumba and triangle', bpm: '112' });
}

/** Orchestral, 84 with rubato: strings, pizzicato bass on the beat, timpani on 1, a horn. */
function orchestral(): Song {
  const s = new SongBuilder(beatTimes(48, rubato(84, 0.05, 16, 7)), 4, 22, 14).program(0, 48).program(1, 45).program(2, 60).program(3, 47);
  for (let bar = 0; bar < 12; bar++) {
    const b = s.bar(bar);
    const ch = [CHORDS.Dm, CHORDS.A7, CHORDS.Dm, CHORDS.G, CHORDS.C, CHORDS.F, CHORDS.A7, CHORDS.Dm][bar % 8]!;
    s.chord(b, ch, 70, 0, 2);
    s.chord(b + 2, ch, 62, 0, 2);
    for (let k = 0; k < 4; k++) s.note(b + k, root(ch), k ? 70 : 90, 1, 0.5);
    s.note(b, root(ch) - 12 + 24, 95, 3, 0.5);
    s.note(b, ch[3]! + 12, 80, 2, 1.5);
    s.note(b + 1.5, ch[2]! + 12, 72, 2, 0.5);
    s.note(b + 2, ch[1]! + 12, 76, 2, 2);
  }
  return s.song({ name: 'orchestral-84', description: 'orchestral 84, rubato', bpm: '84 (rubato)', rubato: true });
}

/** Pop band, 112: a quiet piano intro, the band, a two-bar break, the band again, a fade-out. */
function introBreakFade(): Song {
  const s = new SongBuilder(beatTimes(88, steady(112)), 4, 23, 6).program(0, 33).program(1, 0).program(2, 89).program(3, 29);
  for (let bar = 0; bar < 22; bar++) {
    const b = s.bar(bar);
    const ch = POP[bar % 4]!;
    const intro = bar < 4;
    const brk = bar === 12 || bar === 13;
    s.chord(
      b,
      ch.map((p) => p + 12),
      intro ? 30 : 60,
      2,
      4,
    );
    for (let k = 0; k < 4; k++)
      s.chord(
        b + k,
        ch.slice(1).map((p) => p + 12),
        intro ? 30 : 70,
        1,
        0.8,
      );
    if (intro || brk) continue;
    for (let k = 0; k < 4; k++) {
      s.hit(b + k, k % 2 ? D.snare : D.kick, 105);
      s.note(b + k, root(ch), 95, 0, 0.8);
      s.chord(b + k + 0.5, [ch[0]!, ch[0]! + 7, ch[0]! + 12], 70, 3, 0.4);
    }
    s.hit(b + 2.5, D.kick, 80);
    for (let k = 0; k < 8; k++) s.hit(b + k / 2, D.closedHat, k % 2 ? 45 : 65);
  }
  return s.song({
    name: 'intro-break-fade-112',
    description: 'pop 112, quiet intro, a break, fade-out',
    bpm: '112',
    fadeOutSec: 10,
  });
}

/** Punk, 176: kick 1 and 3, snare 2 and 4, crash-ride eighths, down-picked power chords. */
function punk(): Song {
  const s = new SongBuilder(beatTimes(104, steady(176)), 4, 24, 5).program(0, 34).program(1, 30);
  for (let bar = 0; bar < 26; bar++) {
    const b = s.bar(bar);
    const ch = [CHORDS.E, CHORDS.C, CHORDS.G, CHORDS.D7][bar % 4]!;
    s.hit(b, D.kick, 115);
    s.hit(b + 2, D.kick, 110);
    s.hit(b + 1, D.snare, 115);
    s.hit(b + 3, D.snare, 115);
    if (bar % 4 === 0) s.hit(b, D.crash, 100);
    for (let k = 0; k < 8; k++) {
      s.hit(b + k / 2, D.ride, k % 2 ? 60 : 80);
      s.note(b + k / 2, root(ch), 100, 0, 0.45);
      s.chord(b + k / 2, [ch[0]!, ch[0]! + 7, ch[0]! + 12], 100, 1, 0.45);
    }
  }
  return s.song({ name: 'punk-176', description: 'punk 176, eighth-note power chords', bpm: '176' });
}

/** Jazz swing trio, 138: ride ding ding-a ding, hi-hat on 2 and 4, walking bass, comping. */
function jazz(): Song {
  const s = new SongBuilder(beatTimes(80, steady(138)), 4, 25, 8).program(0, 32).program(1, 0);
  const walk = [0, 2, 4, 5, 7, 5, 4, 2];
  for (let bar = 0; bar < 20; bar++) {
    const b = s.bar(bar);
    const ch = [CHORDS.Dm, CHORDS.G, CHORDS.Cmaj7, CHORDS.A7][bar % 4]!;
    for (const r of [0, 1, 1 + 2 / 3, 2, 3, 3 + 2 / 3]) s.hit(b + r, D.ride, r % 1 ? 55 : 80);
    s.hit(b + 1, D.pedalHat, 70);
    s.hit(b + 3, D.pedalHat, 70);
    for (let k = 0; k < 4; k++) {
      s.hit(b + k, D.kick, 28);
      s.note(b + k, root(ch) + walk[(bar % 2) * 4 + k]!, 95, 0, 0.9);
    }
    s.chord(
      b + 1 + 2 / 3,
      ch.slice(1).map((p) => p + 12),
      60,
      1,
      0.5,
    );
    if (bar % 2)
      s.chord(
        b + 3 + 2 / 3,
        ch.slice(1).map((p) => p + 12),
        55,
        1,
        0.5,
      );
  }
  return s.song({ name: 'jazz-swing-138', description: 'jazz swing trio 138', bpm: '138' });
}

/** Pop, 104: band with piano on every beat. */
function pop(): Song {
  const s = new SongBuilder(beatTimes(64, steady(104)), 4, 26, 6).program(0, 33).program(1, 0).program(2, 89);
  for (let bar = 0; bar < 16; bar++) {
    const b = s.bar(bar);
    const ch = POP[bar % 4]!;
    s.hit(b, D.kick, 110);
    s.hit(b + 1.5, D.kick, 85);
    s.hit(b + 2, D.kick, 105);
    s.hit(b + 1, D.snare, 105);
    s.hit(b + 3, D.snare, 105);
    for (let k = 0; k < 8; k++) {
      s.hit(b + k / 2, D.closedHat, k % 2 ? 45 : 65);
      s.note(b + k / 2, root(ch), k % 2 ? 75 : 90, 0, 0.45);
    }
    for (let k = 0; k < 4; k++)
      s.chord(
        b + k,
        ch.slice(1).map((p) => p + 12),
        65,
        1,
        0.9,
      );
    s.chord(
      b,
      ch.map((p) => p + 12),
      50,
      2,
      4,
    );
  }
  return s.song({ name: 'pop-104', description: 'pop band 104', bpm: '104' });
}

/** Funk, 98 stepping to 116: syncopated kick, ghost notes, sixteenth hats, slap bass, clavinet. */
function funk(): Song {
  const s = new SongBuilder(
    beatTimes(64, (i) => (i < 32 ? 98 : 116)),
    4,
    27,
    5,
  )
    .program(0, 36)
    .program(1, 7);
  for (let bar = 0; bar < 16; bar++) {
    const b = s.bar(bar);
    const ch = [CHORDS.Em, CHORDS.A7][bar % 2]!;
    for (const k of [0, 0.75, 2.5]) s.hit(b + k, D.kick, 110);
    s.hit(b + 1, D.snare, 110);
    s.hit(b + 3, D.snare, 110);
    for (const g of [1.75, 2.25, 3.75]) s.hit(b + g, D.snare, 35);
    for (let k = 0; k < 16; k++) s.hit(b + k / 4, D.closedHat, k % 2 ? 40 : 60);
    for (const p of [0, 0.75, 1.5, 2.5, 2.75, 3.5]) s.note(b + p, root(ch) + (p === 1.5 ? 12 : 0), 100, 0, 0.2);
    for (const p of [0.25, 1.25, 1.75, 2.25, 3.25])
      s.chord(
        b + p,
        ch.slice(1).map((q) => q + 12),
        70,
        1,
        0.15,
      );
  }
  return s.song({ name: 'funk-98-116', description: 'funk, step 98 -> 116', bpm: '98->116' });
}

/** Half-time trap, 140: hats on the eighths with rolls, snare on 3, long 808 bass with the kick. */
function trap(): Song {
  const s = new SongBuilder(beatTimes(80, steady(140)), 4, 28, 2).program(0, 38).program(1, 90);
  for (let bar = 0; bar < 20; bar++) {
    const b = s.bar(bar);
    const ch = [CHORDS.Am, CHORDS.F, CHORDS.C, CHORDS.G][Math.floor(bar / 2) % 4]!;
    for (let k = 0; k < 8; k++) s.hit(b + k / 2, D.closedHat, k % 2 ? 60 : 80);
    if (bar % 2) for (let k = 0; k < 6; k++) s.hit(b + 3 + k / 6, D.closedHat, 50);
    s.hit(b + 2, D.clap, 110);
    s.hit(b + 2, D.snare, 100);
    for (const k of bar % 2 ? [0, 1.5] : [0, 0.75, 3.5]) {
      s.hit(b + k, D.kick, 115);
      s.note(b + k, root(ch) - 12 + 12, 115, 0, 1);
    }
    s.chord(
      b,
      ch.map((p) => p + 12),
      45,
      1,
      4,
    );
  }
  return s.song({ name: 'trap-140', description: 'half-time trap 140', bpm: '140' });
}

/** Every corpus song. */
export function corpusSongs(): Song[] {
  return [
    dance(),
    waltz(),
    bossa(),
    pianoBallad(),
    strummedGuitar(),
    house(),
    reggae(),
    rock(),
    hipHop(),
    sixEight(),
    baiao(),
    orchestral(),
    introBreakFade(),
    punk(),
    jazz(),
    pop(),
    funk(),
    trap(),
  ];
}
