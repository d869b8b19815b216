/**
 * npm run bench:render
 *
 * Generates a mixed corpus with ffmpeg, then measures in one run, on this machine:
 *  - the engine's render of a 30 s 1080p reel of 10 clips (analyses precomputed, as the worker
 *    has them from upload time);
 *  - the CPU floor of the same job: decode + filter of exactly the segments the plan uses (same
 *    filter graph, no encode) plus the encode of the 30 s output from raw frames;
 *  - a naive pipeline: one intermediate file per segment, concat, then a final pass, once with
 *    intermediates at the engine's own settings (crf 21, a generation of loss) and once with
 *    lossless intermediates (the same output quality as the engine, which the bench checks);
 *  - analysis speed on the corpus (with its 4K and high-bitrate clips) as the CLI's --plan-only
 *    does it (clips side by side within the thread budget, heaviest first, the music from its
 *    probe on), by default and with every clip decoded densely, each clip's decoding alone, and real footage (the starter library at
 *    1080p with 2 s GOPs) decoded both ways with whether the analyses agree; beat tracking speed
 *    and accuracy on a 10-minute track;
 *  - the CLI end to end (probe, analysis, plan, render) against a hand-written single-pass ffmpeg
 *    command for the same plan (target <= 1.35x), each run's stages (`--timings`), and the
 *    render's own single-pass command alone;
 *  - peak memory of the render's ffmpeg process;
 *  - a long reel: a 12-minute clip without music makes a 12-minute reel (288 segments), which the
 *    engine renders in batches; its wall time and the peak memory of its ffmpeg processes
 *    against the 1 GiB goal (`--long-only` runs just this case).
 * The render, the floor, the naive pipeline, the CLI, the single passes and the analyses run in
 * interleaved rounds (`--rounds N`, default 3) and their medians are compared. `--skip-long` leaves
 * the long reel out; `--analysis-only` and `--cli-only` time just those parts.
 * Prints the figures and their ratios against the targets. Nothing here is asserted.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beatAccuracy } from '../beat-measures.js';
import { analyseClip, type ClipAnalysis } from '../clip-analysis.js';
import { analyseMusic } from '../music-analysis.js';
import { probe, type MediaInfo } from '../probe.js';
import { prepareFonts } from '../fonts.js';
import { buildRenderArgs, filterValue, frameFilter } from '../render-args.js';
import { prepare, renderReel } from '../render.js';
import { parseSettings } from '../settings.js';
import { titleScript } from '../title.js';
import { handWrittenArgs, longReel } from './render-bench-cases.js';
import { compareDecodings, makeCorpus, realFootage } from './render-bench-corpus.js';
import { cpuFloor, log, median, now, OUTPUT_CODECS, peakChildMemory, psnr, run } from './render-bench-tools.js';

/** `--rounds N` (default 3). */
const rounds = () => {
  const i = process.argv.indexOf('--rounds');
  return Math.max(1, Math.floor(Number(i > 0 ? process.argv[i + 1] : 3)) || 3);
};

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'reelsmith-bench-'));
  try {
    if (process.argv.includes('--long-only')) {
      const lines = await longReel(dir);
      log('');
      lines.forEach((l) => log(l));
      return;
    }
    const corpus = makeCorpus(dir);
    const infos: MediaInfo[] = [];
    for (const c of corpus.clips) infos.push(await probe(c, 'clip'));
    const corpusSec = infos.reduce((s, i) => s + i.durationSec, 0);

    // Analysis speed: what the CLI's --plan-only does (probe, clips side by side and the music
    // alongside, plan), on the corpus with its 4K and high-bitrate clips. Then beat tracking speed
    // + accuracy (10-minute track).
    // Timed again in every round below (a shared machine's slow patch should not decide it): the
    // median of all runs is reported.
    const analysisOnce = async (analysisDecode?: 'dense') => {
      const t0 = now();
      const p = await prepare({ clips: corpus.clips, music: corpus.music30, settings: { pacing_preset: 'standard' }, analysisDecode });
      return { p, sec: now() - t0 };
    };
    const mediaSec = corpusSec + 30;
    const f = (x: number) => x.toFixed(2);
    const verdict = (ok: boolean) => (ok ? 'meets target' : 'MISSES target');
    // Each clip alone, as the default analysis decodes it: how, how much, how fast.
    const perClip = async () => {
      const out: string[] = [];
      for (const i of infos) {
        const t0 = now();
        const a = await analyseClip(i.path, i.durationSec, undefined, undefined, { video: i.video });
        const d = a.decoding!;
        out.push(
          `${path.basename(i.path)} ${d.mode === 'sparse' ? `sparse (${Math.round(d.decodedShare * 100)} % of packets)` : `dense (${d.reason})`} ${(i.durationSec / (now() - t0)).toFixed(1)}x`,
        );
      }
      return out;
    };
    const analysisLines = async (auto: number[], dense: number[]) => {
      const sec = median(auto);
      const denseSec = median(dense);
      const real = await compareDecodings(realFootage(dir));
      return [
        `analysis (--plan-only)   ${f(sec)} s median (runs ${auto.map(f).join(', ')}) for ${f(mediaSec)} s of media (clips side by side within the thread budget, heaviest first, music from its probe on) = ${f(mediaSec / sec)}x real time   target >= 25x  ${verdict(mediaSec / sec >= 25)}`,
        `  every clip decoded densely: ${f(denseSec)} s median (runs ${dense.map(f).join(', ')}) = ${f(mediaSec / denseSec)}x; the default's sparse decoding takes ${Math.round((sec / denseSec) * 100)} % of that`,
        `  per clip, alone: ${(await perClip()).join(', ')}`,
        `  real footage (the starter library's 10 clips at 1080p30, a keyframe every 2 s), ${real}`,
      ];
    };
    if (process.argv.includes('--analysis-only')) {
      // Just the analysis figures, default and dense interleaved, over more runs.
      const auto: number[] = [];
      const dense: number[] = [];
      for (let r = 0; r < Math.max(3, rounds()); r++) {
        auto.push((await analysisOnce()).sec);
        dense.push((await analysisOnce('dense')).sec);
      }
      const lines = await analysisLines(auto, dense);
      log('');
      log(`corpus: ${corpus.clips.length} clips, ${f(corpusSec)} s`);
      lines.forEach((l) => log(l));
      return;
    }
    const firstAnalysis = await analysisOnce();
    const prepared = firstAnalysis.p;
    const analysisTimes = [firstAnalysis.sec];
    const analyses = prepared.analyses.clips as ClipAnalysis[];
    const music30 = prepared.analyses.music!;
    const t = now();
    const long = await analyseMusic(corpus.track10m, 600);
    const beatSec = now() - t;
    // aubio's own beats, for comparison (not on the analysis path any more; not timed).
    const aubio = await analyseMusic(corpus.track10m, 600, undefined, undefined, { aubio: true });
    const reference = Array.from({ length: 1200 }, (_, i) => i * 0.5);

    // The strategies run in interleaved rounds (engine, floor, naive twice, engine, ...) so that
    // a slow patch of a shared machine hits all of them; the medians are compared.
    const roundCount = rounds();
    const settings = parseSettings({ pacing_preset: 'standard' });
    const out = path.join(dir, 'engine.mp4');
    const renderOnce = () =>
      peakChildMemory(() =>
        renderReel({
          clips: corpus.clips,
          music: corpus.music30,
          output: out,
          settings,
          analyses: { clips: analyses, music: music30 },
          tmpRoot: dir,
        }),
      );
    // The engine's render (analyses already there, as in the worker; probing is timed).
    const first = await renderOnce();
    const plan = first.value.plan;
    const music = first.value.music;

    // CPU floor: the same decode + filter of the same segments without encoding, plus the
    // encode of the output from raw frames (written beforehand, not timed).
    // The spec's default title is on, so the floor and the naive pipeline draw it too, with the
    // same script and fonts.
    const assFile = path.join(dir, 'title.ass');
    fs.writeFileSync(assFile, titleScript(settings.title_config, 1920, 1080, plan.totalSec));
    const fontEnv = prepareFonts(path.join(dir, 'title'));
    const nullArgs = buildRenderArgs({ clips: infos, music, plan, settings, output: '-', title: { assFile } });
    const decodeArgs = nullArgs.args.slice(0, nullArgs.args.indexOf('-c:v'));
    // The raw frames are the graph's own unencoded output: the floor encodes them, and every
    // strategy's result is compared with them for quality (PSNR).
    const raw = path.join(dir, 'reel.yuv');
    // `--cli-only` times just the CLI, the two single passes and the analysis.
    const cliOnly = process.argv.includes('--cli-only');
    const floor = cpuFloor(decodeArgs, { raw, wav: path.join(dir, 'reel.wav'), out: path.join(dir, 'floor.mp4') }, undefined, fontEnv);
    if (!cliOnly) await floor.writeRaw();
    const floorOnce = floor.floorOnce;

    // Naive: an intermediate file per segment, concat, then the final pass (title, fades, music).
    // It needs each clip's size and rotation for its filters, so it probes too (one at a time,
    // as it does everything), just as the engine's timed render probes its inputs.
    const naiveOnce = async (intermediate: 'same' | 'lossless') => {
      const t = now();
      const probed: MediaInfo[] = [];
      for (const c of corpus.clips) probed.push(await probe(c, 'clip'));
      await probe(corpus.music30, 'music');
      const list: string[] = [];
      for (const [k, s] of plan.segments.entries()) {
        const info = probed[s.clip]!;
        const seg = path.join(dir, `naive-${k}.mp4`);
        const frames = Math.round(s.end * 30) - Math.round(s.start * 30);
        await run([
          '-v',
          'error',
          '-y',
          '-ss',
          String(s.in),
          '-t',
          String(s.out - s.in + 0.07),
          '-i',
          info.path,
          '-vf',
          // As the engine does: timestamps from 0 before the frame-rate conversion, so a seek
          // that lands between frames does not shift the whole segment by a frame.
          `setpts=PTS-STARTPTS,fps=30,${frameFilter(info.video!, { width: 1920, height: 1080 }, true)},format=yuv420p,tpad=stop_mode=clone:stop=-1,trim=end_frame=${frames}`,
          '-an',
          '-c:v',
          'libx264',
          '-preset',
          'veryfast',
          ...(intermediate === 'same' ? ['-crf', '21'] : ['-qp', '0']),
          seg,
        ]);
        list.push(`file '${seg}'`);
      }
      fs.writeFileSync(path.join(dir, 'list.txt'), list.join('\n'));
      await run([
        '-v',
        'error',
        '-y',
        '-f',
        'concat',
        '-safe',
        '0',
        '-i',
        path.join(dir, 'list.txt'),
        '-c',
        'copy',
        path.join(dir, 'naive-concat.mp4'),
      ]);
      await run(
        [
          '-v',
          'error',
          '-y',
          '-i',
          path.join(dir, 'naive-concat.mp4'),
          '-i',
          corpus.music30,
          '-vf',
          `subtitles=filename=${filterValue(assFile)},fade=t=in:st=0:d=2,fade=t=out:st=${plan.totalSec - 2}:d=2`,
          '-af',
          `afade=t=in:st=0:d=2,afade=t=out:st=${plan.totalSec - 2}:d=2`,
          '-map',
          '0:v',
          '-map',
          '1:a',
          ...OUTPUT_CODECS,
          '-shortest',
          '-movflags',
          '+faststart',
          path.join(dir, `naive-${intermediate}.mp4`),
        ],
        fontEnv,
      );
      return now() - t;
    };

    // The CLI end to end (probe, analysis, plan, render: what a user waits for) against the
    // render's own single-pass ffmpeg command run alone for the same plan (the floor of any tool
    // that renders in one pass; it needs no analysis because it is handed the plan).
    const cliBin = path.resolve(__dirname, '..', '..', 'bin', 'reelsmith-render.js');
    const cliOut = path.join(dir, 'cli.mp4');
    // Each run's per-stage times (`--timings`), printed with the figures.
    const cliStages: string[] = [];
    const cliOnce = () => {
      const t0 = now();
      const args = [
        cliBin,
        ...corpus.clips.flatMap((c) => ['--clip', c]),
        '--music',
        corpus.music30,
        '--pacing',
        'standard',
        '--timings',
        '--out',
        cliOut,
      ];
      const r = spawnSync(process.execPath, args, { encoding: 'utf8' });
      if (r.status !== 0) throw new Error(`reelsmith-render failed: ${r.stderr}`);
      cliStages.push(/^timings: (.*)$/m.exec(r.stderr)?.[1] ?? '(no timings)');
      return now() - t0;
    };
    const singleArgs = buildRenderArgs({ clips: infos, music, plan, settings, output: path.join(dir, 'single.mp4'), title: { assFile } });
    const singleOnce = async () => {
      const t0 = now();
      await run(singleArgs.args, fontEnv);
      return now() - t0;
    };
    const handArgs = handWrittenArgs(plan, infos, music!, settings, dir, path.join(dir, 'hand.mp4'));
    const handOnce = async () => {
      const t0 = now();
      await run(handArgs);
      return now() - t0;
    };
    const handTimes: number[] = [];
    const denseAnalysisTimes: number[] = [];
    const cliTimes: number[] = [];
    const singleTimes: number[] = [];
    const engineTimes: number[] = [];
    const decodeTimes: number[] = [];
    const encodeTimes: number[] = [];
    const naiveTimes: number[] = [];
    const losslessTimes: number[] = [];
    let peakBytes = first.peakBytes;
    for (let r = 0; r < roundCount; r++) {
      log(`round ${r + 1} of ${roundCount}...`);
      if (!cliOnly) {
        const t = now();
        const rendered = await renderOnce();
        engineTimes.push(now() - t);
        peakBytes = Math.max(peakBytes, rendered.peakBytes);
        const fl = await floorOnce();
        decodeTimes.push(fl.decodeFilter);
        encodeTimes.push(fl.encode);
        naiveTimes.push(await naiveOnce('same'));
        losslessTimes.push(await naiveOnce('lossless'));
      }
      cliTimes.push(cliOnce());
      singleTimes.push(await singleOnce());
      handTimes.push(await handOnce());
      analysisTimes.push((await analysisOnce()).sec);
      denseAnalysisTimes.push((await analysisOnce('dense')).sec);
    }
    const analysisSec = median(analysisTimes);
    const analysisReport = await analysisLines(analysisTimes, denseAnalysisTimes);
    const all = (xs: number[]) => `(runs: ${xs.map(f).join(', ')})`;
    const cliLines = () => {
      const cliSec = median(cliTimes);
      const singleSec = median(singleTimes);
      const handSec = median(handTimes);
      return [
        `hand-written single pass ${f(handSec)} s  ${all(handTimes)}  (one ffmpeg command for the same plan as a person would write it)`,
        `CLI end to end           ${f(cliSec)} s  ${all(cliTimes)}  = ${f(cliSec / handSec)}x the hand-written single pass   target <= 1.35  ${verdict(cliSec / handSec <= 1.35)}`,
        `  of which analysis      ${f(analysisSec)} s (--plan-only, above)`,
        ...cliStages.map((t, i) => `  run ${i + 1} by stage (--timings): ${t}`),
        `  its render command alone ${f(singleSec)} s  ${all(singleTimes)} = ${f(singleSec / handSec)}x the hand-written single pass; CLI / its own single pass ${f(cliSec / singleSec)}x`,
      ];
    };
    if (cliOnly) {
      log('');
      log(`medians of ${roundCount} interleaved round(s)`);
      analysisReport.forEach((l) => log(l));
      cliLines().forEach((l) => log(l));
      return;
    }
    const quality = {
      engine: psnr(out, raw),
      same: psnr(path.join(dir, 'naive-same.mp4'), raw),
      lossless: psnr(path.join(dir, 'naive-lossless.mp4'), raw),
    };
    fs.rmSync(raw);
    // The long reel after the rounds, so it does not share the machine with them
    // (`--skip-long` leaves it out).
    const longLines = process.argv.includes('--skip-long') ? ['long reel: skipped (--skip-long)'] : await longReel(dir);
    const engineSec = median(engineTimes);
    const decodeFilterSec = median(decodeTimes);
    const encodeSec = median(encodeTimes);
    const floorSec = median(decodeTimes.map((d, i) => d + encodeTimes[i]!));
    const naiveSec = median(naiveTimes);
    const losslessSec = median(losslessTimes);

    log('');
    log(
      `corpus: ${infos.length} clips, ${f(corpusSec)} s (${infos.map((i) => `${i.video!.codec} ${i.video!.width}x${i.video!.height}${i.video!.variableFrameRate ? ' vfr' : ''}${i.video!.rotation ? ` rot${i.video!.rotation}` : ''}${i.audio ? '' : ' no-audio'}`).join(', ')})`,
    );
    log(
      `reel: ${f(plan.totalSec)} s, ${plan.segments.length} segments, 1920x1080 30 fps, beat-aligned ${plan.beatAligned}; clips have a keyframe every 2 s`,
    );
    log('');
    log(`medians of ${roundCount} interleaved round(s), after one warm-up render`);
    log(`engine render            ${f(engineSec)} s  ${all(engineTimes)}`);
    log(
      `CPU floor                ${f(floorSec)} s  (decode+filter ${f(decodeFilterSec)} s + encode ${f(encodeSec)} s)  ${all(decodeTimes.map((d, i) => d + encodeTimes[i]!))}`,
    );
    log(`naive, crf 21 intermediates   ${f(naiveSec)} s  ${all(naiveTimes)}`);
    log(`naive, lossless intermediates ${f(losslessSec)} s  ${all(losslessTimes)}`);
    log(
      `quality against the unencoded frames (PSNR): engine ${f(quality.engine)} dB, naive crf 21 ${f(quality.same)} dB, naive lossless ${f(quality.lossless)} dB`,
    );
    log(`render / floor           ${f(engineSec / floorSec)}x   target <= 1.15  ${verdict(engineSec / floorSec <= 1.15)}`);
    // The naive pipeline encodes twice, so with the engine's settings for its intermediates its
    // reel is a generation worse; at the same output quality (within 0.1 dB) they must be lossless.
    const matched = Math.abs(quality.lossless - quality.engine) <= 0.1;
    log(
      `naive / render           ${f(losslessSec / engineSec)}x   at the same output quality (lossless intermediates)   target >= 1.8   ${matched ? verdict(losslessSec / engineSec >= 1.8) : 'NOT COMPARABLE (quality differs)'}`,
    );
    log(
      `                         ${f(naiveSec / engineSec)}x   with the engine's encoder settings (reel ${f(quality.engine - quality.same)} dB worse)   target >= 1.8   ${verdict(naiveSec / engineSec >= 1.8)}`,
    );
    log(`peak memory (ffmpeg)     ${f(peakBytes / 2 ** 20)} MiB  target <= 1024 MiB  ${verdict(peakBytes <= 2 ** 30)}`);
    analysisReport.forEach((l) => log(l));
    cliLines().forEach((l) => log(l));
    log(
      `beat tracking + fit      ${f(beatSec)} s for 600 s = ${f(600 / beatSec)}x real time   target >= 50x  ${verdict(600 / beatSec >= 50)}`,
    );
    log(
      `beat accuracy (±50 ms)   fitted ${(beatAccuracy(long.beats, reference) * 100).toFixed(1)} %, raw aubio ${(beatAccuracy(aubio.rawBeats, reference) * 100).toFixed(1)} %   target >= 95 %  ${verdict(beatAccuracy(long.beats, reference) >= 0.95)}`,
    );
    log('');
    longLines.forEach((l) => log(l));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`bench failed: ${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});
