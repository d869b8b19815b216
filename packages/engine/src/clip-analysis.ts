/**
 * Clip analysis from a cheap decode: frames sampled 8 times a second, scaled to 320x180 grey,
 * give per-sample exposure, sharpness (Laplacian energy), motion (difference to the previous
 * sample), black, frozen and blurred flags, and shot boundaries (hard cuts, and the edges of black
 * stretches where a shot fades or cuts through black).
 * Sharpness is relative to the clip's own sharpest moments (the 90th percentile of its picture
 * samples), so a blurred stretch of a sharp clip scores low whatever the scene; 320x180 keeps
 * enough detail for a slight blur of HD footage to show (at 160x90 it vanished in the downscale).
 * Heavy H.264/HEVC clips are decoded sparsely (clip-sampling.ts: windows after keyframes, gaps
 * decoded only where their ends disagree); light ones and other codecs densely (every sample).
 * The scoring is pure (clip-scores.ts); this file decodes, and only `analyseClip` runs ffmpeg.
 */
import path from 'node:path';
import {
  SAMPLE_RATE,
  denseReason,
  dropExpression,
  fillGaps,
  gapsOf,
  gopAt,
  gopsOf,
  openGopReason,
  parsePacketIndex,
  passCoverage,
  passTimes,
  refineReason,
  sharpReference,
  sparsePlan,
  tailReason,
  videoReason,
  type PacketIndex,
  type Slot,
  type SparsePlan,
} from './clip-sampling.js';
import { EngineError, cancelledError } from './errors.js';
import { execMedia, execPipeline } from './exec.js';
import { ANALYSIS_H, ANALYSIS_W, frameStats, histDistance, meanAbsDiff, type FrameStats } from './frame-stats.js';
import { INPUT_GUARD } from './probe.js';
import { scoreStats, type ClipAnalysis, type ClipDecoding } from './clip-scores.js';
import { createSubjectAnalyser, type FrameSink, type SubjectAnalyser } from './reframe/subject-analysis.js';

export { ANALYSIS_H, ANALYSIS_W } from './frame-stats.js';
export * from './clip-scores.js';
export const SAMPLES_PER_SEC = SAMPLE_RATE;

export interface AnalyseClipOptions {
  /** The clip's video as probed: a light clip or another codec then skips the packet index. */
  video?: { codec: string; width: number; height: number; fps: number };
  /**
   * 'auto' (default): sparse where it pays (clip-sampling.ts); 'dense': every sample decoded;
   * 'sparse': sparse whenever the clip has closed GOPs, however light or eventful (tests compare
   * it with dense).
   */
  decode?: 'auto' | 'dense' | 'sparse';
  /** Decoder threads (default 2); `prepare` sets it from the render's thread budget. */
  threads?: number;
  subjects?: boolean; // a subject track from the same frames too (default true; reframe/subject-analysis.ts)
}

/** Above this share of packets in the first sparse pass, the clip is decoded densely instead. */
const MAX_FIRST_PASS_SHARE = 0.6;

/** The grid of samples before scoring: what each slot's picture measured (or was filled with). */
export interface ClipSamples {
  stats: FrameStats[];
  /** Sparse: which slots were measured from a decoded frame (dense: all). */
  measured: boolean[];
  decoding: ClipDecoding;
  subjects?: SubjectAnalyser;
}

/**
 * Analyses a local clip. Heavy H.264/HEVC clips are decoded sparsely, others densely; a sparse
 * decode that fails for any other reason than a time limit or a cancel falls back to a dense one.
 */
export async function analyseClip(
  file: string,
  durationSec: number,
  timeoutMs = 300_000,
  signal?: AbortSignal,
  opts: AnalyseClipOptions = {},
): Promise<ClipAnalysis> {
  const samples = await clipSamples(file, durationSec, timeoutMs, signal, opts);
  const scores = scoreStats(samples.stats, 1 / SAMPLES_PER_SEC, durationSec);
  return { ...scores, decoding: samples.decoding, ...(samples.subjects ? { subjects: samples.subjects.finish(scores.scenes) } : {}) };
}

// Same parameters as analyseClip on purpose: this is its sampling step, exposed for tests and benches.
/** The samples of `analyseClip` (exported for tests and benches that compare decodings). */
export async function clipSamples(
  file: string,
  durationSec: number,
  timeoutMs = 300_000,
  signal?: AbortSignal,
  opts: AnalyseClipOptions = {},
): Promise<ClipSamples> {
  if (signal?.aborted) throw cancelledError();
  const mode = opts.decode ?? 'auto';
  const threads = opts.threads ?? 2;
  const deadline = Date.now() + timeoutMs;
  const left = () => Math.max(1, deadline - Date.now());
  // A dense decode (also the fallback after a sparse one failed) gets the whole time limit.
  const dense = async (reason: string, subjects = opts.subjects === false ? undefined : createSubjectAnalyser()): Promise<ClipSamples> => {
    const stats = await denseSamples(file, timeoutMs, signal, { threads, onFrame: subjects?.push });
    return { stats, measured: stats.map(() => true), decoding: { mode: 'dense', reason, decodedShare: 1, measuredShare: 1 }, subjects };
  };
  if (mode === 'dense') return dense('asked for');
  const light = mode === 'auto' && opts.video ? videoReason(opts.video, durationSec) : undefined;
  if (light) return dense(light);
  const fatal = (e: unknown) => e instanceof EngineError && (e.code === 'TIMEOUT' || e.code === 'CANCELLED');
  let index: PacketIndex | undefined;
  try {
    index = await packetIndex(file, left(), signal);
  } catch (e) {
    if (fatal(e)) throw e;
    return dense(`no packet index: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (!index) return dense('packet index too long');
  const gops = gopsOf(index, durationSec);
  const reason = mode === 'sparse' ? (gops.length ? openGopReason(gops) : 'no keyframes') : denseReason(index, durationSec, gops);
  if (reason) return dense(reason);
  const plan = sparsePlan(gops, durationSec, index.fps);
  // When the packets say most GOPs change after their window, the first pass alone would decode
  // most of the clip: a dense decode is cheaper then.
  const firstPass = passTimes(plan, new Set(plan.full), 'all').length / Math.max(1, index.packets.length);
  if (mode === 'auto' && firstPass > MAX_FIRST_PASS_SHARE)
    return dense(`eventful: the first pass would decode ${Math.round(firstPass * 100)} %`);
  try {
    const subjects = opts.subjects === false ? undefined : createSubjectAnalyser();
    return { ...(await sparseSamples(file, index, plan, left, signal, { threads, onFrame: subjects?.push })), subjects };
  } catch (e) {
    if (fatal(e)) throw e;
    return dense(`sparse decode failed: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/**
 * Decodes every sample: reference frames only (non-reference B frames skipped, no deblocking),
 * sampled to SAMPLES_PER_SEC and scaled to 320x180 grey on the way out.
 */
async function denseSamples(file: string, timeoutMs: number, signal?: AbortSignal, dec: Decode = { threads: 2 }): Promise<FrameStats[]> {
  const frameSize = ANALYSIS_W * ANALYSIS_H;
  // Statistics are taken as each frame arrives (while ffmpeg decodes the next ones); only the
  // previous frame is kept, so memory does not grow with the clip's length.
  const all: FrameStats[] = [];
  let prev: Uint8Array | undefined;
  const reader = frameReader(frameSize, (frame) => {
    dec.onFrame?.(all.length / SAMPLES_PER_SEC, frame);
    all.push(frameStats(frame, prev));
    prev = frame;
  });
  await execMedia(
    'ffmpeg',
    [
      '-v',
      'error',
      '-nostdin',
      ...INPUT_GUARD,
      ...decodeFast(dec.threads),
      '-i',
      `file:${path.resolve(file)}`,
      '-an',
      '-sn',
      '-vf',
      `fps=${SAMPLES_PER_SEC},scale=${ANALYSIS_W}:${ANALYSIS_H}:flags=fast_bilinear,format=gray`,
      '-f',
      'rawvideo',
      'pipe:1',
    ],
    { timeoutMs, signal, onStdout: reader },
  );
  return all;
}

type Decode = { threads: number; onFrame?: FrameSink }; // each decode feeds a subject analysis of its own
/** Cheaper decoding: analysis needs neither deblocked pictures nor non-reference frames. */
const decodeFast = (threads: number) => ['-skip_loop_filter', 'all', '-skip_frame', 'noref', '-threads', String(Math.max(1, threads))];

/** Cuts a byte stream into frames of `size` bytes, each handed over as its own copy. */
function frameReader(size: number, onFrame: (frame: Uint8Array) => void): (chunk: Buffer) => void {
  let pending: Buffer = Buffer.alloc(0);
  return (chunk) => {
    pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
    while (pending.length >= size) {
      onFrame(new Uint8Array(pending.subarray(0, size)));
      pending = pending.subarray(size);
    }
  };
}

/** ffprobe of the video packets: times, sizes, keyframes (demuxing only, no decoding). */
export function packetIndexArgs(file: string): string[] {
  return [
    '-v',
    'error',
    ...INPUT_GUARD,
    '-select_streams',
    'V:0',
    '-show_entries',
    'packet=pts_time,size,flags:stream=codec_name,width,height,avg_frame_rate,r_frame_rate:stream_side_data=rotation:stream_tags=rotate:format=start_time',
    '-of',
    'compact=p=1',
    `file:${path.resolve(file)}`,
  ];
}

/**
 * An abort controller of this module's own (to stop a process from inside its output handlers)
 * that also follows the caller's signal, including one that was aborted before the start.
 */
function linkedAbort(signal?: AbortSignal): { stop: AbortController; unlink: () => void } {
  const stop = new AbortController();
  if (signal?.aborted) stop.abort();
  const onOuterAbort = () => stop.abort();
  signal?.addEventListener('abort', onOuterAbort);
  return { stop, unlink: () => signal?.removeEventListener('abort', onOuterAbort) };
}

/** The packet index's text is at most this long (about a million packets); a longer one is not read. */
const MAX_INDEX_BYTES = 64 * 2 ** 20;

/** The packet index, or undefined when it is too long to keep in memory. */
async function packetIndex(file: string, timeoutMs: number, signal?: AbortSignal): Promise<PacketIndex | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  let tooLong = false;
  const { stop, unlink } = linkedAbort(signal);
  try {
    await execMedia('ffprobe', packetIndexArgs(file), {
      timeoutMs,
      signal: stop.signal,
      onStdout: (c) => {
        size += c.length;
        if (size > MAX_INDEX_BYTES) {
          tooLong = true;
          stop.abort();
        } else chunks.push(c);
      },
    });
  } catch (e) {
    if (tooLong) return undefined;
    throw e;
  } finally {
    unlink();
  }
  return parsePacketIndex(Buffer.concat(chunks).toString());
}

/**
 * The two commands of one sparse pass: ffmpeg copying only the pass's packets (the noise
 * bitstream filter drops the others) into NUT on a pipe, and ffmpeg decoding them to 320x180 grey
 * with each frame's time logged by showinfo. `rotation` is applied as autorotate would (after a
 * transposed scale, so the big picture is never rotated).
 */
export function sparsePassArgs(file: string, dropExpr: string, rotation: number, threads = 2): { copy: string[]; decode: string[] } {
  const quarter = rotation === 90 || rotation === 270;
  const scale = quarter
    ? `scale=${ANALYSIS_H}:${ANALYSIS_W}:flags=fast_bilinear,format=gray,transpose=${rotation === 90 ? 'clock' : 'cclock'}`
    : `scale=${ANALYSIS_W}:${ANALYSIS_H}:flags=fast_bilinear,format=gray${rotation === 180 ? ',hflip,vflip' : ''}`;
  return {
    copy: [
      '-v',
      'error',
      '-nostdin',
      ...INPUT_GUARD,
      '-i',
      `file:${path.resolve(file)}`,
      '-map',
      '0:V:0',
      // Only the pictures: no titles or chapters echoed into the decoder's log.
      '-map_metadata',
      '-1',
      '-map_chapters',
      '-1',
      '-c',
      'copy',
      // Commas separate bitstream filters, so the expression's own are escaped.
      '-bsf:v',
      `noise=amount=0:drop=${dropExpr.replace(/,/g, '\\,')}`,
      '-f',
      'nut',
      'pipe:1',
    ],
    decode: [
      '-hide_banner',
      '-nostats',
      '-loglevel',
      'info',
      '-nostdin',
      '-protocol_whitelist',
      'pipe',
      '-format_whitelist',
      'nut',
      ...decodeFast(threads),
      '-f',
      'nut',
      '-i',
      'pipe:0',
      '-an',
      '-sn',
      '-vf',
      `${scale},showinfo`,
      // Every decoded frame, with its own time: no frame-rate conversion.
      '-fps_mode',
      'passthrough',
      '-f',
      'rawvideo',
      'pipe:1',
    ],
  };
}

const SHOWINFO = /^\[Parsed_showinfo_\d+ @ [^\]]+\] n:\s*\d+ pts:\s*\S+ pts_time:(\S+)/;
/** Frames (or times) waiting for their other half; more means the two outputs lost step. */
const MAX_UNPAIRED = 256;
/** A drop expression longer than this (a very long clip with many gaps) is not worth a pass: dense instead. */
const MAX_EXPRESSION = 16 * 1024;

/** Windows after every keyframe, then the gaps whose ends disagree, then the rest filled. */
async function sparseSamples(
  file: string,
  index: PacketIndex,
  plan: SparsePlan,
  left: () => number,
  signal?: AbortSignal,
  dec: Decode = { threads: 2 },
): Promise<ClipSamples> {
  const table: Array<Slot | undefined> = new Array(plan.slots).fill(undefined);
  let decoded = 0;
  decoded += await sparsePass(file, index, plan, new Set(plan.full), 'all', table, true, left(), signal, dec);
  // Gaps whose ends disagree are decoded whole (every GOP under their unmeasured slots).
  const refSharp = sharpReference(table.flatMap((s) => (s ? [s.stats] : [])));
  const refine = new Set<number>();
  const reasons: Record<string, number> = {};
  let filled = 0;
  for (const [a, b] of gapsOf(table)) {
    const why = refineReason(table, a, b, refSharp);
    if (!why) {
      filled++;
      continue;
    }
    reasons[why] = (reasons[why] ?? 0) + 1;
    for (const g of plan.gops) {
      const from = Math.round(g.keyTime * SAMPLES_PER_SEC);
      const to = Math.round(g.end * SAMPLES_PER_SEC);
      if (from < b && to > a + 1) refine.add(g.index);
    }
  }
  const tail = tailReason(table);
  if (tail) {
    reasons[tail] = (reasons[tail] ?? 0) + 1;
    let lastMeasured = table.length - 1;
    while (lastMeasured >= 0 && !table[lastMeasured]) lastMeasured--;
    for (const g of plan.gops) if (Math.round(g.end * SAMPLES_PER_SEC) > lastMeasured + 1) refine.add(g.index);
  }
  if (refine.size) {
    // Each refined GOP with the window of the next, so motion is measured across the boundary.
    const next = new Set([...refine].map((i) => i + 1).filter((i) => !refine.has(i)));
    decoded += await sparsePass(file, index, plan, refine, next, table, false, left(), signal, dec);
  }
  const measured = table.filter(Boolean).length;
  const stats = fillGaps(table);
  if (!stats.length) throw new EngineError('RENDER_FAILED', 'no frame could be decoded');
  return {
    stats,
    measured: table.map(Boolean),
    decoding: {
      mode: 'sparse',
      decodedShare: Math.round((decoded / Math.max(1, index.packets.length)) * 1000) / 1000,
      measuredShare: Math.round((measured / plan.slots) * 1000) / 1000,
      gaps: { decoded: reasons, filled },
    },
  };
}

/**
 * One pass: decodes the kept packets and writes the statistics of every slot they measure into
 * `table` (a slot already measured keeps its motion and link unless this pass measured its motion).
 * Returns the number of packets handed to the decoder.
 */
async function sparsePass(
  file: string,
  index: PacketIndex,
  plan: SparsePlan,
  full: Set<number>,
  windowed: Set<number> | 'all',
  table: Array<Slot | undefined>,
  links: boolean,
  timeoutMs: number,
  signal?: AbortSignal,
  dec: Decode = { threads: 2 },
): Promise<number> {
  const coverage = passCoverage(plan, full, windowed);
  const kept = plan.gops.filter((g) => full.has(g.index) || windowed === 'all' || windowed.has(g.index));
  if (!kept.length) return 0;
  // The decoder's timeline starts at the first kept keyframe (the earliest picture it gets).
  const offset = kept[0]!.keyTime;
  const expression = dropExpression({
    windowPackets: plan.windowPackets,
    full: [...full],
    window: windowed === 'all' ? 'all' : [...windowed],
  });
  if (expression.length > MAX_EXPRESSION) throw new EngineError('RENDER_FAILED', 'sparse decode: too many separate GOPs for one pass');
  const args = sparsePassArgs(file, expression, index.rotation, dec.threads);

  // Every frame's time must be one of the kept packets', in increasing order; anything else means
  // the decoder lost its step (and the caller decodes densely instead).
  const expected = passTimes(plan, full, windowed);
  let cursor = 0;
  // Stops the pass (both processes) from inside the output handlers; an outside cancel stops it too.
  let failure: EngineError | undefined;
  const { stop, unlink } = linkedAbort(signal);
  const times: number[] = [];
  const frames: Uint8Array[] = [];
  // Statistics are computed only for frames that some slot shows (a whole GOP decodes about four
  // frames per slot).
  type Frame = { t: number; pixels: Uint8Array; stats?: FrameStats };
  let prev: Frame | undefined;
  let last: { slot: number; pixels: Uint8Array; hist: Float32Array } | undefined;
  const place = (f: Frame, next: number | undefined) => {
    const g = gopAt(plan, f.t);
    const cov = g && coverage.get(g.index);
    if (!cov) return;
    const from = Math.max(cov[0], Math.round(f.t * SAMPLES_PER_SEC));
    const to = Math.min(cov[1], next === undefined ? cov[1] : Math.round(next * SAMPLES_PER_SEC));
    for (let s = from; s < to; s++) {
      if (!f.stats) dec.onFrame?.(s / SAMPLES_PER_SEC, f.pixels);
      const base = (f.stats ??= frameStats(f.pixels, undefined));
      const contiguous = last?.slot === s - 1;
      const motion = contiguous ? (last!.pixels === f.pixels ? 0 : meanAbsDiff(f.pixels, last!.pixels)) : 0;
      const slot: Slot = { stats: { ...base, motion }, motionKnown: contiguous };
      if (!contiguous && last && links) slot.link = { mad: meanAbsDiff(f.pixels, last.pixels), hist: histDistance(base.hist, last.hist) };
      // A slot measured before keeps its motion and link unless this pass measured its motion.
      if (!table[s] || contiguous) table[s] = slot;
      last = { slot: s, pixels: f.pixels, hist: base.hist };
    }
  };
  // Frames without times (or the reverse) pile up only when the two outputs lost step.
  const unpaired = () => {
    if (failure || Math.max(frames.length, times.length) <= MAX_UNPAIRED) return;
    failure = new EngineError('RENDER_FAILED', 'sparse decode: frames and times out of step');
    stop.abort();
  };
  const drain = () => {
    while (frames.length && times.length) {
      if (failure) return;
      const pixels = frames.shift()!;
      const tB = times.shift()!;
      if (!Number.isFinite(tB)) continue;
      const t = Math.round((tB + offset) * 1e6) / 1e6;
      while (cursor < expected.length && expected[cursor]! < t - 0.002) cursor++;
      if (cursor >= expected.length || Math.abs(expected[cursor]! - t) > 0.002 || (prev && t <= prev.t)) {
        failure = new EngineError('RENDER_FAILED', `sparse decode out of step at ${t.toFixed(3)} s`);
        stop.abort();
        return;
      }
      cursor++;
      const cur: Frame = { t, pixels };
      if (prev) place(prev, cur.t);
      prev = cur;
    }
  };
  try {
    await execPipeline(
      [
        { command: 'ffmpeg', args: args.copy },
        { command: 'ffmpeg', args: args.decode },
      ],
      {
        timeoutMs,
        signal: stop.signal,
        onStdout: frameReader(ANALYSIS_W * ANALYSIS_H, (frame) => {
          frames.push(frame);
          drain();
          unpaired();
        }),
        onStderrLine: (line) => {
          const m = SHOWINFO.exec(line);
          if (!m) return;
          times.push(Number(m[1]));
          drain();
          unpaired();
        },
      },
    );
  } catch (e) {
    throw failure ?? e;
  } finally {
    unlink();
  }
  if (failure) throw failure;
  if (frames.length || times.length) throw new EngineError('RENDER_FAILED', 'sparse decode: frames and times differ in number');
  if (prev) place(prev, undefined);
  let packets = 0;
  for (const g of kept) {
    const body = g.packets.filter((p) => !(p.t < g.keyTime));
    packets += full.has(g.index) ? body.length : Math.min(plan.windowPackets, body.length);
  }
  return packets;
}
