/**
 * Renders a generated song (generator.ts) as a band and a user's file would make it: FluidSynth
 * with one of Debian's General MIDI sound fonts, then ffmpeg with a random room, EQ, compression,
 * noise, level and lossy encoding, all drawn from the seed. The sound fonts are split: the model
 * trains on TRAIN_FONTS (and on the same fonts played by TiMidity++, TRAIN_SYNTHS), settings are
 * chosen on validation seeds through TRAIN_FONTS and through VALIDATION_FONT, and HELD_OUT_FONT
 * and HELD_OUT_SYNTH (TiMidity++ with freepats) are used only by the bench.
 */
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { mulberry32 } from '../../numeric.js';
import type { GeneratedSong } from './generator.js';
import { hasCommand } from './corpus.js';
import { writeMidi } from './midi.js';

export const TRAIN_FONTS = [
  '/usr/share/sounds/sf2/FluidR3_GM.sf2',
  '/usr/share/sounds/sf2/TimGM6mb.sf2',
  '/usr/share/sounds/sf2/OPL-3_FM_128M.sf2',
] as const;
/**
 * A band that no committed model trains on, for validation songs only (make-data.mjs `--font=`):
 * the decoding's and the plan's settings are chosen on the validation seeds through it as well as
 * through TRAIN_FONTS, as a band the model never heard will sound, without touching HELD_OUT_FONT.
 * csound's General MIDI bank (Debian's csound-soundfont).
 */
export const VALIDATION_FONT = '/usr/share/sounds/sf2/sf_GMbank.sf2';
/** Never used in training or tuning. */
export const HELD_OUT_FONT = '/usr/share/sounds/sf3/MuseScore_General_Lite.sf3';
/** A band played by TiMidity++ rather than FluidSynth: `timidity:<its configuration file>`. */
const TIMIDITY = 'timidity:';
/**
 * A second held-out band, from another synthesiser and another sample set: TiMidity++ with the
 * freepats patches (Debian's `timidity` and `freepats`; the configuration is named, since Debian's
 * default one plays FluidR3_GM, a training font). Never used in training or tuning; the bench only.
 */
export const HELD_OUT_SYNTH = `${TIMIDITY}/etc/timidity/freepats.cfg`;
/**
 * The training fonts played by TiMidity++ instead of FluidSynth (Debian's configurations for
 * them): the same samples through another engine's envelopes, interpolation and mixing, so the
 * model hears more than one way each font can sound (make-data.mjs `--synth`). Training only.
 */
export const TRAIN_SYNTHS = [
  `${TIMIDITY}/etc/timidity/fluidr3_gm.cfg`,
  `${TIMIDITY}/etc/timidity/timgm6mb.cfg`,
  `${TIMIDITY}/etc/timidity/opl3.cfg`,
] as const;

/** Whether a band (a sound font's file, or HELD_OUT_SYNTH's kind) can be rendered on this machine. */
export function bandAvailable(band: string): boolean {
  if (!band.startsWith(TIMIDITY)) return fs.existsSync(band);
  return fs.existsSync(band.slice(TIMIDITY.length)) && hasCommand('timidity');
}

/** The synthesiser's command that writes `mid` played by `band` to `wav` (mono, 22,050 Hz). */
function synthArgs(band: string, mid: string, wav: string): [string, string[]] {
  if (band.startsWith(TIMIDITY))
    // --preserve-silence: TiMidity++ drops the silence before the first note by default, which
    // would move every beat of the score.
    return ['timidity', ['-c', band.slice(TIMIDITY.length), '-Ow', '-s', '22050', '--output-mono', '--preserve-silence', '-o', wav, mid]];
  return ['fluidsynth', ['-ni', '-q', '-g', '0.6', '-r', '22050', '-F', wav, band, mid]];
}

/** Seeds: training 0-99,999; validation (early stopping) 500,000+; held-out test 1,000,000+. */
export const SEEDS = { train: 0, validation: 500_000, test: 1_000_000 } as const;

const RENDER_VERSION = 1;

export function generatedDir(): string {
  return path.join(os.tmpdir(), 'reelsmith-beat-generated');
}

/** The ffmpeg filter chain and encoder for a seed's user-made degradation. */
export function degradation(
  seed: number,
  durationSec: number,
  fadeOutSec?: number,
): { filter: string; enc: string[]; ext: string; noise: string } {
  const r = mulberry32(seed * 31 + 5);
  const u = (lo: number, hi: number) => lo + (hi - lo) * r();
  const f: string[] = ['aformat=channel_layouts=mono'];
  if (r() < 0.6) {
    const n = 1 + Math.floor(r() * 3);
    const delays = Array.from({ length: n }, () => Math.round(u(8, 90)));
    const decays = delays.map(() => u(0.08, 0.4).toFixed(2));
    f.push(`aecho=0.9:0.85:${delays.join('|')}:${decays.join('|')}`);
  }
  if (r() < 0.7) f.push(`equalizer=f=${Math.round(u(60, 300))}:t=q:w=1:g=${u(-8, 8).toFixed(1)}`);
  if (r() < 0.7) f.push(`equalizer=f=${Math.round(u(1000, 6000))}:t=q:w=1:g=${u(-9, 6).toFixed(1)}`);
  if (r() < 0.3) f.push(`highpass=f=${Math.round(u(40, 200))}`);
  if (r() < 0.3) f.push(`lowpass=f=${Math.round(u(3500, 10000))}`);
  if (r() < 0.5)
    f.push(
      `acompressor=threshold=${u(0.03, 0.3).toFixed(3)}:ratio=${u(2, 8).toFixed(1)}:attack=${u(2, 30).toFixed(0)}:release=${u(50, 300).toFixed(0)}`,
    );
  f.push(`volume=${u(0.35, 1.1).toFixed(2)}`);
  const noise = r() < 0.8 ? u(0.001, 0.03) : 0;
  const color = ['pink', 'white', 'brown'][Math.floor(r() * 3)]!;
  const fade = fadeOutSec ? `,afade=t=out:st=${(durationSec - fadeOutSec).toFixed(3)}:d=${fadeOutSec}` : '';
  const filter =
    `[0:a]${f.join(',')},atrim=0:${durationSec},apad=whole_dur=${durationSec}[m];` +
    `[1:a]aformat=channel_layouts=mono,volume=${noise.toFixed(4)}[n];[m][n]amix=inputs=2:duration=first:normalize=0${fade},alimiter=limit=0.98[out]`;
  const kind = r();
  if (kind < 0.6)
    return { filter, noise: color, enc: ['-c:a', 'libmp3lame', '-b:a', `${[64, 96, 128, 192][Math.floor(r() * 4)]}k`], ext: 'mp3' };
  if (kind < 0.85) return { filter, noise: color, enc: ['-c:a', 'aac', '-b:a', `${[64, 96, 128][Math.floor(r() * 3)]}k`], ext: 'm4a' };
  return { filter, noise: color, enc: ['-c:a', 'pcm_s16le'], ext: 'wav' };
}

/** Renders (or finds in the cache) the song through `font` (a band: see bandAvailable); returns the audio file. */
export function renderGenerated(song: GeneratedSong, font: string, dir = generatedDir()): string {
  fs.mkdirSync(dir, { recursive: true });
  const midi = writeMidi(song.midi);
  const deg = degradation(song.seed, song.durationSec, song.fadeOutSec);
  const hash = crypto.createHash('sha256').update(midi).update(JSON.stringify({ RENDER_VERSION, font, deg })).digest('hex').slice(0, 10);
  const file = path.join(dir, `${song.name}-${path.basename(font).split('.')[0]}-${hash}.${deg.ext}`);
  if (fs.existsSync(file)) return file;
  const mid = `${file}.mid`;
  const wav = `${file}.synth.wav`;
  fs.writeFileSync(mid, midi);
  try {
    const [synth, args] = synthArgs(font, mid, wav);
    execFileSync(synth, args, { stdio: 'ignore' });
    const tmp = `${file}.part.${deg.ext}`;
    execFileSync(
      'ffmpeg',
      [
        '-v',
        'error',
        '-y',
        '-i',
        wav,
        '-f',
        'lavfi',
        '-i',
        `anoisesrc=color=${deg.noise}:amplitude=1:sample_rate=22050:seed=${song.seed % 1000}:duration=${song.durationSec}`,
        '-filter_complex',
        deg.filter,
        '-map',
        '[out]',
        '-ar',
        '22050',
        ...deg.enc,
        tmp,
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    fs.renameSync(tmp, file);
  } finally {
    fs.rmSync(mid, { force: true });
    fs.rmSync(wav, { force: true });
  }
  return file;
}
