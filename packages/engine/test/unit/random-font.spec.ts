/**
 * Random sound fonts for the beat model's training (tools/beat-model/make-data.mjs
 * --random-fonts): a well-formed SoundFont 2 whose presets are the asked programs and a drum kit,
 * each program's timbre fixed by the seed whatever else the font holds.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { writeRandomFont } from '../../src/bench/corpus/random-font';

interface Parsed {
  chunks: Map<string, Buffer>;
  presets: { name: string; program: number; bank: number }[];
  samples: { name: string; start: number; end: number; loopStart: number; loopEnd: number; rate: number }[];
  smplLength: number;
}

/** A reader of the RIFF layout, independent of the writer: sizes must add up exactly. */
function parse(buf: Buffer): Parsed {
  expect(buf.toString('latin1', 0, 4)).toBe('RIFF');
  expect(buf.readUInt32LE(4) + 8).toBe(buf.length);
  expect(buf.toString('latin1', 8, 12)).toBe('sfbk');
  const chunks = new Map<string, Buffer>();
  const lists: string[] = [];
  let at = 12;
  while (at < buf.length) {
    expect(buf.toString('latin1', at, at + 4)).toBe('LIST');
    const size = buf.readUInt32LE(at + 4);
    lists.push(buf.toString('latin1', at + 8, at + 12));
    let sub = at + 12;
    while (sub < at + 8 + size) {
      const id = buf.toString('latin1', sub, sub + 4);
      const len = buf.readUInt32LE(sub + 4);
      chunks.set(id, buf.subarray(sub + 8, sub + 8 + len));
      sub += 8 + len + (len % 2);
    }
    expect(sub).toBe(at + 8 + size);
    at += 8 + size;
  }
  expect(lists).toEqual(['INFO', 'sdta', 'pdta']);
  // INFO strings: zero-terminated, of even length (FluidSynth refuses the font otherwise).
  for (const id of ['isng', 'INAM']) {
    expect(chunks.get(id)!.length % 2).toBe(0);
    expect(chunks.get(id)!.at(-1)).toBe(0);
  }
  const records = (id: string, size: number) => {
    const c = chunks.get(id)!;
    expect(c.length % size).toBe(0);
    return Array.from({ length: c.length / size }, (_, i) => c.subarray(i * size, (i + 1) * size));
  };
  const name = (b: Buffer) => b.toString('latin1', 0, 20).replace(/\0.*$/s, '');
  const presets = records('phdr', 38).map((r) => ({ name: name(r), program: r.readUInt16LE(20), bank: r.readUInt16LE(22) }));
  const samples = records('shdr', 46).map((r) => ({
    name: name(r),
    start: r.readUInt32LE(20),
    end: r.readUInt32LE(24),
    loopStart: r.readUInt32LE(28),
    loopEnd: r.readUInt32LE(32),
    rate: r.readUInt32LE(36),
  }));
  for (const id of ['pbag', 'pgen', 'ibag', 'igen']) expect(chunks.get(id)!.length % 4).toBe(0);
  for (const id of ['pmod', 'imod']) expect(chunks.get(id)!.length).toBe(10);
  return { chunks, presets, samples, smplLength: chunks.get('smpl')!.length / 2 };
}

describe('random sound fonts', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'random-font-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('writes a SoundFont 2 with a preset per asked program and a drum kit', () => {
    const font = parse(fs.readFileSync(writeRandomFont(5, [33, 0, 33, 81], path.join(dir, 'a.sf2'))));
    expect(font.presets.map((p) => [p.program, p.bank])).toEqual([
      [0, 0],
      [33, 0],
      [81, 0],
      [0, 128],
      [0, 0],
    ]);
    expect(font.presets.at(-1)!.name).toBe('EOP');
    // A sample per program, one per drum key (27-87), and the terminal record.
    expect(font.samples).toHaveLength(3 + 61 + 1);
    expect(font.samples.at(-1)!.name).toBe('EOS');
    for (const s of font.samples.slice(0, -1)) {
      expect(s.rate).toBe(22_050);
      expect(s.end).toBeGreaterThan(s.start + 64);
      expect(s.loopStart).toBeGreaterThanOrEqual(s.start);
      expect(s.loopEnd).toBeLessThanOrEqual(s.end);
      // 46 silent points after each sample, as the format asks.
      expect(s.end + 46).toBeLessThanOrEqual(font.smplLength);
    }
    // A sound played once ends in silence (its tail faded, no click), a looped one has a period
    // of valid points after its loop.
    const smpl = font.chunks.get('smpl')!;
    for (const s of font.samples.slice(0, -1)) {
      if (s.loopStart > s.start) expect(s.end - s.loopEnd).toBeGreaterThanOrEqual(8);
      else expect(smpl.readInt16LE((s.end - 1) * 2)).toBe(0);
    }
    // Every drum rings out past its note's end: a release generator (38) in each of the kit's 61 zones.
    const igen = font.chunks.get('igen')!;
    const releases = Array.from({ length: igen.length / 4 }, (_, i) => igen.readUInt16LE(i * 4)).filter((o) => o === 38);
    expect(releases.length).toBeGreaterThanOrEqual(61);
  });

  it('gives a program the same sound whatever else the font holds, and another seed another sound', () => {
    const samplesOf = (seed: number, programs: number[], file: string) => {
      const buf = fs.readFileSync(writeRandomFont(seed, programs, path.join(dir, file)));
      const font = parse(buf);
      const smpl = font.chunks.get('smpl')!;
      return new Map(font.samples.slice(0, -1).map((s) => [s.name, smpl.subarray(s.start * 2, s.end * 2)]));
    };
    const small = samplesOf(9, [40], 'b.sf2');
    const large = samplesOf(9, [0, 40, 100], 'c.sf2');
    const other = samplesOf(10, [40], 'd.sf2');
    expect(large.get('p40-0')!.equals(small.get('p40-0')!)).toBe(true);
    expect(large.get('kit-36')!.equals(small.get('kit-36')!)).toBe(true);
    expect(other.get('p40-0')!.equals(small.get('p40-0')!)).toBe(false);
    expect(other.get('kit-36')!.equals(small.get('kit-36')!)).toBe(false);
  });
});
