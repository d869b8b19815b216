/** Corpus songs for a band or a drum machine: a kit (or its samples) keeps the time, from dance and rock to jazz and trap. */
import { beatTimes, CHORDS, DRUM, MINOR, POP, root, SongBuilder, steady, type Song } from './song-kit.js';

const D = DRUM;

/** Dance, 126: four on the floor, open hats and bass on the off-beat, a four-bar breakdown. */
export function dance(): Song {
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

/** House, 124: four on the floor, a side-chained pad pumping on every beat, off-beat bass. */
export function house(): Song {
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
export function reggae(): Song {
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
export function rock(): Song {
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
export function hipHop(): Song {
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

/** Pop band, 112: a quiet piano intro, the band, a two-bar break, the band again, a fade-out. */
export function introBreakFade(): Song {
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
export function punk(): Song {
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
export function jazz(): Song {
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
export function pop(): Song {
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
export function funk(): Song {
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
export function trap(): Song {
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
