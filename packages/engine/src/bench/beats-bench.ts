/**
 * npm run bench:beats
 *
 * The beat tracker on music whose true beats are known exactly, in two sets.
 *
 * The corpus (corpus/): songs in eighteen styles written as scores and played by sampled
 * instruments (FluidSynth, General MIDI sound font), with room echoes, noise and MP3 encoding
 * (cached under $TMPDIR/reelsmith-beat-corpus). Per song: F-measure at 70 ms, CMLt and AMLt, the
 * share of a high-energy plan's cuts within 40 ms of a true beat, the tempo and meter found
 * against the score's, and aubio's raw beats scored the same way (aubio runs beside the tracker,
 * as a comparison: the tracker's beats are the ones the product computes, without aubio). `--only=<part of a name>`
 * runs the matching songs alone; `--corpus` skips the synthetic set and the speed run.
 *
 * The synthetic set: generated drum tracks (steady,
 * tempo step, tempo ramp, a drifting live drummer with timing jitter, syncopated with loud
 * off-beat hats, a 16-beat break, swing, half/double-time bait, a reggae one-drop with its chords
 * off the beat, a step to 1.5x the tempo, a fast 172 BPM song, a quiet intro with a fade-out;
 * see beat-tracks.ts), encodes each to MP3 as a user would upload it, runs the engine's whole
 * music analysis on the file (decode, envelope, tempo curve, tracking) and prints per track:
 *  - the share of true beats with a tracked beat within 50 ms,
 *  - the F-measure of the tracked beats at 70 ms,
 *  - the share of a high-energy beat-mapped plan's cuts that lie within 40 ms of a true beat.
 * Then the 10-minute 120 BPM track of bench:render: accuracy and speed against real time.
 * Targets are printed next to the figures; nothing is asserted.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beatAccuracy, beatContinuity, beatFMeasure, cutsOnBeat } from '../beat-measures.js';
import type { MusicAnalysis } from '../beat-tracker.js';
import { analyseMusic } from '../music-analysis.js';
import { planEdit } from '../plan.js';
import { STEADY_10MIN_SOURCE, beatTracks } from './beat-tracks.js';
import { canRender, corpusDir, renderSong } from './corpus/corpus.js';
import { corpusSongs } from './corpus/songs.js';

const log = (s: string) => process.stdout.write(`${s}\n`);
const now = () => performance.now() / 1000;
const pct = (x: number) => `${(x * 100).toFixed(1)} %`;

/** Share of a high-energy, beat-mapped plan's cuts within `tol` of a true beat. */
export function planCutsOnBeat(analysis: MusicAnalysis, truth: number[], tol = 0.04) {
  const plan = planEdit({
    // Four long clips without analysis: every cut is the beat grid's choice.
    clips: [40, 35, 50, 45].map((d) => ({ durationSec: d })),
    music: { durationSec: analysis.durationSec, analysis },
    pacing: 'high-energy',
    beatMapping: true,
    intelligence: false,
    fps: 30,
  });
  const cuts = plan.segments.slice(1).map((s) => s.start);
  const on = Math.round(cutsOnBeat(cuts, truth, tol) * cuts.length);
  return { cuts: cuts.length, on };
}

const f2 = (x: number) => x.toFixed(2);

/** The corpus table; returns how many songs meet every target. */
async function corpusTable(only: string | undefined): Promise<void> {
  if (!canRender()) {
    log('corpus: SKIPPED (needs fluidsynth and /usr/share/sounds/sf2/FluidR3_GM.sf2: apt-get install fluidsynth fluid-soundfont-gm)');
    return;
  }
  const songs = corpusSongs().filter((s) => !only || s.name.includes(only));
  log(`corpus: ${songs.length} songs (MIDI -> FluidSynth -> room, noise, MP3; cache ${corpusDir()})`);
  const t0 = now();
  const files = songs.map((s) => renderSong(s));
  log(`rendered in ${(now() - t0).toFixed(1)} s (${files.filter((f) => f.cached).length} from the cache)`);
  log('');
  log(
    `${'song'.padEnd(22)} ${'cuts'.padStart(6)} ${'F'.padStart(5)} ${'CMLt'.padStart(5)} ${'AMLt'.padStart(5)}  ${'tempo found/true'.padStart(18)}  ${'meter'.padStart(5)}  ${'conf'.padStart(4)}  aubio F/CMLt/AMLt  verdict`,
  );
  let met = 0;
  for (const [i, song] of songs.entries()) {
    const m = await analyseMusic(files[i]!.file, song.durationSec, undefined, undefined, { aubio: true });
    const f = beatFMeasure(m.beats, song.beats);
    const c = beatContinuity(m.beats, song.beats);
    const a = beatContinuity(m.rawBeats, song.beats);
    const af = beatFMeasure(m.rawBeats, song.beats);
    const cuts = planCutsOnBeat(m, song.beats);
    const share = cuts.on / Math.max(1, cuts.cuts);
    const meter = (m as MusicAnalysis & { beatsPerBar?: number }).beatsPerBar ?? 4;
    const ok = song.rubato ? share >= 0.85 : share >= 0.95 && f >= 0.9 && c.cmlt >= 0.9 && f >= af - 0.005;
    if (ok) met++;
    const misses = [
      share < (song.rubato ? 0.85 : 0.95) && 'cuts',
      !song.rubato && f < 0.9 && 'F',
      !song.rubato && c.cmlt < 0.9 && 'CMLt',
      !song.rubato && f < af - 0.005 && 'below aubio',
    ].filter(Boolean);
    log(
      `${song.name.padEnd(22)} ${pct(share).padStart(6)} ${f2(f).padStart(5)} ${f2(c.cmlt).padStart(5)} ${f2(c.amlt).padStart(5)}  ${`${m.bpm.toFixed(1)}/${song.bpm}`.padStart(18)}  ${`${meter}/${song.beatsPerBar}`.padStart(5)}  ${f2(m.confidence).padStart(4)}  ${`${f2(af)}/${f2(a.cmlt)}/${f2(a.amlt)}`.padStart(17)}  ${ok ? 'meets target' : `MISSES (${misses.join(', ')})`}`,
    );
  }
  log('');
  log(
    `corpus: ${met}/${songs.length} songs at target (cuts >= 95 %, F >= 0.90, CMLt >= 0.90, F not below aubio's; solo rubato: cuts >= 85 %)`,
  );
  log('');
}

async function main(): Promise<void> {
  const only = process.argv.find((a) => a.startsWith('--only='))?.slice(7);
  await corpusTable(only);
  if (only || process.argv.includes('--corpus')) return;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'reelsmith-beats-'));
  try {
    log('generating the tracks...');
    const tracks = beatTracks();
    log('');
    log(
      `${'track'.padEnd(20)} ${'within 50 ms'.padStart(12)} ${'F at 70 ms'.padStart(11)} ${'CMLt'.padStart(5)} ${'cuts on a beat (40 ms)'.padStart(24)}  tempo  description`,
    );
    let allBeats = true;
    let allCuts = true;
    for (const tr of tracks) {
      const file = path.join(dir, `${tr.name.replace(/\W+/g, '-')}.mp3`);
      execFileSync(
        'ffmpeg',
        [
          '-v',
          'error',
          '-y',
          '-f',
          'f32le',
          '-ar',
          String(tr.sampleRate),
          '-ac',
          '1',
          '-i',
          'pipe:0',
          '-c:a',
          'libmp3lame',
          '-b:a',
          '192k',
          file,
        ],
        { input: Buffer.from(tr.samples.buffer, tr.samples.byteOffset, tr.samples.byteLength) },
      );
      const durationSec = tr.samples.length / tr.sampleRate;
      const m = await analyseMusic(file, durationSec);
      const acc = beatAccuracy(m.beats, tr.beats, 0.05);
      const f = beatFMeasure(m.beats, tr.beats, 0.07);
      const cml = beatContinuity(m.beats, tr.beats).cmlt;
      const cuts = planCutsOnBeat(m, tr.beats);
      allBeats &&= acc >= 0.95;
      allCuts &&= cuts.on === cuts.cuts;
      log(
        `${tr.name.padEnd(20)} ${pct(acc).padStart(12)} ${pct(f).padStart(11)} ${f2(cml).padStart(5)} ${`${cuts.on}/${cuts.cuts} = ${pct(cuts.on / Math.max(1, cuts.cuts))}`.padStart(24)}  ${m.bpm.toFixed(1).padStart(5)}  ${tr.description}`,
      );
    }
    log('');
    log(`every track >= 95 % of beats within 50 ms: ${allBeats ? 'meets target' : 'MISSES target'}`);
    log(`every cut of every plan on a true beat:     ${allCuts ? 'meets target' : 'MISSES target'}`);

    log('');
    log('the 10-minute 120 BPM track (kick on the beat, hi-hat on the off-beat, MP3)...');
    const long = path.join(dir, 'track-10min-120bpm.mp3');
    execFileSync('ffmpeg', [
      '-v',
      'error',
      '-y',
      '-f',
      'lavfi',
      '-i',
      `${STEADY_10MIN_SOURCE}:s=44100:d=600`,
      '-c:a',
      'libmp3lame',
      '-b:a',
      '160k',
      long,
    ]);
    const t = now();
    const m = await analyseMusic(long, 600);
    const sec = now() - t;
    const withAubio = await analyseMusic(long, 600, undefined, undefined, { aubio: true });
    const reference = Array.from({ length: 1200 }, (_, i) => i * 0.5);
    const acc = beatAccuracy(m.beats, reference);
    log(
      `steady 10 min           ${pct(acc)} of beats within 50 ms (raw aubio ${pct(beatAccuracy(withAubio.rawBeats, reference))}), F ${pct(beatFMeasure(m.beats, reference))}, ${m.bpm} BPM   target >= 99.9 %  ${acc >= 0.999 ? 'meets target' : 'MISSES target'}`,
    );
    const cuts = planCutsOnBeat(m, reference);
    log(`                        plan cuts on a beat ${cuts.on}/${cuts.cuts}`);
    log(
      `beat analysis speed     ${sec.toFixed(2)} s for 600 s (decode, envelope, tempo curve, tracking) = ${(600 / sec).toFixed(1)}x real time   target >= 50x  ${600 / sec >= 50 ? 'meets target' : 'MISSES target'}`,
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (require.main === module)
  main().catch((e: unknown) => {
    process.stderr.write(`bench failed: ${e instanceof Error ? e.stack : String(e)}\n`);
    process.exit(1);
  });
