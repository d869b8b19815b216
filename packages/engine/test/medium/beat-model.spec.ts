/**
 * The learned beat model (analyseMusic, the product's path since analysis version 8): the
 * committed model loads and tracks short songs correctly: generated pop and house songs (held-out test seeds, never trained
 * on) played by FluidSynth, and a synthesised 3/4 song (test/song.ts: no sampled instruments).
 * Training and inference read the same features (training-data.ts writes what beat-features.ts
 * computes; the model gives the same activations from the file as from the samples).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { activationsOf, beatActivations, BEAT_MODEL_FILE } from '../../src/beat-model';
import { beatContinuity, beatFMeasure } from '../../src/beat-measures';
import { MUSIC_ANALYSIS_VERSION } from '../../src/beat-tracker';
import { analyseMusic, decodeAudio } from '../../src/music-analysis';
import { renderGenerated, SEEDS } from '../../src/bench/corpus/augment';
import { generateSong, STYLE_NAMES } from '../../src/bench/corpus/generator';
import { writeRandomFont } from '../../src/bench/corpus/random-font';
import { readTrainingFeatures, writeTrainingExample } from '../../src/bench/corpus/training-data';
import { riseCurves, tempoPriorInput } from '../../src/beat-tempo-prior';
import { synthSong, writeSong } from '../song';

const FONT = '/usr/share/sounds/sf2/FluidR3_GM.sf2';

describe('the beat model', () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'beat-model-'));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('is committed and small', () => {
    expect(fs.statSync(BEAT_MODEL_FILE).size).toBeLessThan(10 * 1024 * 1024);
  });

  it('tracks generated songs of held-out seeds: beats, tempo, meter, downbeats, confidence', async () => {
    // The first test seed of two styles, played by FluidSynth. Pop meets every target; house
    // (four on the floor with off-beat bass and hats, where the rule-based tracker put no cut on a
    // beat) is tracked at F 0.97 and CMLt 0.95; its continuity is not held to the bench's 0.90 here
    // (the model before this one gave 0.88). Two FluidSynth renders: a minute on a loaded machine.
    for (const style of ['pop', 'house']) {
      const song = generateSong(SEEDS.test + STYLE_NAMES.indexOf(style), style);
      const file = renderGenerated(song, FONT, dir);
      const m = await analyseMusic(file, song.durationSec);
      expect(beatFMeasure(m.beats, song.beats)).toBeGreaterThanOrEqual(0.9);
      if (style === 'pop') expect(beatContinuity(m.beats, song.beats).cmlt).toBeGreaterThanOrEqual(0.9);
      expect(Math.abs(m.bpm / song.bpm - 1)).toBeLessThan(0.01);
      expect(m.beatsPerBar).toBe(4);
      expect(beatFMeasure(m.bars, song.downbeats)).toBeGreaterThanOrEqual(0.8);
      expect(m.confidence).toBeGreaterThanOrEqual(0.5);
      expect(m.version).toBe(MUSIC_ANALYSIS_VERSION);
    }
  }, 120_000);

  it('tracks a synthesised waltz in 3/4', async () => {
    const song = synthSong({
      bpm: 150,
      beatsPerBar: 3,
      form: [
        ['intro', 2],
        ['verse', 6],
        ['chorus', 6],
      ],
    });
    const file = path.join(dir, 'waltz.wav');
    writeSong(song, file);
    const m = await analyseMusic(file, song.durationSec);
    expect(beatFMeasure(m.beats, song.beats)).toBeGreaterThanOrEqual(0.9);
    expect(m.beatsPerBar).toBe(3);
    // Its downbeats are not asserted: the model puts them on the wrong beat of this bar (a
    // known miss, docs/beat-bench.md).
  });

  it('hears the beats of a training song played through a random sound font (make-data.mjs --random-fonts)', async () => {
    // A pop excerpt of the training seeds through a font of its own (random-font.ts): FluidSynth
    // loads it and plays every part, and the committed model finds the score's beats in it.
    const song = generateSong(SEEDS.train + STYLE_NAMES.indexOf('pop'), 'pop', { durationSec: [14, 16] });
    const programs = Object.values(song.midi.programs).filter((p): p is number => p !== undefined);
    const font = writeRandomFont(song.seed, programs, path.join(dir, 'random.sf2'));
    // FluidSynth says so on stderr, and plays nothing, when it refuses a font.
    const loaded = spawnSync('fluidsynth', ['-ni', '-q', '-F', path.join(dir, 'load.wav'), font], { encoding: 'utf8' });
    expect(loaded.stderr).not.toMatch(/error|fail/i);
    const file = renderGenerated(song, font, dir);
    const m = await analyseMusic(file, song.durationSec);
    expect(beatFMeasure(m.beats, song.beats)).toBeGreaterThanOrEqual(0.9);
    expect(Math.abs(m.bpm / song.bpm - 1)).toBeLessThan(0.02);
  }, 60_000);

  it('gives the same activations from a training file as from the samples (one feature code)', async () => {
    const song = generateSong(SEEDS.test + 1, STYLE_NAMES[1]);
    const file = renderGenerated(song, FONT, dir);
    const samples = await decodeAudio(file);
    const base = path.join(dir, 'example');
    writeTrainingExample(base, samples, song, FONT);
    const f = readTrainingFeatures(base);
    const rises = riseCurves(f.data, f.bands, f.frames);
    const fromFile = await activationsOf(f.data, f.bands, f.frames);
    const live = await beatActivations(samples);
    expect(fromFile.beat.length).toBe(live.beat.length);
    expect(Array.from(fromFile.beat)).toEqual(Array.from(live.beat));
    expect(Array.from(fromFile.downbeat)).toEqual(Array.from(live.downbeat));
    // The tempo prior's input (tools/beat-model/tempo-data.mjs reads it from the file) too.
    expect(live.rises?.map((r) => Array.from(r))).toEqual(rises.map((r) => Array.from(r)));
    expect(Array.from(tempoPriorInput({ ...fromFile, rises }))).toEqual(Array.from(tempoPriorInput({ ...live, rises: live.rises! })));
    expect(execFileSync('fluidsynth', ['--version'], { encoding: 'utf8' })).toMatch(/FluidSynth/);
  });
});
