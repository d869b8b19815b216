/**
 * npm run bench:beats
 *
 * The beat tracking on music whose true beats are known exactly: the learned model, the
 * product's path (analyseMusic: beat-model.ts, beat-dbn.ts), beside the rule-based tracker
 * (beat-tracker.ts, `analyseMusicRules` here) that it replaced.
 *
 * 1. Generated songs never trained on (corpus/generator.ts, corpus/augment.ts): per style,
 *    `--per-style=N` (2) held-out seeds through the training sound fonts, then N other held-out
 *    seeds through the held-out sound font (cached under $TMPDIR/reelsmith-beat-generated).
 *    Per style: songs at target (cuts >= 95 % within 40 ms, F >= 0.90, CMLt >= 0.90; a rubato
 *    song also with cuts >= 85 % and a confidence under 0.5), the mean share of a high-energy plan's cuts on a
 *    beat, F, CMLt, downbeat F (meter 3 or 4), meters right, the mean confidence, and each miss.
 * 2. The corpus (corpus/songs*.ts): eighteen songs written as scores, played by FluidSynth with
 *    the General MIDI sound font, with room, noise and MP3 (cached under
 *    $TMPDIR/reelsmith-beat-corpus); aubio's raw beats and the old tracker beside.
 * 3. The synthetic set (beat-tracks.ts): generated drum tracks (steps, ramps, a drifting
 *    drummer, off-beat hats, a break, swing, half/double-time bait, a one-drop, a fast song, a
 *    quiet intro with a fade-out), then the 10-minute 120 BPM track: accuracy, speed against
 *    real time, and the peak memory of a process that runs that analysis alone.
 * `--only=<part of a name>` runs matching styles and corpus songs; `--generated` only set 1,
 * `--corpus` only set 2; `--split=seeds` or `--split=font` one of the generated splits;
 * `--render-only` fills the caches. Targets are printed beside the
 * figures; nothing is asserted.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beatAccuracy, beatContinuity, beatFMeasure, cutsOnBeat } from '../beat-measures.js';
import { onsetEnvelope, trackBeats, type MusicAnalysis } from '../beat-tracker.js';
import { ANALYSIS_SAMPLE_RATE, analyseMusic, decodeAudio, rmsAfter } from '../music-analysis.js';
import { HELD_OUT_FONT, HELD_OUT_SYNTH, SEEDS, TRAIN_FONTS, bandAvailable, generatedDir, renderGenerated } from './corpus/augment.js';
import { STYLE_NAMES, generateSong, type GeneratedSong } from './corpus/generator.js';
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

/**
 * The rule-based tracker (beat-tracker.ts), the product's path until analysis version 8, as the
 * bench's comparison column.
 */
export async function analyseMusicRules(file: string, durationSec: number): Promise<MusicAnalysis> {
  const samples = await decodeAudio(file, ANALYSIS_SAMPLE_RATE);
  const duration = Math.min(durationSec, samples.length / ANALYSIS_SAMPLE_RATE);
  return trackBeats(onsetEnvelope(samples, ANALYSIS_SAMPLE_RATE), duration, {
    accentAt: (t) => rmsAfter(samples, ANALYSIS_SAMPLE_RATE, t, 0.1),
  });
}

interface SongScore {
  cuts: number;
  f: number;
  cmlt: number;
  /** Downbeat F-measure (meter 3 or 4 only; NaN otherwise). */
  down: number;
  meterOk: boolean;
  ok: boolean;
}

/** The target every song may meet: cuts >= 95 % within 40 ms, F and CMLt >= 0.90. */
const steadyTarget = (cuts: number, f: number, cmlt: number) => cuts >= 0.95 && f >= 0.9 && cmlt >= 0.9;

/**
 * A song's scores against the targets: cuts >= 95 %, F and CMLt >= 0.90; a solo rubato song also
 * meets them with cuts >= 85 % and a confidence under 0.5 (the grid told apart as a guess). The
 * rubato target is the lesser bar for songs without a steady beat, not a second demand: a rubato
 * song tracked as exactly as a steady one, and trusted, meets the first.
 */
export function scoreSong(m: MusicAnalysis, song: Pick<GeneratedSong, 'beats' | 'downbeats' | 'beatsPerBar' | 'rubato'>): SongScore {
  const cuts = planCutsOnBeat(m, song.beats);
  const share = cuts.on / Math.max(1, cuts.cuts);
  const f = beatFMeasure(m.beats, song.beats);
  const cmlt = beatContinuity(m.beats, song.beats).cmlt;
  const down = song.beatsPerBar === 3 || song.beatsPerBar === 4 ? beatFMeasure(m.bars, song.downbeats) : NaN;
  const ok = steadyTarget(share, f, cmlt) || (!!song.rubato && share >= 0.85 && m.confidence < 0.5);
  return { cuts: share, f, cmlt, down, meterOk: (m.beatsPerBar ?? 4) === song.beatsPerBar, ok };
}

const mean = (xs: number[]) => {
  const v = xs.filter((x) => Number.isFinite(x));
  return v.length ? v.reduce((a, b) => a + b, 0) / v.length : NaN;
};
const fmt = (x: number) => (Number.isFinite(x) ? f2(x) : '  - ');

/**
 * Generated songs never trained on: held-out seeds through the training sound fonts, other
 * held-out seeds through the held-out sound font, and others through the held-out synthesiser
 * (TiMidity++). Per style, the model beside the old tracker.
 */
async function generatedTable(perStyle: number, only: string | undefined, renderOnly = false): Promise<void> {
  if (!canRender()) {
    log('generated sets: SKIPPED (needs fluidsynth and the sound fonts)');
    return;
  }
  const splits = [
    { name: 'held-out seeds, training sound fonts', first: SEEDS.test, font: (seed: number) => TRAIN_FONTS[seed % TRAIN_FONTS.length]! },
    {
      name: `held-out sound font (${path.basename(HELD_OUT_FONT)}), held-out seeds`,
      first: SEEDS.test + 50_000,
      font: () => HELD_OUT_FONT,
    },
    {
      name: 'held-out synthesiser (TiMidity++ with freepats), held-out seeds',
      first: SEEDS.test + 100_000,
      font: () => HELD_OUT_SYNTH,
    },
  ];
  const which = process.argv.find((a) => a.startsWith('--split='))?.slice(8);
  for (const split of splits.filter((_, i) => !which || which === ['seeds', 'font', 'synth'][i])) {
    const fonts = [...new Set(STYLE_NAMES.map((_, i) => split.font(split.first + i)))];
    const missing = fonts.filter((f) => !bandAvailable(f));
    if (missing.length) {
      log(`${split.name}: SKIPPED (missing ${missing.join(', ')}: see tools/beat-model/README.md)`);
      continue;
    }
    const styles = STYLE_NAMES.filter((s) => !only || s.includes(only));
    log(`${split.name}: ${perStyle} songs per style (cache ${generatedDir()})`);
    const t0 = now();
    const songs: { song: GeneratedSong; file: string }[] = [];
    for (const style of styles) {
      for (let i = 0; i < perStyle; i++) {
        const seed = split.first + STYLE_NAMES.indexOf(style) + STYLE_NAMES.length * i;
        const song = generateSong(seed, style);
        songs.push({ song, file: renderGenerated(song, split.font(seed)) });
      }
    }
    log(`rendered in ${(now() - t0).toFixed(1)} s`);
    if (renderOnly) continue;
    log('');
    log(
      `${'style'.padEnd(18)} ${'songs at target'.padStart(15)}  ${'(old)'.padStart(6)}  ${'cuts'.padStart(6)} ${'(old)'.padStart(6)}  ${'F'.padStart(4)} ${'(old)'.padStart(5)}  ${'CMLt'.padStart(4)} ${'(old)'.padStart(5)}  ${'downbeat F'.padStart(10)} ${'(old)'.padStart(5)}  meter  conf  misses`,
    );
    const all: SongScore[] = [];
    const allOld: SongScore[] = [];
    let stylesAt90 = 0;
    for (const style of styles) {
      const rows = songs.filter((s) => s.song.style === style);
      const sc: SongScore[] = [];
      const old: SongScore[] = [];
      const conf: number[] = [];
      const missed: string[] = [];
      for (const { song, file } of rows) {
        const m = await analyseMusic(file, song.durationSec, undefined, undefined, { tracker: 'model' });
        const o = await analyseMusicRules(file, song.durationSec);
        const a = scoreSong(m, song);
        sc.push(a);
        old.push(scoreSong(o, song));
        conf.push(m.confidence);
        if (!a.ok)
          missed.push(`${song.seed}: ${(a.cuts * 100).toFixed(0)}% F${f2(a.f)} C${f2(a.cmlt)} ${m.bpm.toFixed(0)}/${song.bpm.toFixed(0)}`);
      }
      all.push(...sc);
      allOld.push(...old);
      const at = sc.filter((x) => x.ok).length;
      if (at / rows.length >= 0.9) stylesAt90++;
      log(
        `${style.padEnd(18)} ${`${at}/${rows.length}`.padStart(15)}  ${`${old.filter((x) => x.ok).length}/${rows.length}`.padStart(6)}  ${pct(mean(sc.map((x) => x.cuts))).padStart(6)} ${pct(mean(old.map((x) => x.cuts))).padStart(6)}  ${fmt(mean(sc.map((x) => x.f)))} ${fmt(mean(old.map((x) => x.f))).padStart(5)}  ${fmt(mean(sc.map((x) => x.cmlt)))} ${fmt(mean(old.map((x) => x.cmlt))).padStart(5)}  ${fmt(mean(sc.map((x) => x.down))).padStart(10)} ${fmt(mean(old.map((x) => x.down))).padStart(5)}  ${`${sc.filter((x) => x.meterOk).length}/${rows.length}`.padStart(5)}  ${f2(mean(conf))}  ${missed.join('; ')}`,
      );
    }
    const at = all.filter((x) => x.ok).length;
    const down = mean(all.map((x) => x.down));
    log('');
    log(
      `${split.name}: model ${at}/${all.length} songs at target (${pct(at / Math.max(1, all.length))}, target >= 97 %: ${at / all.length >= 0.97 ? 'meets' : 'MISSES'}), ` +
        `old tracker ${allOld.filter((x) => x.ok).length}/${allOld.length}; styles with >= 90 % of songs at target ${stylesAt90}/${styles.length} (target all: ${stylesAt90 === styles.length ? 'meets' : 'MISSES'}); ` +
        `mean downbeat F (meter 3 or 4) ${f2(down)} (old ${f2(mean(allOld.map((x) => x.down)))}; target >= 0.80: ${down >= 0.8 ? 'meets' : 'MISSES'}), ` +
        `songs with downbeat F >= 0.80 ${all.filter((x) => x.down >= 0.8).length}/${all.filter((x) => Number.isFinite(x.down)).length}`,
    );
    log('');
  }
}

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
    `${'song'.padEnd(22)} ${'cuts'.padStart(6)} ${'F'.padStart(5)} ${'CMLt'.padStart(5)} ${'AMLt'.padStart(5)}  ${'tempo found/true'.padStart(18)}  ${'meter'.padStart(5)}  ${'conf'.padStart(4)}  aubio F/CMLt/AMLt  old cuts/F/CMLt  verdict`,
  );
  let met = 0;
  let oldMet = 0;
  for (const [i, song] of songs.entries()) {
    const m = await analyseMusic(files[i]!.file, song.durationSec, undefined, undefined, { aubio: true, tracker: 'model' });
    const f = beatFMeasure(m.beats, song.beats);
    const c = beatContinuity(m.beats, song.beats);
    const a = beatContinuity(m.rawBeats, song.beats);
    const af = beatFMeasure(m.rawBeats, song.beats);
    const cuts = planCutsOnBeat(m, song.beats);
    const share = cuts.on / Math.max(1, cuts.cuts);
    const meter = (m as MusicAnalysis & { beatsPerBar?: number }).beatsPerBar ?? 4;
    const old = await analyseMusicRules(files[i]!.file, song.durationSec);
    const oc = planCutsOnBeat(old, song.beats);
    const oShare = oc.on / Math.max(1, oc.cuts);
    const oF = beatFMeasure(old.beats, song.beats);
    const oC = beatContinuity(old.beats, song.beats).cmlt;
    // As scoreSong, and F not below aubio's; a rubato song also meets it with 85 % of its cuts.
    if ((steadyTarget(oShare, oF, oC) && oF >= af - 0.005) || (song.rubato && oShare >= 0.85)) oldMet++;
    const ok = (steadyTarget(share, f, c.cmlt) && f >= af - 0.005) || (song.rubato && share >= 0.85);
    if (ok) met++;
    const misses = [
      share < (song.rubato ? 0.85 : 0.95) && 'cuts',
      !song.rubato && f < 0.9 && 'F',
      !song.rubato && c.cmlt < 0.9 && 'CMLt',
      !song.rubato && f < af - 0.005 && 'below aubio',
    ].filter(Boolean);
    log(
      `${song.name.padEnd(22)} ${pct(share).padStart(6)} ${f2(f).padStart(5)} ${f2(c.cmlt).padStart(5)} ${f2(c.amlt).padStart(5)}  ${`${m.bpm.toFixed(1)}/${song.bpm}`.padStart(18)}  ${`${meter}/${song.beatsPerBar}`.padStart(5)}  ${f2(m.confidence).padStart(4)}  ${`${f2(af)}/${f2(a.cmlt)}/${f2(a.amlt)}`.padStart(17)}  ${`${pct(oShare)}/${f2(oF)}/${f2(oC)}`.padStart(15)}  ${ok ? 'meets target' : `MISSES (${misses.join(', ')})`}`,
    );
  }
  log('');
  log(
    `corpus: ${met}/${songs.length} songs at target (cuts >= 95 %, F >= 0.90, CMLt >= 0.90, F not below aubio's; a solo rubato song also with cuts >= 85 %); old tracker ${oldMet}/${songs.length}`,
  );
  log('');
}

async function main(): Promise<void> {
  const only = process.argv.find((a) => a.startsWith('--only='))?.slice(7);
  const perStyle = Number(process.argv.find((a) => a.startsWith('--per-style='))?.slice(12) ?? 2);
  if (process.argv.includes('--render-only')) {
    // Fills the caches (generated sets and corpus) without analysing anything.
    await generatedTable(perStyle, only, true);
    if (canRender()) corpusSongs().forEach((s) => renderSong(s));
    return;
  }
  if (!process.argv.includes('--corpus')) await generatedTable(perStyle, only);
  if (process.argv.includes('--generated')) return;
  await corpusTable(only);
  if (only || process.argv.includes('--corpus')) return;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'reelsmith-beats-'));
  try {
    log('generating the tracks...');
    const tracks = beatTracks();
    log('');
    log(
      `${'track'.padEnd(20)} ${'within 50 ms'.padStart(12)} ${'F at 70 ms'.padStart(11)} ${'CMLt'.padStart(5)} ${'cuts on a beat (40 ms)'.padStart(24)}  ${'old cuts'.padStart(9)}  tempo  description`,
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
      const m = await analyseMusic(file, durationSec, undefined, undefined, { tracker: 'model' });
      const acc = beatAccuracy(m.beats, tr.beats, 0.05);
      const f = beatFMeasure(m.beats, tr.beats, 0.07);
      const cml = beatContinuity(m.beats, tr.beats).cmlt;
      const cuts = planCutsOnBeat(m, tr.beats);
      const old = planCutsOnBeat(await analyseMusicRules(file, durationSec), tr.beats);
      allBeats &&= acc >= 0.95;
      allCuts &&= cuts.on === cuts.cuts;
      log(
        `${tr.name.padEnd(20)} ${pct(acc).padStart(12)} ${pct(f).padStart(11)} ${f2(cml).padStart(5)} ${`${cuts.on}/${cuts.cuts} = ${pct(cuts.on / Math.max(1, cuts.cuts))}`.padStart(24)}  ${`${old.on}/${old.cuts}`.padStart(9)}  ${m.bpm.toFixed(1).padStart(5)}  ${tr.description}`,
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
    await analyseMusic(
      path.join(
        dir,
        fs.readdirSync(dir).find((f) => f.endsWith('.mp3'))!,
      ),
      5,
      undefined,
      undefined,
      { tracker: 'model' },
    ); // loads the model once
    const t = now();
    const c0 = process.cpuUsage();
    const m = await analyseMusic(long, 600, undefined, undefined, { tracker: 'model' });
    const sec = now() - t;
    const c1 = process.cpuUsage(c0);
    const cpuSec = (c1.user + c1.system) / 1e6;
    const t2 = now();
    await analyseMusicRules(long, 600);
    const oldSec = now() - t2;
    const withAubio = await analyseMusic(long, 600, undefined, undefined, { aubio: true, tracker: 'model' });
    const reference = Array.from({ length: 1200 }, (_, i) => i * 0.5);
    const acc = beatAccuracy(m.beats, reference);
    log(
      `steady 10 min           ${pct(acc)} of beats within 50 ms (raw aubio ${pct(beatAccuracy(withAubio.rawBeats, reference))}), F ${pct(beatFMeasure(m.beats, reference))}, ${m.bpm} BPM   target >= 99.9 %  ${acc >= 0.999 ? 'meets target' : 'MISSES target'}`,
    );
    const cuts = planCutsOnBeat(m, reference);
    log(`                        plan cuts on a beat ${cuts.on}/${cuts.cuts}`);
    log(
      `beat analysis speed     ${sec.toFixed(2)} s for 600 s (decode, features, model on one thread, decoding, onsets, sections) = ${(600 / sec).toFixed(1)}x real time   target >= 50x  ${600 / sec >= 50 ? 'meets target' : 'MISSES target'}; the old tracker ${oldSec.toFixed(2)} s (${(600 / oldSec).toFixed(0)}x)`,
    );
    log(
      `                        CPU time of the analysing process (all its threads; ffmpeg's decoding, a child process, apart) ${cpuSec.toFixed(2)} s = ${(600 / cpuSec).toFixed(1)}x real time (a loaded machine stretches the wall time, hardly the CPU time)`,
    );
    // Peak memory in a fresh process that runs only the analysis (one thread for onnxruntime).
    const script = `require(${JSON.stringify(path.join(__dirname, '..', 'music-analysis.js'))}).analyseMusic(${JSON.stringify(long)}, 600, undefined, undefined, { tracker: 'model' }).then(() => process.stdout.write(String(process.resourceUsage().maxRSS)))`;
    const rssKb = Number(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' }));
    log(
      `peak memory             ${(rssKb / 1024).toFixed(0)} MB (maximum resident set of a process running the 10-minute analysis alone)   target <= 400 MB  ${rssKb / 1024 <= 400 ? 'meets target' : 'MISSES target'}`,
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
