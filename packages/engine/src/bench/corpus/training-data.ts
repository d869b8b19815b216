/**
 * The beat model's training examples as tools/beat-model/make-data.mjs writes them and
 * tools/beat-model/train.py reads them: `<seed>.f32`, the model input of beat-features.ts (the
 * function the engine runs at inference) as little-endian float32, channel-major
 * [2 * bands][frames]; and `<seed>.json`, the song's beats, downbeats, meter, style and font.
 */
import fs from 'node:fs';
import path from 'node:path';
import { beatFeatures } from '../../beat-features.js';
import type { GeneratedSong } from './generator.js';

export function writeTrainingExample(base: string, samples: Float32Array, song: GeneratedSong, font: string): void {
  const f = beatFeatures(samples);
  fs.writeFileSync(`${base}.f32`, Buffer.from(f.data.buffer, f.data.byteOffset, f.data.byteLength));
  fs.writeFileSync(
    `${base}.json`,
    JSON.stringify({
      seed: song.seed,
      style: song.style,
      font: path.basename(font),
      bands: f.bands,
      frames: f.frames,
      beats: song.beats,
      downbeats: song.downbeats,
      beatsPerBar: song.beatsPerBar,
      bpm: song.bpm,
    }),
  );
}

/** The features of an example, read as train.py reads them (numpy.fromfile(float32).reshape(2 * bands, frames)). */
export function readTrainingFeatures(base: string): { data: Float32Array; bands: number; frames: number } {
  const meta = JSON.parse(fs.readFileSync(`${base}.json`, 'utf8')) as { bands: number; frames: number };
  const buf = fs.readFileSync(`${base}.f32`);
  const data = new Float32Array(buf.length / 4);
  for (let i = 0; i < data.length; i++) data[i] = buf.readFloatLE(i * 4);
  if (data.length !== 2 * meta.bands * meta.frames)
    throw new Error(`${base}.f32: ${data.length} values, not 2 x ${meta.bands} x ${meta.frames}`);
  return { data, bands: meta.bands, frames: meta.frames };
}
