#!/usr/bin/env node
/* global process, console */
// Renders generated songs and writes the beat model's training data: per song the model input
// (packages/engine/src/beat-features.ts, the same code the engine runs) and its beats and downbeats.
//   node tools/beat-model/make-data.mjs <out dir> <first seed> <count>
// Fonts: the training fonts only (TRAIN_FONTS, chosen by seed); the held-out font is never used here.
// Needs the engine built (node scripts/build.js), fluidsynth and the sound fonts.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { decodeAudio } from '../../packages/engine/dist/music-analysis.js';
import { TRAIN_FONTS, renderGenerated } from '../../packages/engine/dist/bench/corpus/augment.js';
import { generateSong } from '../../packages/engine/dist/bench/corpus/generator.js';
import { writeTrainingExample } from '../../packages/engine/dist/bench/corpus/training-data.js';

const [out, first, count] = [process.argv[2], Number(process.argv[3] ?? 0), Number(process.argv[4] ?? 100)];
fs.mkdirSync(out, { recursive: true });
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'beat-model-render-'));
const t0 = Date.now();
for (let seed = first; seed < first + count; seed++) {
  const base = path.join(out, String(seed));
  if (fs.existsSync(`${base}.json`)) continue;
  const song = generateSong(seed);
  // Font by seed: a hash spreads every style over every training font.
  const font = TRAIN_FONTS[((seed * 2654435761) >>> 0) % TRAIN_FONTS.length];
  const file = renderGenerated(song, font, tmp);
  const samples = await decodeAudio(file);
  fs.rmSync(file, { force: true });
  writeTrainingExample(base, samples, song, font);
  if ((seed - first) % 20 === 0) console.log(`${seed} ${song.style} ${((Date.now() - t0) / 1000).toFixed(0)} s`);
}
fs.rmSync(tmp, { recursive: true, force: true });
console.log(`done in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
