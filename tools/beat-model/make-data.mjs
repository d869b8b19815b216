#!/usr/bin/env node
/* global process, console */
// Renders generated songs and writes the beat model's training data: per song the model input
// (packages/engine/src/beat-features.ts, the same code the engine runs) and its beats and downbeats.
//   node tools/beat-model/make-data.mjs <out dir> <first seed> <count> [--excerpts] [--font=PATH] [--synth]
// Fonts: the training fonts (TRAIN_FONTS, chosen by seed), or --font= one of them or, for
// validation seeds only, VALIDATION_FONT for every seed; the held-out font is never used here.
// --synth (training seeds): the training fonts played by TiMidity++ (TRAIN_SYNTHS, chosen by seed)
// instead of FluidSynth; the held-out synthesiser's configuration (freepats) is never used here.
// --random-fonts (training seeds): each song played by FluidSynth through a sound font of its own,
// drawn from the seed (random-font.ts: every program's timbre and the drum kit random).
// --excerpts (training seeds): songs of 12-22 s instead of 26-44 s (more songs for the same CPU),
// and 40 % of them with the style's tempo scaled by 0.7-1.45 (kept within 55-210 BPM): tempo
// augmentation in the audio, the score's beats still exact. Both drawn from the seed.
// Needs the engine built (node scripts/build.js), fluidsynth and the sound fonts.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { decodeAudio } from '../../packages/engine/dist/music-analysis.js';
import { mulberry32 } from '../../packages/engine/dist/numeric.js';
import { SEEDS, TRAIN_FONTS, TRAIN_SYNTHS, VALIDATION_FONT, renderGenerated } from '../../packages/engine/dist/bench/corpus/augment.js';
import { generateSong } from '../../packages/engine/dist/bench/corpus/generator.js';
import { writeRandomFont } from '../../packages/engine/dist/bench/corpus/random-font.js';
import { writeTrainingExample } from '../../packages/engine/dist/bench/corpus/training-data.js';

const args = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const excerpts = process.argv.includes('--excerpts');
const onlyFont = process.argv.find((a) => a.startsWith('--font='))?.slice('--font='.length);
const synth = process.argv.includes('--synth');
const randomFonts = process.argv.includes('--random-fonts');
if ([synth, onlyFont !== undefined, randomFonts].filter(Boolean).length > 1)
  throw new Error('--synth, --font= and --random-fonts exclude each other');
if (onlyFont !== undefined && ![...TRAIN_FONTS, VALIDATION_FONT].includes(onlyFont)) {
  throw new Error(`--font must be a training font or the validation font: ${[...TRAIN_FONTS, VALIDATION_FONT].join(', ')}`);
}
const [out, first, count] = [args[0], Number(args[1] ?? 0), Number(args[2] ?? 100)];
if (excerpts && first + count > SEEDS.validation) throw new Error('--excerpts is for training seeds only');
if (synth && first + count > SEEDS.validation) throw new Error('--synth is for training seeds only');
if (randomFonts && first + count > SEEDS.validation) throw new Error('--random-fonts is for training seeds only');
if (onlyFont === VALIDATION_FONT && (first < SEEDS.validation || first + count > SEEDS.test))
  throw new Error('--font: the validation font is for validation seeds only');
fs.mkdirSync(out, { recursive: true });
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'beat-model-render-'));
const t0 = Date.now();

/** The song of a seed: as the bench draws it, or (--excerpts) a short excerpt, maybe at another tempo. */
function songOf(seed) {
  if (!excerpts) return generateSong(seed);
  const r = mulberry32(seed * 104729 + 3);
  const durationSec = [12, 22];
  let tempoScale = r() < 0.4 ? Math.exp(Math.log(0.7) + r() * (Math.log(1.45) - Math.log(0.7))) : 1;
  const plain = generateSong(seed, undefined, { durationSec });
  tempoScale = Math.min(210 / plain.bpm, Math.max(55 / plain.bpm, tempoScale));
  return tempoScale === 1 ? plain : generateSong(seed, undefined, { durationSec, tempoScale });
}

for (let seed = first; seed < first + count; seed++) {
  const base = path.join(out, String(seed));
  if (fs.existsSync(`${base}.json`)) continue;
  const song = songOf(seed);
  // Font by seed: a hash spreads every style over every training font.
  const bands = synth ? TRAIN_SYNTHS : TRAIN_FONTS;
  const font = randomFonts
    ? writeRandomFont(seed, Object.values(song.midi.programs), path.join(tmp, `random-${seed}.sf2`))
    : (onlyFont ?? bands[((seed * 2654435761) >>> 0) % bands.length]);
  const file = renderGenerated(song, font, tmp);
  const samples = await decodeAudio(file);
  fs.rmSync(file, { force: true });
  if (randomFonts) fs.rmSync(font, { force: true });
  writeTrainingExample(base, samples, song, font);
  if ((seed - first) % 20 === 0) console.log(`${seed} ${song.style} ${song.bpm} BPM ${((Date.now() - t0) / 1000).toFixed(0)} s`);
}
fs.rmSync(tmp, { recursive: true, force: true });
console.log(`done in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
