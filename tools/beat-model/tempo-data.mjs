#!/usr/bin/env node
/* global process, console, Buffer */
// Writes the tempo prior's training data (packages/engine/src/beat-tempo-prior.ts): for every song
// that make-data.mjs wrote to <data dir>, the prior's input (tempoPriorInput, the engine's own
// code, on the beat model's activations and the features' rise curves) and the song's beat period
// in the decoding's frames (50 x the median inter-beat interval).
//   node tools/beat-model/tempo-data.mjs <data dir> <out base> [--variants=K] [--seeds=LO-HI] [--model=beats.onnx]
// --variants=K (training): besides the song as it is, K - 1 copies read faster or slower by
// 0.8-1.25 (drawn from the seed; kept within the decoding's periods): tempo augmentation. Writes
// <out base>.f32 (float32 rows of TEMPO_INPUT_SIZE) and <out base>.json (per row: seed, style,
// tau, stretch).
import fs from 'node:fs';
import path from 'node:path';
import { MAX_TAU, MIN_TAU } from '../../packages/engine/dist/beat-dbn.js';
import { activationsOf, useBeatModel } from '../../packages/engine/dist/beat-model.js';
import { TEMPO_INPUT_SIZE, riseCurves, tempoPriorInput } from '../../packages/engine/dist/beat-tempo-prior.js';
import { mulberry32 } from '../../packages/engine/dist/numeric.js';
import { readTrainingFeatures } from '../../packages/engine/dist/bench/corpus/training-data.js';

const args = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const opt = (name) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const [dir, out] = args;
const variants = Number(opt('variants') ?? 1);
// --seeds=LO-HI: only these seeds (the validation rows: 500000-999999 of a folder that holds the
// beat model's training excerpts too).
const seeds = (opt('seeds') ?? '0-999999').split('-').map(Number);
if (opt('model')) useBeatModel(opt('model'));
const files = fs
  .readdirSync(dir)
  .filter((f) => f.endsWith('.json'))
  .sort((a, b) => parseInt(a) - parseInt(b));
const rows = [];
const chunks = [];
const t0 = Date.now();
for (const f of files) {
  const meta = JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8'));
  if (!(meta.seed < 1000000) || meta.seed < seeds[0] || meta.seed > seeds[1]) continue; // never a test seed
  const ibi = meta.beats
    .slice(1)
    .map((b, i) => b - meta.beats[i])
    .sort((a, b) => a - b);
  if (ibi.length < 4) continue;
  const tau = 50 * ibi[ibi.length >> 1];
  const x = readTrainingFeatures(path.join(dir, f.slice(0, -5)));
  const rises = riseCurves(x.data, x.bands, x.frames);
  const act = await activationsOf(x.data, x.bands, x.frames);
  const r = mulberry32(meta.seed * 7919 + 11);
  for (let v = 0; v < variants; v++) {
    const stretch = v === 0 ? 1 : Math.exp(Math.log(0.8) + r() * (Math.log(1.25) - Math.log(0.8)));
    const t = tau / stretch;
    if (t < MIN_TAU || t > MAX_TAU) continue;
    chunks.push(tempoPriorInput({ beat: act.beat, downbeat: act.downbeat, rises, fps: act.fps }, stretch));
    rows.push({ seed: meta.seed, style: meta.style, tau: Math.round(t * 1000) / 1000, stretch: Math.round(stretch * 1e4) / 1e4 });
  }
  if (rows.length % 200 < variants) console.log(`${rows.length} rows ${((Date.now() - t0) / 1000).toFixed(0)} s`);
}
const all = new Float32Array(chunks.length * TEMPO_INPUT_SIZE);
chunks.forEach((c, i) => all.set(c, i * TEMPO_INPUT_SIZE));
fs.writeFileSync(`${out}.f32`, Buffer.from(all.buffer));
fs.writeFileSync(`${out}.json`, JSON.stringify({ inputs: TEMPO_INPUT_SIZE, rows }));
console.log(`${rows.length} rows from ${files.length} songs in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
process.exit(0);
