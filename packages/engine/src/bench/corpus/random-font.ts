/**
 * Random sound fonts: a training band that no real instrument library limits. Each font seed
 * draws every General MIDI program's timbre (a harmonic spectrum with its own roll-off, formants,
 * odd/even balance and inharmonicity; a struck or a held envelope after the program's family) and a
 * drum kit (kicks with their own pitch sweep and click, snares of tone and noise, hats and cymbals
 * of filtered noise and metallic partials, hand drums, wood, shakers, bells), each at its own level,
 * so a model trained on many of them has to find the beat in the playing rather than in the sound
 * of three fonts. Written as SoundFont 2 for FluidSynth (make-data.mjs `--random-fonts`; training
 * only: the validation and held-out bands stay real fonts).
 */
import fs from 'node:fs';
import { mulberry32 } from '../../numeric.js';

const RATE = 22_050;

type Rng = () => number;

interface Zone {
  sample: Int16Array;
  /** The key at which the sample sounds at its recorded pitch. */
  rootKey: number;
  /** Cents to add on playback (the sample's pitch is not exactly the root key's). */
  correction: number;
  loop?: [number, number];
  keyLo: number;
  keyHi: number;
  /** Generators besides keyRange, sampleID, sampleModes (SF2 numbers, amounts). */
  gens: [number, number][];
}

interface Instrument {
  name: string;
  bank: number;
  program: number;
  zones: Zone[];
}

const timecents = (sec: number) => Math.round(1200 * Math.log2(Math.max(0.001, sec)));

/** RBJ biquad, in place. */
function biquad(x: Float32Array, kind: 'lp' | 'hp' | 'bp', freq: number, q: number): Float32Array {
  const w = (2 * Math.PI * Math.min(freq, RATE * 0.45)) / RATE;
  const alpha = Math.sin(w) / (2 * q);
  const cos = Math.cos(w);
  let b0: number, b1: number, b2: number;
  if (kind === 'lp') [b0, b1, b2] = [(1 - cos) / 2, 1 - cos, (1 - cos) / 2];
  else if (kind === 'hp') [b0, b1, b2] = [(1 + cos) / 2, -(1 + cos), (1 + cos) / 2];
  else [b0, b1, b2] = [alpha, 0, -alpha];
  const [a0, a1, a2] = [1 + alpha, -2 * cos, 1 - alpha];
  let x1 = 0;
  let x2 = 0;
  let y1 = 0;
  let y2 = 0;
  for (let i = 0; i < x.length; i++) {
    const x0 = x[i]!;
    const y = (b0 * x0 + b1 * x1 + b2 * x2 - a1 * y1 - a2 * y2) / a0;
    x2 = x1;
    x1 = x0;
    y2 = y1;
    y1 = y;
    x[i] = y;
  }
  return x;
}

/** Fades a sample's last 20 ms out, so that a tail cut short ends without a click. */
function fadeEnd(x: Float32Array): Float32Array {
  const n = Math.min(x.length, Math.round(0.02 * RATE));
  for (let i = 0; i < n; i++) x[x.length - 1 - i] = x[x.length - 1 - i]! * (i / n);
  return x;
}

function toInt16(x: Float32Array, peak: number): Int16Array {
  let max = 1e-9;
  for (const v of x) max = Math.max(max, Math.abs(v));
  const out = new Int16Array(x.length);
  for (let i = 0; i < x.length; i++) out[i] = Math.round((x[i]! / max) * peak * 32_000);
  return out;
}

/** A harmonic spectrum: amplitude per partial 1..n. */
function spectrum(r: Rng, n: number): number[] {
  const rolloff = 0.5 + r() * 2;
  const oddOnly = r() < 0.15;
  const evenCut = r() < 0.2 ? 0.2 + r() * 0.6 : 1;
  const formants = Array.from({ length: Math.floor(r() * 3) }, () => ({ at: 300 + r() * 3000, width: 0.2 + r() * 0.8, gain: 1 + r() * 4 }));
  return Array.from({ length: n }, (_, k) => {
    const h = k + 1;
    let a = 1 / h ** rolloff;
    if (h > 1 && h % 2 === 0) a *= oddOnly ? 0.02 : evenCut;
    const f = 262 * h;
    for (const fm of formants) a *= 1 + fm.gain * Math.exp(-((Math.log2(f / fm.at) / fm.width) ** 2));
    return a * (0.6 + 0.4 * r());
  });
}

/** Struck or plucked by family (piano, chromatic percussion, guitar, bass, ethnic, percussive) unless drawn otherwise. */
const STRUCK_FAMILIES = new Set([0, 1, 3, 4, 13, 14]);

function tonal(r: Rng, program: number): Instrument {
  const family = Math.floor(program / 8);
  const struck = STRUCK_FAMILIES.has(family) ? r() < 0.9 : r() < 0.1;
  // The sample at 262.5 Hz: 84 samples a period at 22,050 Hz, so a loop of whole periods is seamless.
  const period = 84;
  const f0 = RATE / period;
  const correction = Math.round(1200 * Math.log2(261.63 / f0));
  const partials = spectrum(r, 40);
  const inharm = struck && r() < 0.5 ? r() * 0.0008 : 0;
  const gens: [number, number][] = [];
  let data: Float32Array;
  let loop: [number, number] | undefined;
  if (struck) {
    const decay = 0.15 + r() * 1.5;
    // Five time constants of the fundamental (about -43 dB), then the end faded (fadeEnd).
    const len = Math.round(RATE * Math.min(3, Math.max(0.3, 5 * decay)));
    const brightDecay = 1 + r() * 4;
    data = new Float32Array(len);
    for (let k = 0; k < partials.length; k++) {
      const h = k + 1;
      const f = f0 * h * Math.sqrt(1 + inharm * h * h);
      if (f > RATE / 2.2) break;
      const tau = decay / (1 + (brightDecay * (h - 1)) / 8);
      const amp = partials[k]!;
      const ph = r() * 2 * Math.PI;
      for (let i = 0; i < len; i++) data[i] = data[i]! + amp * Math.exp(-i / RATE / tau) * Math.sin((2 * Math.PI * f * i) / RATE + ph);
    }
    // The strike: a short burst of filtered noise.
    const burst = Math.round(RATE * (0.002 + r() * 0.02));
    const level = r() * 0.5;
    const noise = new Float32Array(burst).map(() => (r() * 2 - 1) * level);
    biquad(noise, 'bp', 800 + r() * 5000, 0.7 + r() * 2);
    for (let i = 0; i < burst; i++) data[i] = data[i]! + noise[i]! * (1 - i / burst);
    const attack = 0.001 + r() * 0.01;
    for (let i = 0; i < Math.round(attack * RATE); i++) data[i] = data[i]! * (i / (attack * RATE));
    gens.push([38, timecents(0.05 + r() * 0.5)]);
  } else {
    // Held: an onset of some periods, then a loop of whole periods.
    const onset = period * (10 + Math.floor(r() * 40));
    const loopLen = period * 40;
    // One period more after the loop's end: the points a player may read past it.
    data = new Float32Array(onset + loopLen + period);
    const bright = r() < 0.5 ? 1 + r() * 2 : 1;
    for (let k = 0; k < partials.length; k++) {
      const h = k + 1;
      if (f0 * h > RATE / 2.2) break;
      const ph = r() * 2 * Math.PI;
      for (let i = 0; i < data.length; i++) {
        const fade = i < onset ? bright + (1 - bright) * (i / onset) : 1;
        data[i] = data[i]! + partials[k]! * (h > 3 ? fade : 1) * Math.sin((2 * Math.PI * h * i) / period + ph);
      }
    }
    loop = [onset, onset + loopLen];
    const attack = family === 11 || family === 6 || family === 5 ? 0.02 + r() * 0.5 : 0.003 + r() * 0.08;
    gens.push([34, timecents(attack)], [36, timecents(0.1 + r() * 1.5)], [37, Math.round(r() * 120)], [38, timecents(0.05 + r() * 0.6)]);
  }
  if (r() < 0.4) gens.push([8, Math.round(8000 + r() * 5000)]);
  gens.push([48, Math.round(r() * 100)]);
  if (!loop) fadeEnd(data);
  return {
    name: `p${program}`,
    bank: 0,
    program,
    zones: [{ sample: toInt16(data, 0.9), rootKey: 60, correction, loop, keyLo: 0, keyHi: 127, gens }],
  };
}

type DrumKind = 'kick' | 'snare' | 'clap' | 'stick' | 'hat' | 'openhat' | 'cymbal' | 'ride' | 'tom' | 'hand' | 'wood' | 'shaker' | 'bell';

function drumKind(key: number): DrumKind {
  if (key === 35 || key === 36) return 'kick';
  if (key === 38 || key === 40) return 'snare';
  if (key === 39) return 'clap';
  if (key === 37 || key === 31 || key === 33) return 'stick';
  if (key === 42 || key === 44) return 'hat';
  if (key === 46) return 'openhat';
  if ([49, 52, 55, 57].includes(key)) return 'cymbal';
  if ([51, 53, 59].includes(key)) return 'ride';
  if ([41, 43, 45, 47, 48, 50].includes(key)) return 'tom';
  if (key >= 60 && key <= 66) return 'hand';
  if ([75, 76, 77, 73, 74].includes(key)) return 'wood';
  if ([54, 69, 70, 82, 58].includes(key)) return 'shaker';
  return 'bell';
}

/** One drum sound, struck at its own pitch. */
function drum(r: Rng, key: number): Float32Array {
  const kind = drumKind(key);
  const u = (lo: number, hi: number) => lo + (hi - lo) * r();
  // At most 2 s a sound (cymbals and rides 4 s), the end faded (fadeEnd).
  const len = (sec: number) =>
    new Float32Array(Math.max(64, Math.round(Math.min(kind === 'cymbal' || kind === 'ride' ? 4 : 2, sec) * RATE)));
  const env = (x: Float32Array, tau: number) => {
    const d = Math.exp(-1 / RATE / tau);
    let a = 1;
    for (let i = 0; i < x.length; i++, a *= d) x[i] = x[i]! * a;
    return x;
  };
  const noise = (x: Float32Array) => {
    for (let i = 0; i < x.length; i++) x[i] = r() * 2 - 1;
    return x;
  };
  /** A sine gliding from f1 to f0 (time constant sweepTau), decaying with time constant tau. */
  const sweep = (x: Float32Array, f1: number, f0: number, sweepTau: number, tau: number) => {
    const [da, ds] = [Math.exp(-1 / RATE / tau), Math.exp(-1 / RATE / sweepTau)];
    let [ph, a, g] = [0, 1, 1];
    for (let i = 0; i < x.length; i++, a *= da, g *= ds) {
      ph += (2 * Math.PI * (f0 + (f1 - f0) * g)) / RATE;
      x[i] = Math.sin(ph) * a;
    }
    return x;
  };
  const mix = (a: Float32Array, b: Float32Array, gb: number) => a.map((v, i) => v + gb * (b[i] ?? 0));
  const metal = (x: Float32Array, base: number) => {
    const ratios = [1, 1.34, 1.48, 1.65, 1.97, 2.3].map((q) => q * u(0.9, 1.1));
    const steps = ratios.map((q) => (2 * Math.PI * base * q) / RATE);
    return x.map((_, i) => {
      let sum = 0;
      for (const w of steps) sum += Math.sin(w * i) >= 0 ? 1 : -1;
      return sum / steps.length;
    });
  };
  switch (kind) {
    case 'kick': {
      const tau = u(0.08, 0.45);
      let x = sweep(len(tau * 4), u(90, 260), u(38, 70), u(0.01, 0.06), tau);
      const click = env(noise(len(0.01)), u(0.001, 0.004));
      x = mix(x, biquad(click, 'hp', u(1000, 5000), 0.7), u(0, 0.8));
      if (r() < 0.4) {
        const drive = u(1.5, 4);
        x = x.map((v) => Math.tanh(v * drive));
      }
      return x;
    }
    case 'snare': {
      const tau = u(0.06, 0.3);
      const body = sweep(len(tau * 4), u(200, 350), u(140, 260), 0.02, u(0.03, 0.15));
      const n = biquad(env(noise(len(tau * 4)), tau), r() < 0.5 ? 'hp' : 'bp', u(1500, 6000), u(0.5, 1.5));
      return mix(n, body, u(0.2, 1.5));
    }
    case 'clap': {
      const x = len(u(0.15, 0.4));
      const gap = u(0.006, 0.015);
      const tail = u(0.04, 0.12);
      const n = noise(len(x.length / RATE));
      for (let i = 0; i < x.length; i++) {
        const t = i / RATE;
        const k = Math.floor(t / gap);
        x[i] = n[i]! * (k < 3 ? Math.exp(-(t - k * gap) / 0.003) : Math.exp(-(t - 3 * gap) / tail));
      }
      return biquad(x, 'bp', u(900, 2500), u(0.8, 2));
    }
    case 'stick':
      return mix(sweep(len(0.08), u(500, 900), u(400, 800), 0.01, u(0.01, 0.03)), env(noise(len(0.08)), 0.008), u(0.2, 1));
    case 'hat':
    case 'openhat':
    case 'cymbal':
    case 'ride': {
      const tau = kind === 'hat' ? u(0.015, 0.08) : kind === 'openhat' ? u(0.15, 0.5) : kind === 'cymbal' ? u(0.6, 1.8) : u(0.4, 1.2);
      const x = len(tau * 4);
      const m = metal(x, u(300, 600));
      const n = noise(len(x.length / RATE));
      const blend = u(0, 1);
      const y = x.map((_, i) => blend * m[i]! + (1 - blend) * n[i]!);
      biquad(y, 'hp', kind === 'ride' ? u(2000, 5000) : u(4000, 8000), 0.7);
      const ping = kind === 'ride' ? sweep(len(x.length / RATE), u(2500, 5000), u(2500, 5000), 1, tau) : null;
      const out = env(y, tau);
      return ping ? mix(out, ping, u(0.1, 0.6)) : out;
    }
    case 'tom': {
      const f = 70 * 2 ** ((key - 41) / 12) * u(0.8, 1.4);
      return sweep(len(0.6), f * u(1.2, 1.8), f, u(0.02, 0.08), u(0.12, 0.4));
    }
    case 'hand': {
      const f = u(150, 500) * 2 ** ((key - 60) / 18);
      const tau = u(0.04, 0.25);
      const tone = sweep(len(tau * 4), f * u(1, 1.3), f, 0.01, tau);
      return mix(tone, biquad(env(noise(len(tau * 4)), u(0.005, 0.02)), 'bp', u(1000, 4000), 1), u(0, 1));
    }
    case 'wood': {
      const f = u(700, 2600);
      return sweep(len(0.12), f, f, 1, u(0.01, 0.05));
    }
    case 'shaker': {
      const tau = u(0.02, 0.12);
      const x = env(noise(len(tau * 4)), tau);
      const attack = Math.round(u(0.002, 0.03) * RATE);
      for (let i = 0; i < attack && i < x.length; i++) x[i] = x[i]! * (i / attack);
      return biquad(x, 'bp', u(3000, 8000), u(0.7, 2));
    }
    default: {
      const tau = u(0.1, 0.8);
      const f = u(500, 2500);
      return mix(sweep(len(tau * 4), f, f, 1, tau), sweep(len(tau * 4), f * u(1.4, 2.9), f * u(1.4, 2.9), 1, tau * 0.6), u(0.2, 1));
    }
  }
}

function drumKit(r: Rng): Instrument {
  const zones: Zone[] = [];
  for (let key = 27; key <= 87; key++) {
    const kind = drumKind(key);
    const gens: [number, number][] = [
      [48, Math.round(r() * 140)],
      [17, Math.round((r() * 2 - 1) * 300)],
    ];
    if (kind === 'hat' || kind === 'openhat') gens.push([57, 1]);
    const sound = fadeEnd(drum(r, key));
    // A drum rings out after its note's end (the generator's drum notes last 0.1 s), as in a real kit.
    gens.push([38, timecents(sound.length / RATE)]);
    zones.push({ sample: toInt16(sound, 0.95), rootKey: key, correction: 0, keyLo: key, keyHi: key, gens });
  }
  return { name: 'kit', bank: 128, program: 0, zones };
}

/** A seed's instrument for `program` (or its drum kit for -1): the same for a seed whatever else the font holds. */
function instrumentOf(fontSeed: number, program: number): Instrument {
  const r = mulberry32(((fontSeed * 7919) ^ ((program + 2) * 104_729)) >>> 0);
  return program < 0 ? drumKit(r) : tonal(r, program);
}

function chunk(id: string, body: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.write(id, 0, 'latin1');
  head.writeUInt32LE(body.length, 4);
  return Buffer.concat([head, body, body.length % 2 ? Buffer.alloc(1) : Buffer.alloc(0)]);
}

function list(kind: string, parts: Buffer[]): Buffer {
  return chunk('LIST', Buffer.concat([Buffer.from(kind, 'latin1'), ...parts]));
}

function name20(s: string): Buffer {
  const b = Buffer.alloc(20);
  b.write(s.slice(0, 19), 0, 'latin1');
  return b;
}

/** The SF2 bytes of the given instruments. */
function soundFont(instruments: Instrument[]): Buffer {
  const smpl: Buffer[] = [];
  const shdr: Buffer[] = [];
  const igen: Buffer[] = [];
  const ibag: Buffer[] = [];
  const inst: Buffer[] = [];
  let at = 0;
  let sampleIndex = 0;
  const gen = (oper: number, amount: number) => {
    const b = Buffer.alloc(4);
    b.writeUInt16LE(oper, 0);
    b.writeInt16LE(amount, 2);
    return b;
  };
  const bag = (genNdx: number) => {
    const b = Buffer.alloc(4);
    b.writeUInt16LE(genNdx, 0);
    return b;
  };
  for (const ins of instruments) {
    const h = Buffer.alloc(22);
    name20(ins.name).copy(h);
    h.writeUInt16LE(ibag.length, 20);
    inst.push(h);
    for (const z of ins.zones) {
      ibag.push(bag(igen.length));
      const range = Buffer.alloc(4);
      range.writeUInt16LE(43, 0);
      range.writeUInt8(z.keyLo, 2);
      range.writeUInt8(z.keyHi, 3);
      igen.push(range);
      for (const [o, a] of z.gens) igen.push(gen(o, a));
      igen.push(gen(54, z.loop ? 1 : 0));
      igen.push(gen(53, sampleIndex++));
      const s = Buffer.alloc(46);
      name20(`${ins.name}-${z.keyLo}`).copy(s);
      s.writeUInt32LE(at, 20);
      s.writeUInt32LE(at + z.sample.length, 24);
      s.writeUInt32LE(at + (z.loop?.[0] ?? 0), 28);
      s.writeUInt32LE(at + (z.loop?.[1] ?? z.sample.length - 1), 32);
      s.writeUInt32LE(RATE, 36);
      s.writeUInt8(z.rootKey, 40);
      s.writeInt8(z.correction, 41);
      s.writeUInt16LE(0, 42);
      s.writeUInt16LE(1, 44);
      shdr.push(s);
      smpl.push(Buffer.from(z.sample.buffer, z.sample.byteOffset, z.sample.byteLength), Buffer.alloc(46 * 2));
      at += z.sample.length + 46;
    }
  }
  /** A list's terminal record (EOI, EOP): its name and the index of the bag after the last one, which it opens. */
  const terminal = (name: string, size: number, bagAt: number, bags: Buffer[], gens: Buffer[]) => {
    const b = Buffer.alloc(size);
    name20(name).copy(b);
    b.writeUInt16LE(bags.length, bagAt);
    bags.push(bag(gens.length));
    gens.push(Buffer.alloc(4));
    return b;
  };
  const instEnd = terminal('EOI', 22, 20, ibag, igen);
  const shdrEnd = Buffer.alloc(46);
  name20('EOS').copy(shdrEnd);
  // One preset per instrument, one zone each, naming the instrument.
  const phdr: Buffer[] = [];
  const pbag: Buffer[] = [];
  const pgen: Buffer[] = [];
  instruments.forEach((ins, i) => {
    const p = Buffer.alloc(38);
    name20(ins.name).copy(p);
    p.writeUInt16LE(ins.program, 20);
    p.writeUInt16LE(ins.bank, 22);
    p.writeUInt16LE(pbag.length, 24);
    phdr.push(p);
    pbag.push(bag(pgen.length));
    pgen.push(gen(41, i));
  });
  const pEnd = terminal('EOP', 38, 24, pbag, pgen);
  const ifil = Buffer.alloc(4);
  ifil.writeUInt16LE(2, 0);
  ifil.writeUInt16LE(1, 2);
  // INFO strings end in a zero and have an even length (FluidSynth refuses the font otherwise).
  const text = (s: string) => Buffer.from(`${s}\0${s.length % 2 ? '' : '\0'}`, 'latin1');
  const info = list('INFO', [chunk('ifil', ifil), chunk('isng', text('EMU8000')), chunk('INAM', text('Reelsmith random'))]);
  const sdta = list('sdta', [chunk('smpl', Buffer.concat(smpl))]);
  const pdta = list('pdta', [
    chunk('phdr', Buffer.concat([...phdr, pEnd])),
    chunk('pbag', Buffer.concat(pbag)),
    chunk('pmod', Buffer.alloc(10)),
    chunk('pgen', Buffer.concat(pgen)),
    chunk('inst', Buffer.concat([...inst, instEnd])),
    chunk('ibag', Buffer.concat(ibag)),
    chunk('imod', Buffer.alloc(10)),
    chunk('igen', Buffer.concat(igen)),
    chunk('shdr', Buffer.concat([...shdr, shdrEnd])),
  ]);
  const body = Buffer.concat([Buffer.from('sfbk', 'latin1'), info, sdta, pdta]);
  return chunk('RIFF', body);
}

/**
 * Writes the font of `fontSeed` holding `programs` (General MIDI numbers, bank 0) and a drum kit
 * (bank 128) to `file`. A program's timbre depends only on the seed and the program.
 */
export function writeRandomFont(fontSeed: number, programs: Iterable<number>, file: string): string {
  const wanted = [...new Set(programs)].sort((a, b) => a - b);
  fs.writeFileSync(file, soundFont([...wanted.map((p) => instrumentOf(fontSeed, p)), instrumentOf(fontSeed, -1)]));
  return file;
}
