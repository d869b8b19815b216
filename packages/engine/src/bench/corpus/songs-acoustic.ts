/** Corpus songs in acoustic and orchestral styles: the time kept by bass, strums and hand percussion, often with rubato. */
import { beatTimes, CHORDS, DRUM, POP, root, rubato, SongBuilder, steady, type Chord, type Song } from './song-kit.js';

const D = DRUM;

/** Waltz, 3/4 at 160: bass on 1, piano chords on 2 and 3, a flute melody. */
export function waltz(): Song {
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
export function bossa(): Song {
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
export function pianoBallad(): Song {
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
export function strummedGuitar(): Song {
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

/** 6/8 folk ballad: two dotted-quarter beats a bar at 76, guitar arpeggios in eighths. */
export function sixEight(): Song {
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
export function baiao(): Song {
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
export function orchestral(): Song {
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
