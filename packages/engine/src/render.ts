import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { resolveFraming } from '@reelsmith/proto';
import { MUSIC_ANALYSIS_VERSION, sameBeats, type MusicAnalysis } from './beat-tracker.js';
import { CLIP_ANALYSIS_VERSION, analyseClip, type AnalyseClipOptions, type ClipAnalysis } from './clip-analysis.js';
import { EngineError } from './errors.js';
import { execMedia } from './exec.js';
import { renderLimits } from './watchdog.js';
import { analyseMusic } from './music-analysis.js';
import { planEdit, type EditPlan } from './plan.js';
import { validatePlan } from './plan-edit.js';
import { framePlan, needsSubjects, planFramingProblem, subjectTrack } from './plan-framing.js';
import { probe, type MediaInfo } from './probe.js';
import { buildRenderArgs, thumbnailTime, type BuiltCommand, type X264Preset } from './render-args.js';
import { planBatches, type BatchOptions } from './render-batch-args.js';
import { joinChunks, prepareTitle, renderAudioTrack, renderChunk } from './render-chunks.js';
import { parseSettings, type RenderSettings, type RenderSettingsInput } from './settings.js';
import type { SongAnalysis } from './song-sections.js';

export type Stage = 'probing' | 'analysing' | 'planning' | 'rendering' | 'finalizing' | 'done';

export interface RenderRequest {
  clips: string[];
  music?: string;
  settings?: RenderSettingsInput;
  /** Where the MP4 goes; written beside as a partial file and renamed when complete. */
  output: string;
  /** Where the JPEG thumbnail goes (default: output with .jpg). */
  thumbnail?: string;
  /** How clips are decoded for analysis (clip-analysis.ts; default 'auto'); benches compare 'dense'. */
  analysisDecode?: AnalyseClipOptions['decode'];
  /** Analyses computed earlier (e.g. at upload time), by clip index; missing ones are computed. */
  analyses?: { clips?: Array<ClipAnalysis | undefined>; music?: MusicAnalysis };
  /**
   * A plan made earlier (and perhaps edited): rendered exactly as it is, without analysing or
   * planning. Checked against the probed inputs first (INVALID_SETTINGS naming the problem).
   */
  plan?: EditPlan;
  /** The reel's target length, seconds (a whole number of bars nearest it); absent: the whole song. */
  targetSec?: number;
  /** Where the reel's music starts in the song (a bar line); absent: the best part of the song. */
  musicStartSec?: number;
  /** 0..100, monotone, at least once a second while rendering. */
  onProgress?: (percent: number, stage: Stage) => void;
  /**
   * The overall cap; default: generous, from the reel's length, the inputs' size and the threads
   * (watchdog.ts). Before it, an ffmpeg process is stopped when it makes no progress for `stallMs`.
   */
  timeoutMs?: number;
  /** No new frame or output time for this long stops the render; default STALL_MS (a minute). */
  stallMs?: number;
  signal?: AbortSignal;
  tmpRoot?: string;
  /**
   * Reels with more segments than a batch holds are rendered batch by batch and joined (memory
   * and command lines stay bounded); tests set a small batch to exercise that path.
   */
  batch?: BatchOptions;
  /**
   * The thread budget (RENDER_THREADS): the encoder's threads, and the clip analysis's decoders
   * all together (`analysisLanes`). Unset: the encoder's own choice, and one analysis thread per core.
   */
  threads?: number;
  /** The x264 preset of the reel's encode (RENDER_PRESET); default `veryfast`. */
  preset?: X264Preset;
  /**
   * `prepare`'s result for these same inputs (the worker plans first, to choose how to render):
   * nothing is probed, analysed or planned again.
   */
  prepared?: PlanResult;
}

/**
 * Wall time of each stage, milliseconds, in the order they ran: probe, analysis (clips and
 * music, which run side by side, each also on its own), plan, render, finalize. A stage that did
 * not run is absent.
 */
export type StageTimings = Partial<
  Record<'probe' | 'analysis' | 'clipAnalysis' | 'musicAnalysis' | 'plan' | 'render' | 'finalize', number>
>;

export interface RenderResult {
  plan: EditPlan;
  output: string;
  thumbnail: string;
  durationSec: number;
  clips: MediaInfo[];
  music?: MediaInfo;
  /** The analyses the plan was made from (computed or given). */
  analyses?: PlanResult['analyses'];
  /** Where the time went (`prepare`'s stages, then the render's). */
  timings: StageTimings;
}

export interface PlanResult {
  plan: EditPlan;
  settings: RenderSettings;
  clips: MediaInfo[];
  music?: MediaInfo;
  analyses: { clips: Array<ClipAnalysis | undefined>; music?: MusicAnalysis };
  /** Wall time of the probe, analysis and plan stages. */
  timings: StageTimings;
}

const PROBE_CONCURRENCY = Math.max(2, Math.min(4, os.availableParallelism()));

/**
 * How clip analysis spends a thread budget (RENDER_THREADS; unset: the machine's cores): lanes of
 * one decoder each, a clip per lane at a time. A decoder gets two threads once the budget has four
 * or more (two single-threaded decoders side by side use two cores better than one with two
 * threads); lanes x threads never exceeds the budget.
 */
export function analysisLanes(threads?: number): { lanes: number; decoderThreads: number } {
  const budget = Math.max(1, Math.floor(threads ?? os.availableParallelism()));
  const decoderThreads = budget >= 4 ? 2 : 1;
  return { lanes: Math.max(1, Math.floor(budget / decoderThreads)), decoderThreads };
}

/**
 * Maps with at most `limit` calls in flight; rejects with the first failure in input order.
 * `startOrder` (indices) sets which items start first, e.g. the longest jobs (results stay in
 * input order).
 */
export async function mapLimit<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
  startOrder?: readonly number[],
): Promise<R[]> {
  const settled: Array<PromiseSettledResult<R>> = new Array(items.length);
  const order = startOrder ?? items.map((_, i) => i);
  let next = 0;
  const lane = async () => {
    while (next < order.length) {
      const i = order[next++]!;
      settled[i] = await fn(items[i]!, i).then(
        (value) => ({ status: 'fulfilled', value }) as const,
        (reason: unknown) => ({ status: 'rejected', reason }) as const,
      );
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return settled.map((r) => {
    if (r.status === 'rejected') throw r.reason;
    return r.value;
  });
}

/** Clip indices by the pixels their analysis decodes, most first. */
function heaviestFirst(clips: MediaInfo[]): number[] {
  const work = (c: MediaInfo) => (c.video ? c.video.width * c.video.height * c.video.fps * c.durationSec : 0);
  return clips.map((_, i) => i).sort((a, b) => work(clips[b]!) - work(clips[a]!) || a - b);
}

/** Probes and analyses the inputs and plans the edit, without rendering. */
export async function prepare(
  req: Omit<RenderRequest, 'output'>,
  report: (p: number, s: Stage) => void = () => undefined,
): Promise<PlanResult> {
  if (!req.clips.length) throw new EngineError('INVALID_SETTINGS', 'Please add at least one video file.');
  const settings = parseSettings(req.settings);
  const framing = resolveFraming(settings);
  const timings: StageTimings = {};
  let stageAt = Date.now();
  const lap = (stage: keyof StageTimings) => {
    const t = Date.now();
    timings[stage] = t - stageAt;
    stageAt = t;
  };
  report(0, 'probing');
  // A cached analysis counts if it has this version's beats (sameBeats), as the orchestrator's plan
  // preview takes it: every such version was made with the song's sections (a song with none
  // arrives without the field, since the message leaves an empty list out).
  const cachedMusic = req.analyses?.music as SongAnalysis | undefined;
  const musicUsable = cachedMusic !== undefined && sameBeats(cachedMusic.version, MUSIC_ANALYSIS_VERSION);
  const needsAnalysis = !req.plan && (settings.enable_beat_mapping || req.targetSec !== undefined);
  // The music is analysed as soon as it is probed, beside the clips' probes and analyses; it is
  // stopped if anything else fails first.
  const stopMusic = new AbortController();
  const onAbort = () => stopMusic.abort();
  if (req.signal?.aborted) stopMusic.abort();
  req.signal?.addEventListener('abort', onAbort);
  // Probes run a few at a time (each is a short ffprobe process); a bad input is reported in
  // clip order whatever finishes first.
  const musicProbe = req.music ? probe(req.music, 'music') : Promise.resolve(undefined);
  const musicJob: Promise<SongAnalysis | undefined> = musicProbe.then((m) => {
    if (!m || !needsAnalysis || musicUsable) return musicUsable && !req.plan ? cachedMusic : undefined;
    const at = Date.now();
    return analyseMusic(m.path, m.durationSec, undefined, stopMusic.signal).then((a) => {
      timings.musicAnalysis = Date.now() - at;
      return a;
    });
  });
  musicJob.catch(() => undefined); // its failure is reported below, after the clips'
  try {
    return await prepareRest();
  } catch (e) {
    stopMusic.abort();
    throw e;
  } finally {
    req.signal?.removeEventListener('abort', onAbort);
  }

  async function prepareRest(): Promise<PlanResult> {
    const clips = await mapLimit(req.clips, PROBE_CONCURRENCY, (c) => probe(c, 'clip'));
    const music = await musicProbe;
    lap('probe');
    if (req.plan) {
      const problem = validatePlan(req.plan, {
        clipDurations: clips.map((c) => c.durationSec),
        musicSec: music?.durationSec,
        fps: settings.fps,
      });
      const framingProblem = planFramingProblem(
        req.plan,
        clips.map((c) => c.video),
        settings.aspect,
      );
      if (problem || framingProblem) throw new EngineError('INVALID_SETTINGS', `Invalid plan: ${problem ?? framingProblem}`);
      report(9, 'planning');
      // Segments the plan frames already keep their framing (as previewed); others get the request's.
      const given = framePlan(req.plan, frameSources(clips, req.analyses?.clips ?? []), settings.aspect, framing);
      return { plan: given, settings, clips, music, analyses: { clips: clips.map(() => undefined), music: undefined }, timings };
    }
    report(2, 'analysing');
    // Clips are analysed in lanes within the thread budget (`analysisLanes`), the heaviest first
    // (pixels to decode) so that no big clip is left running alone at the end, and the music
    // alongside them. Each analysis reuses its clip's probe (codec, size, rate, rotation) to choose
    // how to decode. A clip's failure is reported in clip order.
    const { lanes, decoderThreads } = analysisLanes(req.threads);
    let done = 0;
    const analysisAt = Date.now();
    const clipAnalyses: Array<ClipAnalysis | undefined> = await mapLimit(
      clips,
      lanes,
      async (clip, i) => {
        // A cached analysis counts only if this engine's analysis would be the same (same version).
        const given = req.analyses?.clips?.[i];
        const cached = given?.version === CLIP_ANALYSIS_VERSION ? given : undefined;
        // Subject framing needs the clip's subject track (a clip of the output's shape does not):
        // the saliency pass runs only for a clip that will be reframed.
        const subjects = needsSubjects(framing, clip.video, settings.aspect);
        const a =
          cached ??
          (settings.enable_intelligence || subjects
            ? await analyseClip(clip.path, clip.durationSec, undefined, req.signal, {
                video: clip.video,
                decode: req.analysisDecode,
                threads: decoderThreads,
                subjects,
              })
            : undefined);
        done++;
        report(2 + Math.round((6 * done) / clips.length), 'analysing');
        return a;
      },
      heaviestFirst(clips),
    );
    timings.clipAnalysis = Date.now() - analysisAt;
    const musicAnalysis = await musicJob;
    lap('analysis');
    report(9, 'planning');
    const plan = planEdit({
      clips: clips.map((c, i) => ({ durationSec: c.durationSec, analysis: clipAnalyses[i] })),
      music: music ? { durationSec: music.durationSec, analysis: musicAnalysis } : undefined,
      pacing: settings.pacing_preset,
      beatMapping: settings.enable_beat_mapping,
      intelligence: settings.enable_intelligence,
      fps: settings.fps,
      targetSec: req.targetSec,
      musicStartSec: req.musicStartSec,
    });
    const framed = framePlan(plan, frameSources(clips, clipAnalyses), settings.aspect, framing);
    lap('plan');
    return { plan: framed, settings, clips, music, analyses: { clips: clipAnalyses, music: musicAnalysis }, timings };
  }
}

/** What framing needs of each clip: its displayed size and its subject track. */
const frameSources = (clips: MediaInfo[], analyses: ReadonlyArray<ClipAnalysis | undefined>) =>
  clips.map((c, i) => (c.video ? { width: c.video.width, height: c.video.height, subjects: subjectTrack(analyses[i]) } : undefined));

/**
 * Probe -> analyse -> plan -> one ffmpeg render (reel and thumbnail); a long reel is rendered in
 * batches and joined (render-batch-args.ts). Temporary files never outlive it.
 */
export async function renderReel(req: RenderRequest): Promise<RenderResult> {
  let last = -1;
  let lastStage: Stage = 'probing';
  let lastAt = 0;
  const report = (p: number, stage: Stage) => {
    const v = Math.max(last, Math.min(100, Math.floor(p)));
    if (v !== last || stage !== lastStage || stage === 'done') {
      req.onProgress?.(v, stage);
      lastAt = Date.now();
    }
    last = v;
    lastStage = stage;
  };
  // Stages without progress of their own (the faststart rewrite) still show life:
  // the last value is repeated at least twice a second.
  const heartbeat = setInterval(() => {
    if (last >= 0 && lastStage !== 'done' && Date.now() - lastAt >= 500) {
      req.onProgress?.(last, lastStage);
      lastAt = Date.now();
    }
  }, 250);
  const output = path.resolve(req.output);
  const thumbnail = path.resolve(req.thumbnail ?? output.replace(/\.[^.]+$/, '') + '.jpg');
  const tmp = fs.mkdtempSync(path.join(req.tmpRoot ?? os.tmpdir(), 'reelsmith-render-'));
  const partial = path.join(path.dirname(output), `.${path.basename(output)}.partial`);
  try {
    const prepared = req.prepared ?? (await prepare(req, report));
    const { plan, settings, clips, music } = prepared;
    const timings: StageTimings = req.prepared ? {} : { ...prepared.timings };
    const renderAt = Date.now();
    const { title, fontEnv } = prepareTitle(settings, plan, tmp);
    const thumbTmp = path.join(tmp, 'thumb.jpg');
    const thumb = { path: thumbTmp, atSec: thumbnailTime(settings, plan.totalSec) };
    fs.mkdirSync(path.dirname(output), { recursive: true });
    report(10, 'rendering');
    // Stopped for making no progress, not for taking long: the cap is only a generous backstop.
    const limits = renderLimits({
      reelSec: plan.totalSec,
      inputBytes: [...clips, ...(music ? [music] : [])].reduce((sum, m) => sum + m.sizeBytes, 0),
      threads: req.threads,
    });
    const timeoutMs = req.timeoutMs ?? limits.capMs;
    const watchdog = { stallMs: req.stallMs ?? limits.stallMs, capReason: req.timeoutMs === undefined ? limits.capReason : 'as set' };
    const overCap = () =>
      new EngineError(
        'TIMEOUT',
        `the render did not finish within its overall cap of ${Math.round(timeoutMs / 1000)} s (${watchdog.capReason})`,
      );
    const deadline = Date.now() + timeoutMs;
    /** Runs one ffmpeg command of the render; `from`..`to` is its share of the progress bar. */
    const ffmpeg = (cmd: BuiltCommand, from: number, to: number) => {
      const left = deadline - Date.now();
      if (left <= 0) throw overCap();
      return execMedia('ffmpeg', cmd.args, {
        timeoutMs: left,
        ...watchdog,
        signal: req.signal,
        env: fontEnv,
        onProgress: (f) => {
          const us = Number(f.out_time_us ?? f.out_time_ms ?? 0);
          if (!Number.isFinite(us) || us <= 0) return;
          // At the end of the picture ffmpeg still writes the trailer and moves the index to the front.
          const p = Math.min(to, from + ((to - from) * us) / 1e6 / cmd.durationSec);
          report(p, p >= 98 ? 'finalizing' : 'rendering');
        },
      });
    };
    const batches = planBatches(plan, clips, req.batch);
    let durationSec: number;
    if (batches.length === 1) {
      const cmd = buildRenderArgs({
        clips,
        music,
        plan,
        settings,
        output: partial,
        title,
        thumbnail: thumb,
        threads: req.threads,
        preset: req.preset,
      });
      await ffmpeg(cmd, 10, 98);
      durationSec = cmd.durationSec;
    } else {
      // Chunk by chunk, one at a time (peak memory is one batch's), then the whole sound track
      // once, then one join (render-chunks.ts; render workers run the same calls in parallel).
      const totalFrames = batches.reduce((s, b) => s + b.frames, 0);
      const left = () => {
        const ms = deadline - Date.now();
        if (ms <= 0) throw overCap();
        return ms;
      };
      const chunks: Array<{ file: string; frames: number }> = [];
      for (const [k, batch] of batches.entries()) {
        const file = `chunk-${String(k).padStart(4, '0')}.mp4`;
        // The chunks share 10..90 % by their frames; the sound and the join the rest.
        const from = 10 + (80 * batch.startFrame) / totalFrames;
        const share = (80 * batch.frames) / totalFrames;
        await renderChunk(
          {
            clips,
            plan,
            settings,
            batch,
            totalFrames,
            output: path.join(tmp, file),
            title,
            fontEnv,
            thumbnail: thumb,
            threads: req.threads,
            preset: req.preset,
          },
          { timeoutMs: left(), ...watchdog, signal: req.signal, onProgress: (f) => report(from + share * f, 'rendering') },
        );
        chunks.push({ file, frames: batch.frames });
      }
      const audio = path.join(tmp, 'sound.wav');
      await renderAudioTrack(
        { clips, music, plan, settings, totalFrames, output: audio, dir: tmp },
        { timeoutMs: left(), ...watchdog, signal: req.signal, onProgress: (f) => report(90 + 5 * f, 'rendering') },
      );
      const joined = await joinChunks(
        { dir: tmp, chunks, fps: plan.fps, audio, output: partial },
        { timeoutMs: left(), ...watchdog, signal: req.signal, onProgress: (f) => report(95 + 3 * f, 'finalizing') },
      );
      durationSec = joined.durationSec;
    }
    timings.render = Date.now() - renderAt;
    const finalizeAt = Date.now();
    if (!fs.existsSync(thumbTmp)) throw new EngineError('RENDER_FAILED', 'ffmpeg wrote no thumbnail');
    fs.renameSync(partial, output);
    fs.copyFileSync(thumbTmp, thumbnail);
    timings.finalize = Date.now() - finalizeAt;
    report(100, 'done');
    return { plan, output, thumbnail, durationSec, clips, music, analyses: prepared.analyses, timings };
  } catch (e) {
    fs.rmSync(partial, { force: true });
    throw e;
  } finally {
    clearInterval(heartbeat);
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}
