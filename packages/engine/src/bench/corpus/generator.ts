/**
 * A song generator for training and judging the beat model (tools/beat-model): procedural
 * compositions from style grammars, each with exact beats and downbeats.
 *
 * A style is a small grammar: a tempo range, the meter and the steps a beat is divided into, a
 * swing range, and for each voice (kick, snare, hats, ride, percussion, bass, chords, arpeggio, pad,
 * lead) a few bar patterns to draw from. A seed draws everything else: the tempo and how it moves
 * (steady with a player's drift, a ramp, a step, rubato), the General MIDI instruments of each
 * role, which voices play, their velocities, mix levels, swing and timing jitter, the key and the
 * chords, the arrangement (intro, verses, breaks, fills, an optional fade-out). Notes are placed on
 * the beat grid with each player's jitter, so the grid (the annotation) is exact.
 *
 * Pattern strings are one character per step of a bar: 'X' accented, 'x' played, 'o' a ghost
 * note, '?' played half the time, '.' silent. Bass patterns use 'R' (root), 'F' (fifth), 'O'
 * (octave), 'W' (walking: a chord tone or an approach) and '.', chord patterns 'x'/'X' (a short
 * hit) and 'L' (held to the next hit).
 */
import { mulberry32 } from '../../numeric.js';
import type { Control, MidiSong, Note } from './midi.js';

export interface GeneratedSong {
  name: string;
  style: string;
  seed: number;
  midi: MidiSong;
  /** Exact beat times (s). */
  beats: number[];
  /** Exact downbeat times (s), a subset of `beats`. */
  downbeats: number[];
  beatsPerBar: number;
  /** The median tempo (BPM). */
  bpm: number;
  durationSec: number;
  fadeOutSec?: number;
  /** Rubato: the pulse is judged as before (cuts >= 85 %, low confidence). */
  rubato: boolean;
}

type Voice = 'K' | 'S' | 'H' | 'O' | 'R' | 'P' | 'B' | 'C' | 'A' | 'L';

interface Style {
  name: string;
  bpm: [number, number];
  meter: number;
  /** Steps per beat. */
  sub: number;
  /** Where the second step of each pair lands within the pair (0.5 straight, 0.67 triplet swing). */
  swing?: [number, number];
  tempo?: 'steady' | 'rubato' | 'ramp' | 'step' | 'machine';
  /** Patterns per voice (one bar each). */
  p: Partial<Record<Voice, string[]>>;
  /** Probability that a voice plays at all (default 1 for those with patterns, 0.5 for the lead). */
  use?: Partial<Record<Voice, number>>;
  /** GM programs to draw from, per melodic role. */
  bass?: number[];
  comp?: number[];
  lead?: number[];
  pad?: number[] | null;
  /** Snare-ish note for 'S' (38 snare, 39 clap, 37 side stick, 40 electric snare). */
  snare?: number[];
  perc?: number[];
  /** Breakdowns (drums out, pad only), as in EDM. */
  breakdowns?: boolean;
  fadeOut?: number;
  quietIntro?: number;
}

const PIANOS = [0, 1, 2, 4, 5];
const GUITARS = [24, 25, 26, 27, 28, 29];
const ORGANS = [16, 17, 18, 19];
const BASSES = [32, 33, 34, 35, 36, 37, 38, 39];
const SYNTHBASS = [38, 39, 87];
const PADS = [48, 49, 50, 88, 89, 90, 91, 94, 95, 52];
const SYNTHS = [80, 81, 82, 84, 87, 90, 62, 63];
const LEADS = [56, 57, 60, 61, 64, 65, 66, 71, 73, 80, 81, 11, 12, 13, 40, 22];
const STRINGS = [40, 41, 42, 48, 49];

const four = 'X...x...x...x...';
const fourOff = '..x...x...x...x.';
const sixteenths = 'xoxoxoxoxoxoxoxo';
const eighths = 'x.x.x.x.x.x.x.x.';
const backbeat = '....X.......X...';

const STYLES: Style[] = [
  {
    name: 'house',
    bpm: [118, 130],
    meter: 4,
    sub: 4,
    tempo: 'machine',
    p: {
      K: [four],
      S: [backbeat, '....X..o....X...'],
      H: [fourOff, sixteenths, '..x.x.x...x.x.x.'],
      O: [fourOff, '..x...x...x...x.'],
      P: ['..x...x...x..x.x', 'x.xxx.xxx.xxx.xx'],
      B: ['..R...R...R...R.', '..R.R.O...R..FR.', 'R.R.R.R.R.R.R.R.'],
      C: ['..x...x...x...x.', 'x..x..x...x..x..', 'L...............'],
    },
    use: { O: 0.6, P: 0.4, C: 0.8 },
    bass: SYNTHBASS.concat(BASSES),
    comp: PIANOS.concat(ORGANS, SYNTHS),
    snare: [39, 38, 40],
    perc: [70, 54, 75, 64],
    breakdowns: true,
  },
  {
    name: 'techno',
    bpm: [124, 142],
    meter: 4,
    sub: 4,
    tempo: 'machine',
    p: {
      K: [four],
      S: ['................', backbeat, '....x.......x..o'],
      H: [fourOff, sixteenths, 'xxxxxxxxxxxxxxxx'],
      R: ['x.x.x.x.x.x.x.x.', '..x...x...x...x.'],
      P: ['x..x..x..x..x.x.', '..x..x....x..x..'],
      B: ['..R...R...R...R.', 'R..RR..RR..RR..R', '.RRR.RRR.RRR.RRR'],
      A: ['x.xxx.xxx.xxx.xx', 'xxxxxxxxxxxxxxxx'],
    },
    use: { S: 0.6, R: 0.5, P: 0.5, A: 0.5 },
    bass: SYNTHBASS,
    comp: SYNTHS,
    snare: [39, 40],
    perc: [56, 75, 62, 37],
    breakdowns: true,
  },
  {
    name: 'edm',
    bpm: [124, 132],
    meter: 4,
    sub: 4,
    tempo: 'machine',
    p: {
      K: [four],
      S: [backbeat],
      H: [fourOff, sixteenths],
      O: [fourOff],
      B: ['..R...R...R...R.', 'RRRRRRRRRRRRRRRR', '..R.R...R.R.R.R.'],
      C: ['..x...x...x...x.', 'x..x..x..x..x.x.', 'L.......L.......'],
      L: ['x..x..x...x.x...'],
    },
    use: { O: 0.5, L: 0.6 },
    bass: SYNTHBASS,
    comp: SYNTHS.concat(PADS),
    lead: SYNTHS,
    snare: [39, 38],
    breakdowns: true,
  },
  {
    name: 'pop',
    bpm: [88, 128],
    meter: 4,
    sub: 4,
    p: {
      K: ['X.....x.X.......', 'X.......X.x.....', 'X.....x.X..x....'],
      S: [backbeat, '....X.......X..o'],
      H: [eighths, sixteenths, 'x.x.x.x.x.x.x.xx'],
      B: ['R.....R.R...R...', 'R.R.R.R.R.R.R.R.', 'R......RR...F...'],
      C: ['x.x.x.x.x.x.x.x.', 'L.......L.......', 'x..x..x.x..x..x.', 'L...L...L...L...'],
      L: ['x.x.x...x.x.x...'],
    },
    use: { L: 0.6 },
    bass: BASSES,
    comp: PIANOS.concat(GUITARS, SYNTHS),
    lead: LEADS,
    pad: PADS,
    fadeOut: 0.3,
  },
  {
    name: 'rock',
    bpm: [96, 150],
    meter: 4,
    sub: 2,
    p: {
      K: ['X...X.x.', 'X..xX...', 'X.x.X...'],
      S: ['..X...X.'],
      H: ['xxxxxxxx', 'x.x.x.x.'],
      R: ['xxxxxxxx'],
      B: ['RRRRRRRR', 'R.RRR.RR', 'R.R.F.O.'],
      C: ['xxxxxxxx', 'L...L...', 'x.xxx.xx'],
      L: ['x.x.xx..'],
    },
    use: { R: 0.3, L: 0.5 },
    bass: [33, 34, 35, 29],
    comp: [29, 30, 27, 26, 18],
    lead: [29, 30, 56, 81],
    fadeOut: 0.3,
  },
  {
    name: 'ballad',
    bpm: [58, 80],
    meter: 4,
    sub: 4,
    p: {
      K: ['X.......X.......', 'X.........x.....'],
      S: ['....x.......x...'],
      H: [eighths, 'x...x...x...x...'],
      B: ['R.......R.......', 'R...........F...'],
      C: ['L...............', 'L.......L.......'],
      A: ['x.x.x.x.x.x.x.x.', 'x..xx..xx..xx..x'],
      L: ['x...x...x.x.x...'],
    },
    use: { K: 0.7, S: 0.7, H: 0.7, A: 0.7, L: 0.7 },
    bass: [32, 33, 35, 48],
    comp: PIANOS.concat(STRINGS, [24, 25]),
    lead: [40, 73, 71, 68, 0, 11],
    pad: STRINGS,
    snare: [37, 38],
    quietIntro: 0.5,
    fadeOut: 0.5,
  },
  {
    name: 'punk',
    bpm: [170, 205],
    meter: 4,
    sub: 2,
    p: {
      K: ['X.x.X.x.', 'X.X.X.X.', 'X..xX.x.'],
      S: ['..X...X.', '.x.x.x.x'],
      H: ['xxxxxxxx', 'x.x.x.x.'],
      B: ['RRRRRRRR'],
      C: ['xxxxxxxx', 'X.X.X.X.'],
    },
    bass: [33, 34, 35],
    comp: [29, 30],
    snare: [38, 40],
  },
  {
    name: 'metal',
    bpm: [170, 215],
    meter: 4,
    sub: 2,
    p: {
      K: ['xxxxxxxx', 'X.xxX.xx', 'X.X.X.X.'],
      S: ['..X...X.'],
      H: ['x.x.x.x.'],
      R: ['x.x.x.x.'],
      B: ['RRRRRRRR', 'R.RRR.RR'],
      C: ['xxxxxxxx', 'X.xxX.xx', 'L...L...'],
    },
    use: { H: 0.5, R: 0.5 },
    bass: [33, 34, 35, 36],
    comp: [30, 29],
  },
  {
    name: 'dnb',
    bpm: [168, 180],
    meter: 4,
    sub: 4,
    tempo: 'machine',
    p: {
      K: ['X.........X.....', 'X.........x..x..', 'X.x.......X.....'],
      S: ['....X.......X...', '....X..o.o..X..o'],
      H: ['x.x.x.x.x.x.x.x.', sixteenths],
      R: ['x...x...x...x...'],
      B: ['R.........R.....', 'R.......R.R.....', 'L...............'],
      C: ['L...............'],
    },
    use: { R: 0.4, C: 0.7 },
    bass: SYNTHBASS,
    comp: PADS,
    snare: [38, 40],
  },
  {
    name: 'hiphop',
    bpm: [78, 100],
    meter: 4,
    sub: 4,
    swing: [0.5, 0.64],
    p: {
      K: ['X.....x...x.....', 'X..x......x..x..', 'X.........X.x...'],
      S: [backbeat, '....X.......X..o'],
      H: [sixteenths, eighths, 'x.xxx.xxx.xxx.xx'],
      B: ['R.....R...R.....', 'R..R......R..R..'],
      C: ['L.......L.......', 'x.......x..x....'],
      L: ['x...x.x.....x...'],
    },
    use: { L: 0.4 },
    bass: BASSES,
    comp: PIANOS.concat([4, 11, 88, 89]),
    lead: LEADS,
    snare: [38, 39, 40],
  },
  {
    name: 'trap',
    // Half-time: the snare on every other beat; the beats are the fast pulse (140 means 140).
    bpm: [130, 160],
    meter: 4,
    sub: 4,
    tempo: 'machine',
    swing: [0.5, 0.6],
    p: {
      K: ['X.....x.........', 'X......x..x.....', 'X.........x..x..'],
      S: ['........X.......'],
      H: ['x.x.x.x.x.x.x.x.', 'xxxxx.x.x.xxxx.x', sixteenths],
      B: ['L.....L.........', 'L......L..L.....'],
      C: ['L...............', 'x...x...x...x...'],
    },
    bass: [38, 39, 87],
    comp: PADS.concat([11, 12, 8]),
    snare: [39, 38, 40],
  },
  {
    name: 'funk',
    bpm: [92, 118],
    meter: 4,
    sub: 4,
    p: {
      K: ['X.x...x.x.x.....', 'X..x..x...x..x..', 'X.x....x..x.....'],
      S: ['....X..o.o..X..o', '.o..X.o..o..X.o.'],
      H: [sixteenths, 'x.xxx.xxx.xxx.xx'],
      O: ['......x.......x.'],
      B: ['R..R..O.R.R...F.', 'R.RR..R..R.RR.O.', 'R...R..RR..R.R..'],
      C: ['.x.x.x.x.x.x.x.x', 'x..x..x...x..x..', '.xx..x.x.xx..x.x'],
      L: ['x.x...x.x...x...'],
    },
    use: { O: 0.5, L: 0.4 },
    bass: [33, 36, 37, 38],
    comp: [27, 28, 4, 16, 61],
    lead: [61, 56, 65, 66],
  },
  {
    name: 'reggae',
    bpm: [66, 88],
    meter: 4,
    sub: 4,
    swing: [0.5, 0.6],
    p: {
      K: ['........X.......', 'X.......X.......'],
      S: ['........X.......', '........x.......'],
      H: ['x.x.x.x.x.x.x.x.', 'x.xxx.xxx.xxx.xx'],
      B: ['R.....R.F...R...', 'R..RR......RF...', '..R.R.....R.R...'],
      C: ['..x...x...x...x.', '..X...X...X...X.'],
    },
    bass: [33, 34, 38],
    comp: [16, 17, 27, 4, 0],
    snare: [37, 38],
  },
  {
    name: 'dancehall',
    bpm: [88, 110],
    meter: 4,
    sub: 4,
    tempo: 'machine',
    p: {
      K: ['X...X...X...X...', 'X..x..x.X..x..x.'],
      S: ['...x..x....x..x.', '...X..X....X..X.'],
      H: [eighths, sixteenths],
      P: ['x..x..x.x..x..x.'],
      B: ['R..R..R.R..R..R.', 'R.....R.R.....R.'],
      C: ['..x...x...x...x.', 'L.......L.......'],
    },
    use: { P: 0.5 },
    bass: SYNTHBASS,
    comp: SYNTHS.concat([16, 4]),
    snare: [38, 39, 40],
    perc: [75, 56, 64],
  },
  {
    name: 'waltz',
    bpm: [84, 180],
    meter: 3,
    sub: 2,
    p: {
      K: ['X.....', 'X...x.'],
      S: ['..x.x.'],
      H: ['x.x.x.', 'xxxxxx'],
      B: ['R.....', 'R...F.', 'R.F.O.'],
      C: ['..x.x.', '..X.X.', 'L.....'],
      L: ['x.x.x.', 'x...x.'],
    },
    use: { K: 0.6, S: 0.5, H: 0.4, L: 0.6 },
    bass: [32, 33, 42, 58],
    comp: PIANOS.concat([21, 23, 24, 48, 16]),
    lead: [40, 21, 73, 68, 71],
    snare: [37, 38],
  },
  {
    name: 'jazz-waltz',
    bpm: [120, 200],
    meter: 3,
    sub: 2,
    swing: [0.6, 0.68],
    p: {
      R: ['x.xxx.', 'x.x.xx'],
      H: ['..x.x.', '..x...'],
      K: ['X.....', '......'],
      B: ['W.W.W.', 'R...F.'],
      C: ['..x.x.', '.x..x.', 'L.....'],
      L: ['x.xx.x'],
    },
    use: { L: 0.5 },
    bass: [32, 33],
    comp: [0, 4, 26],
    lead: [65, 66, 56, 73],
    snare: [37],
  },
  {
    name: 'six-eight',
    // Two dotted-quarter beats a bar.
    bpm: [50, 90],
    meter: 2,
    sub: 3,
    p: {
      K: ['X.....', 'X..x..'],
      S: ['...X..'],
      H: ['xxxxxx', 'x.xx.x'],
      B: ['R..R..', 'R....F', 'R.FO.F'],
      C: ['xxxxxx', 'L..L..', 'x.xx.x'],
      A: ['xxxxxx'],
      L: ['x.xx..'],
    },
    use: { A: 0.5, L: 0.5, K: 0.8, S: 0.8 },
    bass: BASSES,
    comp: PIANOS.concat(GUITARS, STRINGS),
    lead: LEADS,
  },
  {
    name: 'twelve-eight',
    // Four dotted-quarter beats a bar: a slow blues or a soul ballad in triplets.
    bpm: [48, 80],
    meter: 4,
    sub: 3,
    p: {
      K: ['X.....X.....', 'X.....X..x..'],
      S: ['...X.....X..'],
      H: ['xxxxxxxxxxxx', 'x.xx.xx.xx.x'],
      R: ['x.xx.xx.xx.x'],
      B: ['R..F..O..F..', 'R.FR.FR.FR.F', 'R.....R.....'],
      C: ['xxxxxxxxxxxx', 'L.....L.....', '.xx.xx.xx.xx'],
      L: ['x..x.x...x..'],
    },
    use: { R: 0.4, L: 0.5 },
    bass: BASSES,
    comp: PIANOS.concat(ORGANS, GUITARS),
    lead: [65, 66, 56, 27, 29, 22],
  },
  {
    name: 'swing',
    bpm: [110, 230],
    meter: 4,
    sub: 2,
    swing: [0.6, 0.7],
    p: {
      R: ['x.xxx.xx', 'x.x.x.xx'],
      H: ['..x...x.'],
      K: ['x.x.x.x.', '........'],
      S: ['.......o', '...o....'],
      B: ['W.W.W.W.'],
      C: ['..x...x.', '.x...x..', 'x..x..x.', '...x.x..'],
      L: ['x.xxx.x.', 'xxx.x.xx'],
    },
    use: { K: 0.3, S: 0.5, L: 0.6 },
    bass: [32, 33],
    comp: [0, 1, 4, 26, 16],
    lead: [56, 57, 65, 66, 64, 11, 73],
    snare: [38, 37],
  },
  {
    name: 'bossa',
    bpm: [120, 145],
    meter: 4,
    sub: 2,
    p: {
      K: ['X..xX..x', 'X..xX..xX..xX..x'.slice(0, 8)],
      S: ['x..x..x.', '..x..x..'],
      H: ['xxxxxxxx', 'x.x.x.x.'],
      B: ['R..FF..R', 'R..RF..F'],
      C: ['x.xx.x.x', 'x..x..x.', '.xx.x.x.'],
      L: ['x...x.x.'],
    },
    use: { H: 0.7, L: 0.5 },
    bass: [32, 33, 35],
    comp: [24, 25, 0, 4],
    lead: [73, 71, 65, 11],
    snare: [37, 75],
  },
  {
    name: 'samba',
    bpm: [88, 108],
    meter: 4,
    sub: 4,
    p: {
      K: ['X..xX..xX..xX..x', 'x...X...x...X...'],
      S: ['x.xxx.xxx.xxx.xx', 'x.x..x.x.x..x.x.'],
      H: ['xxxxxxxxxxxxxxxx'],
      P: ['x.x.xx.x.x.x.xx.', '..x.x..x.x.x..x.'],
      B: ['R..FR..FR..FR..F', 'R...F...R...F...'],
      C: ['x.xx.x.x.xx.x.x.', 'x..x..x..x..x.x.'],
    },
    use: { P: 0.7 },
    bass: [32, 33, 35],
    comp: [24, 25, 105, 0],
    snare: [38, 37],
    perc: [54, 70, 67, 68, 64],
  },
  {
    name: 'salsa',
    bpm: [88, 112],
    meter: 4,
    sub: 4,
    p: {
      P: ['x...x...x...x...'],
      R: ['x..x..x...x.x...', '..x.x...x..x..x.'],
      K: ['......x.......x.', 'X.....x.X.....x.'],
      S: ['......x.x.....x.', '....x.......x...'],
      H: ['x.x.x.x.x.x.x.x.'],
      B: ['......R.....F...', '...R..F....R..F.'],
      C: ['x..x..x...x..x..', '.x.x.x.x.x.x.x.x'],
      L: ['x.x.x...x.x.x...'],
    },
    use: { H: 0.4, K: 0.7, L: 0.6 },
    bass: [32, 33, 35],
    comp: [0, 1, 2],
    lead: [56, 57, 61, 65],
    snare: [75, 37],
    perc: [56, 64, 63, 65, 66],
  },
  {
    name: 'afrobeat',
    bpm: [100, 126],
    meter: 4,
    sub: 4,
    p: {
      K: ['X.....x...X.....', 'X..x....X..x....'],
      S: ['....x..o.o..x..o', '...o.o..x..o.o.o'],
      H: [sixteenths, 'x.xxx.xxx.xxx.xx'],
      P: ['x.x.xx.x.x.xx.x.', 'x.x.x..x.x.x..x.'],
      B: ['R..R..O...R.F...', 'R.....RR..R.F..R'],
      C: ['.x.x.x.x.x.x.x.x', 'x..x..x..x..x.x.'],
      L: ['x.x...x.x.x.....'],
    },
    use: { L: 0.6 },
    bass: [33, 34, 36],
    comp: [27, 28, 16, 4],
    lead: [56, 57, 61, 65, 66],
    perc: [56, 67, 68, 62, 54],
  },
  {
    name: 'orchestral-rubato',
    bpm: [56, 96],
    meter: 4,
    sub: 2,
    tempo: 'rubato',
    p: {
      B: ['R.......', 'R...F...', 'R.R.R.R.'],
      C: ['L.......', 'L...L...', 'x.x.x.x.'],
      A: ['xxxxxxxx', 'x.x.x.x.'],
      L: ['x.x.x.xx', 'x...x.x.'],
      K: ['X.......'],
    },
    use: { A: 0.5, K: 0.2 },
    bass: [42, 43, 58, 70],
    comp: [48, 49, 40, 41, 60, 61, 52],
    lead: [40, 56, 60, 68, 71, 73],
    pad: STRINGS,
    snare: [47],
    fadeOut: 0.4,
  },
  {
    name: 'solo-piano',
    bpm: [60, 120],
    meter: 4,
    sub: 2,
    tempo: 'rubato',
    p: {
      B: ['R.......', 'R...F...', 'R.F.O.F.', 'R...R...'],
      C: ['..x...x.', 'L...L...', 'x.x.x.x.', '..x.x.x.'],
      L: ['x.x.x.xx', 'x...x.x.', 'xxxxx.x.'],
    },
    use: { L: 0.8 },
    bass: [0, 1, 2],
    comp: [0, 1, 2],
    lead: [0, 1, 2],
    pad: null,
    quietIntro: 0.3,
  },
  {
    name: 'solo-guitar',
    bpm: [72, 132],
    meter: 4,
    sub: 4,
    p: {
      B: ['R.......R.......', 'R.......F.......', 'R...F...R...F...'],
      C: ['x..x..x.x.x.x.x.', 'x.x.x.x.x.x.x.x.', 'X...x.x.X...x.x.'],
      A: ['x.x.x.x.x.x.x.x.', 'xxxxxxxxxxxxxxxx'],
    },
    use: { C: 0.7, A: 0.5 },
    bass: [24, 25],
    comp: [24, 25],
    lead: [24, 25],
    pad: null,
  },
  {
    name: 'tempo-ramp',
    bpm: [80, 150],
    meter: 4,
    sub: 4,
    tempo: 'ramp',
    p: {
      K: ['X.......X.......', 'X.....x.X.......'],
      S: [backbeat],
      H: [eighths, sixteenths],
      B: ['R.....R.R...R...', 'R.R.R.R.R.R.R.R.'],
      C: ['x.x.x.x.x.x.x.x.', 'L.......L.......'],
    },
    bass: BASSES,
    comp: PIANOS.concat(GUITARS, ORGANS),
  },
  {
    name: 'tempo-step',
    bpm: [84, 150],
    meter: 4,
    sub: 4,
    tempo: 'step',
    p: {
      K: ['X.......X.......', 'X.x...x.X.......', four],
      S: [backbeat, '....X..o....X...'],
      H: [eighths, sixteenths, fourOff],
      B: ['R.....R.R...R...', 'R.R.R.R.R.R.R.R.', '..R...R...R...R.'],
      C: ['x.x.x.x.x.x.x.x.', 'L.......L.......', '.x.x.x.x.x.x.x.x'],
    },
    bass: BASSES,
    comp: PIANOS.concat(GUITARS, SYNTHS),
  },
  {
    name: 'intro-break-fade',
    bpm: [90, 132],
    meter: 4,
    sub: 4,
    p: {
      K: ['X.......X.......', 'X.....x.X.......'],
      S: [backbeat],
      H: [eighths, sixteenths],
      B: ['R.....R.R...R...', 'R...R...R...R...'],
      C: ['L.......L.......', 'x.x.x.x.x.x.x.x.'],
      L: ['x.x.x...x.x.x...'],
    },
    use: { L: 0.6 },
    bass: BASSES,
    comp: PIANOS.concat(GUITARS, PADS),
    lead: LEADS,
    pad: PADS,
    breakdowns: true,
    quietIntro: 1,
    fadeOut: 1,
  },
  {
    name: 'disco',
    bpm: [110, 128],
    meter: 4,
    sub: 4,
    p: {
      K: [four],
      S: [backbeat],
      H: ['x.x.x.x.x.x.x.x.', sixteenths],
      O: [fourOff],
      B: ['R.O.R.O.R.O.R.O.', 'R..RO.R.R..RO.R.'],
      C: ['.x.x.x.x.x.x.x.x', 'x..x..x...x..x..'],
      L: ['L.......L.......'],
    },
    use: { L: 0.5 },
    bass: [33, 34, 38],
    comp: [27, 28, 4, 48],
    lead: [48, 49, 61],
  },
];

export const STYLE_NAMES: readonly string[] = STYLES.map((s) => s.name);
/** The styles played in rubato (judged on the rubato target: cuts >= 85 % at a low confidence). */
export const RUBATO_STYLE_NAMES: readonly string[] = STYLES.filter((s) => s.tempo === 'rubato').map((s) => s.name);

const gauss = (r: () => number) => Math.sqrt(-2 * Math.log(r() + 1e-12)) * Math.cos(2 * Math.PI * r());
const pick = <T>(r: () => number, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
const between = (r: () => number, lo: number, hi: number) => lo + (hi - lo) * r();

/** Scale degrees (semitones from the key) and the chord quality of each, for progressions in a major key. */
const PROGRESSIONS: number[][] = [
  [0, 7, 9, 5],
  [9, 5, 0, 7],
  [0, 5, 7, 5],
  [0, 9, 5, 7],
  [2, 7, 0, 0],
  [0, 0, 5, 7],
  [9, 7, 5, 7],
  [0, 4, 5, 7],
];
const MINOR_DEGREES = new Set([2, 4, 9]);
const SCALE = [0, 2, 4, 5, 7, 9, 11];

/**
 * Options for training songs (tools/beat-model/make-data.mjs); the bench and the tests use none.
 * `durationSec`: the range the length is drawn from (default 26-44 s; training renders shorter
 * excerpts, more songs for the same CPU). `tempoScale`: the style's drawn tempo times this
 * (tempo augmentation: a style heard outside its own tempo range, so the model cannot learn the
 * metrical level from the tempo alone).
 */
export interface SongOptions {
  durationSec?: [number, number];
  tempoScale?: number;
}

/** The generated song of a seed: the style is `seed % STYLE_NAMES.length` unless one is named. */
export function generateSong(seed: number, styleName?: string, opts: SongOptions = {}): GeneratedSong {
  const r = mulberry32(seed * 7919 + 17);
  const style = styleName ? STYLES.find((s) => s.name === styleName)! : STYLES[seed % STYLES.length]!;
  const { meter, sub } = style;
  const steps = meter * sub;
  const baseBpm = between(r, style.bpm[0], style.bpm[1]) * (opts.tempoScale ?? 1);
  const duration = between(r, ...(opts.durationSec ?? [26, 44]));
  const start = between(r, 0.1, 2.5);
  const mode = style.tempo ?? 'steady';

  // Tempo per beat.
  const nBeatsMax = Math.ceil(((duration - start) * Math.max(baseBpm * 1.6, 60)) / 60) + 8;
  const bpmAt: number[] = [];
  let walk = 0;
  const drift = mode === 'machine' ? 0 : between(r, 0, 0.012);
  const rampTo = baseBpm * between(r, 0.75, 1.35);
  const stepAtBar = 4 + Math.floor(r() * 6);
  const stepFactor = r() < 0.5 ? between(r, 0.78, 0.92) : between(r, 1.1, 1.3);
  const rubDepth = between(r, 0.03, 0.09);
  const phrase = meter * (r() < 0.5 ? 2 : 4);
  for (let i = 0; i < nBeatsMax; i++) {
    walk = 0.9 * walk + drift * gauss(r);
    let bpm = baseBpm * (1 + walk);
    if (mode === 'ramp') bpm = baseBpm + (rampTo - baseBpm) * Math.min(1, i / (nBeatsMax * 0.6));
    if (mode === 'step' && i >= stepAtBar * meter) bpm = baseBpm * stepFactor * (1 + walk);
    if (mode === 'rubato') {
      const inPhrase = (i % phrase) / phrase;
      const rit = inPhrase > 0.75 ? -1.6 * rubDepth * ((inPhrase - 0.75) / 0.25) : 0;
      bpm = baseBpm * (1 + rubDepth * Math.sin(2 * Math.PI * inPhrase) + rit + 3 * walk + rubDepth * 0.5 * gauss(r));
    }
    bpmAt.push(Math.min(240, Math.max(40, bpm)));
  }
  const beats: number[] = [];
  for (let t = start, i = 0; t < duration - 0.3 && i < bpmAt.length; i++) {
    beats.push(Math.round(t * 1e6) / 1e6);
    t += 60 / bpmAt[i]!;
  }
  // Whole bars only, plus the closing downbeat.
  const nBars = Math.max(2, Math.floor((beats.length - 1) / meter));
  beats.length = nBars * meter + 1;
  const downbeats = beats.filter((_, i) => i % meter === 0);
  const lastPeriod = beats.at(-1)! - beats.at(-2)!;
  const durationSec = Math.round((beats.at(-1)! + Math.max(1.2, 2 * lastPeriod) + r() * 1.5) * 1000) / 1000;

  // Step times of the bar grid, with swing.
  const swing = style.swing ? between(r, style.swing[0], style.swing[1]) : 0.5;
  const stepTime = (bar: number, step: number): number => {
    const bi = bar * meter + Math.floor(step / sub);
    const b0 = beats[bi]!;
    const b1 = beats[bi + 1] ?? b0 + lastPeriod;
    let f = (step % sub) / sub;
    if (sub === 2 || sub === 4) {
      const pair = 2 / sub;
      const inPair = step % 2;
      const pairStart = Math.floor((step % sub) / 2) * pair;
      f = pairStart + (inPair ? swing * pair : 0);
    }
    return b0 + f * (b1 - b0);
  };

  // Instruments, key, chords.
  const key = Math.floor(r() * 12) - 5;
  const prog = pick(r, PROGRESSIONS);
  const chordLen = r() < 0.7 || meter !== 4 ? 1 : 2; // bars per chord
  const chordOf = (bar: number) => {
    const deg = prog[Math.floor(bar / chordLen) % prog.length]!;
    const rootPc = (deg + key + 12) % 12;
    const third = MINOR_DEGREES.has(deg) ? 3 : 4;
    return { root: 36 + rootPc, tones: [0, third, 7, r() < 0.3 ? 10 : 12] };
  };
  const programs: Partial<Record<number, number>> = {};
  const notes: Note[] = [];
  const controls: Control[] = [];
  const has = (v: Voice): boolean => !!style.p[v] && r() < (style.use?.[v] ?? (v === 'L' ? 0.5 : 1));
  const voices = (['K', 'S', 'H', 'O', 'R', 'P', 'B', 'C', 'A', 'L'] as Voice[]).filter(has);
  const patternOf = new Map<Voice, string>();
  for (const v of voices) patternOf.set(v, pick(r, style.p[v]!));
  const channelOf: Partial<Record<Voice, number>> = { B: 0, C: 1, A: 2, L: 3 };
  const progOf: Partial<Record<Voice, number>> = {
    B: pick(r, style.bass ?? BASSES),
    C: pick(r, style.comp ?? PIANOS),
    A: pick(r, style.comp ?? PIANOS),
    L: pick(r, style.lead ?? LEADS),
  };
  for (const v of ['B', 'C', 'A', 'L'] as Voice[]) programs[channelOf[v]!] = progOf[v]!;
  const padProg = style.pad === null ? undefined : r() < (style.pad ? 0.6 : 0.3) ? pick(r, style.pad ?? PADS) : undefined;
  if (padProg !== undefined) programs[4] = padProg;
  const drumNote: Record<string, number> = {
    K: pick(r, [36, 35, 36]),
    S: pick(r, style.snare ?? [38, 40, 38]),
    H: pick(r, [42, 42, 44]),
    O: 46,
    R: pick(r, [51, 51, 53, 59]),
    P: pick(r, style.perc ?? [70, 54, 64]),
  };
  const level: Partial<Record<Voice | 'D', number>> = {};
  for (const v of voices) level[v] = between(r, 0.55, 1);
  level.D = between(r, 0.3, 0.7);
  const live = mode !== 'machine';
  const jitter: Partial<Record<Voice, number>> = {};
  for (const v of voices) jitter[v] = live ? between(r, 0.002, mode === 'rubato' ? 0.02 : 0.013) : between(r, 0, 0.003);
  // Mix levels.
  for (const ch of [0, 1, 2, 3, 4, 9]) controls.push({ time: 0, channel: ch, controller: 7, value: between(r, 70, 120) });
  for (const ch of [0, 1, 2, 3, 4]) controls.push({ time: 0, channel: ch, controller: 91, value: between(r, 0, 80) });

  // Arrangement: which bars each voice plays.
  const introBars = style.quietIntro && r() < style.quietIntro ? 1 + Math.floor(r() * 3) : r() < 0.3 ? 1 + Math.floor(r() * 2) : 0;
  const breakStart =
    style.breakdowns && r() < 0.7 && nBars > 10 ? introBars + 4 + Math.floor(r() * Math.max(1, nBars - introBars - 10)) : -1;
  const breakLen = 2 + Math.floor(r() * 3);
  const introVoices = new Set<Voice>(voices.filter((v) => 'CAHLB'.includes(v) && r() < 0.5));
  if (introBars && introVoices.size === 0 && voices.length) introVoices.add(voices.includes('C') ? 'C' : voices[0]!);
  const plays = (v: Voice, bar: number): boolean => {
    if (bar < introBars) return introVoices.has(v);
    if (bar >= breakStart && bar < breakStart + breakLen) return 'CAL'.includes(v) && v !== 'L';
    return true;
  };
  const fillEvery = r() < 0.7 ? pick(r, [4, 8]) : 0;
  const melodyDensity = between(r, 0.3, 0.8);
  let lastMel = 60 + key;

  const add = (time: number, dur: number, channel: number, pitch: number, vel: number) =>
    notes.push({ time: Math.max(0, time), dur: Math.max(0.03, dur), channel, pitch, velocity: Math.max(1, Math.min(127, vel)) });
  const velOf = (c: string, lvl: number, bar: number) => {
    const base = c === 'X' ? 118 : c === 'o' ? 52 : 92;
    const intro = bar < introBars ? 0.6 : 1;
    return base * lvl * intro * (1 + 0.1 * gauss(r));
  };

  for (let bar = 0; bar < nBars; bar++) {
    const chord = chordOf(bar);
    const barStart = beats[bar * meter]!;
    const barEnd = beats[(bar + 1) * meter]!;
    const fill = fillEvery && bar % fillEvery === fillEvery - 1 && bar >= introBars && bar !== breakStart - 1;
    if (padProg !== undefined && bar >= 0) {
      for (const tone of chord.tones.slice(0, 3)) add(barStart, barEnd - barStart, 4, chord.root + 12 + tone, 70 * level.D!);
    }
    for (const v of voices) {
      if (!plays(v, bar)) continue;
      const pat = patternOf.get(v)!;
      const lvl = level[v]!;
      let arpI = 0;
      for (let s = 0; s < steps; s++) {
        let c = pat[s % pat.length]!;
        if (fill && s >= steps - sub && 'KSH'.includes(v)) {
          if (v === 'S') c = r() < 0.7 ? 'x' : '.';
          else if (v === 'H') c = '.';
        }
        if (c === '.') continue;
        if (c === '?' && r() < 0.5) continue;
        const t = stepTime(bar, s) + gauss(r) * jitter[v]!;
        const stepDur = stepTime(bar, Math.min(s + 1, steps - 1)) - stepTime(bar, s) || (barEnd - barStart) / steps;
        if ('KSHORP'.includes(v)) {
          let pitch = drumNote[v]!;
          if (fill && v === 'S' && s >= steps - sub) pitch = pick(r, [38, 45, 47, 48, 50, 41]);
          add(t, 0.1, 9, pitch, velOf(c, lvl, bar));
          continue;
        }
        const ch = channelOf[v]!;
        const vel = velOf(c, lvl, bar) * 0.85;
        if (v === 'B') {
          let p = chord.root - 12 + (chord.root < 42 ? 12 : 0);
          if (c === 'F') p += 7;
          if (c === 'O') p += 12;
          if (c === 'W') p += pick(r, [0, 3, 4, 7, 9, 10, 12, -1, 2]);
          const dur = c === 'L' ? (barEnd - barStart) / 2 : stepDur * between(r, 0.6, sub === 4 ? 1.8 : 0.95);
          add(t, dur, ch, p, vel);
        } else if (v === 'C') {
          let dur = stepDur * between(r, 0.5, 1.5);
          if (c === 'L') {
            let n = s + 1;
            while (n < steps && pat[n] === '.') n++;
            dur = (n < steps ? stepTime(bar, n) : barEnd) - t;
          }
          const strum = progOf.C! >= 24 && progOf.C! <= 31 ? between(r, 0.004, 0.012) : 0;
          chord.tones.forEach((tone, k) => add(t + k * strum, dur, ch, chord.root + 12 + tone, vel * (k === 0 ? 1 : 0.85)));
        } else if (v === 'A') {
          const tone = chord.tones[arpI++ % chord.tones.length]!;
          add(t, stepDur * 1.5, ch, chord.root + 24 + tone, vel * 0.8);
        } else if (v === 'L') {
          if (r() > melodyDensity && c !== 'L') continue;
          const deg = SCALE[Math.floor(r() * 7)]!;
          let p = 60 + key + deg + (r() < 0.3 ? 12 : 0);
          if (Math.abs(p - lastMel) > 7) p = lastMel + Math.sign(p - lastMel) * pick(r, [1, 2, 3, 4]);
          lastMel = p;
          add(t, stepDur * between(r, 0.8, 2.5), ch, p, vel);
        }
      }
    }
  }
  const fadeOutSec = style.fadeOut && r() < style.fadeOut ? Math.round(between(r, 4, 10) * 10) / 10 : undefined;
  const sorted = [...bpmAt.slice(0, beats.length)].sort((a, b) => a - b);
  return {
    name: `${style.name}-${seed}`,
    style: style.name,
    seed,
    midi: { programs, notes, controls },
    beats,
    downbeats,
    beatsPerBar: meter,
    bpm: Math.round(sorted[sorted.length >> 1]! * 10) / 10,
    durationSec,
    fadeOutSec,
    rubato: mode === 'rubato',
  };
}
