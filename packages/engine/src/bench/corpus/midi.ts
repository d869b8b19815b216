/**
 * A minimal Standard MIDI File writer for the beat corpus: one track (format 0), 960 ticks a
 * second (480 ticks per quarter at a fixed 120 BPM MIDI tempo), so every event is placed at an
 * absolute time in seconds and the song's own tempo (steps, ramps, rubato) lives in those times.
 */

export interface Note {
  /** Seconds. */
  time: number;
  /** Seconds. */
  dur: number;
  /** 0-15; 9 is General MIDI percussion. */
  channel: number;
  pitch: number;
  /** 1-127. */
  velocity: number;
}

export interface Control {
  time: number;
  channel: number;
  /** Controller number (7 volume, 11 expression, 91 reverb send). */
  controller: number;
  value: number;
}

export interface MidiSong {
  /** General MIDI program per channel (the percussion channel 9 needs none). */
  programs: Partial<Record<number, number>>;
  notes: Note[];
  controls?: Control[];
}

const TICKS_PER_SEC = 960;

function varLen(n: number): number[] {
  const bytes = [n & 0x7f];
  n >>= 7;
  while (n > 0) {
    bytes.unshift((n & 0x7f) | 0x80);
    n >>= 7;
  }
  return bytes;
}

/** The song as SMF bytes. */
export function writeMidi(song: MidiSong): Buffer {
  type Ev = { tick: number; order: number; bytes: number[] };
  const evs: Ev[] = [];
  const tick = (s: number) => Math.max(0, Math.round(s * TICKS_PER_SEC));
  // Tempo 500000 us per quarter (120 BPM): 480 ticks per quarter = 960 ticks per second.
  evs.push({ tick: 0, order: 0, bytes: [0xff, 0x51, 0x03, 0x07, 0xa1, 0x20] });
  for (const [ch, prog] of Object.entries(song.programs)) {
    evs.push({ tick: 0, order: 1, bytes: [0xc0 | Number(ch), prog!] });
  }
  for (const c of song.controls ?? []) {
    evs.push({ tick: tick(c.time), order: 2, bytes: [0xb0 | c.channel, c.controller, Math.max(0, Math.min(127, Math.round(c.value)))] });
  }
  for (const n of song.notes) {
    const vel = Math.max(1, Math.min(127, Math.round(n.velocity)));
    // Note-offs sort before note-ons at the same tick, so a repeated note restarts.
    evs.push({ tick: tick(n.time), order: 4, bytes: [0x90 | n.channel, n.pitch, vel] });
    evs.push({ tick: tick(n.time + Math.max(0.01, n.dur)), order: 3, bytes: [0x80 | n.channel, n.pitch, 0] });
  }
  evs.sort((a, b) => a.tick - b.tick || a.order - b.order);
  const body: number[] = [];
  let last = 0;
  for (const e of evs) {
    body.push(...varLen(e.tick - last), ...e.bytes);
    last = e.tick;
  }
  body.push(0, 0xff, 0x2f, 0x00);
  const header = Buffer.from([0x4d, 0x54, 0x68, 0x64, 0, 0, 0, 6, 0, 0, 0, 1, 0x01, 0xe0]); // format 0, 1 track, 480 PPQ
  const trk = Buffer.alloc(8);
  trk.write('MTrk', 0, 'latin1');
  trk.writeUInt32BE(body.length, 4);
  return Buffer.concat([header, trk, Buffer.from(body)]);
}
