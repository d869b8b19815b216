import path from 'node:path';
import { trackBeatsLearned } from './beat-learned.js';
import { onsetEnvelope, trackBeats, type MusicAnalysis } from './beat-tracker.js';
import { execMedia } from './exec.js';
import { INPUT_GUARD } from './probe.js';
import { songSections, type SongSection } from './song-sections.js';

export const ANALYSIS_SAMPLE_RATE = 22050;

/** Decodes a local audio (or video) file to mono float samples at `sampleRate`. */
export async function decodeAudio(
  file: string,
  sampleRate = ANALYSIS_SAMPLE_RATE,
  timeoutMs = 120_000,
  signal?: AbortSignal,
): Promise<Float32Array> {
  const chunks: Buffer[] = [];
  let size = 0;
  // Opens like clip analysis's decode on purpose (quiet, no stdin, INPUT_GUARD on the input); what it decodes differs.
  await execMedia(
    'ffmpeg',
    [
      '-v',
      'error',
      '-nostdin',
      ...INPUT_GUARD,
      '-i',
      `file:${path.resolve(file)}`,
      '-vn',
      '-ac',
      '1',
      '-ar',
      String(sampleRate),
      '-f',
      'f32le',
      'pipe:1',
    ],
    {
      timeoutMs,
      signal,
      onStdout: (c) => {
        chunks.push(c);
        size += c.length;
      },
    },
  );
  const all = Buffer.concat(chunks, size);
  // Copy into an aligned buffer: Float32Array needs 4-byte alignment.
  const out = new Float32Array(Math.floor(all.length / 4));
  Buffer.from(out.buffer).set(all.subarray(0, out.length * 4));
  return out;
}

type AubioModule = Awaited<ReturnType<typeof import('aubiojs').default>>;
let aubio: Promise<AubioModule> | undefined;
function loadAubio(): Promise<AubioModule> {
  // aubiojs ships a CommonJS factory; the module is compiled once per process.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const factory = require('aubiojs') as (() => Promise<AubioModule>) | { default: () => Promise<AubioModule> };
  return (aubio ??= (typeof factory === 'function' ? factory : factory.default)());
}

/** aubio's tempo tracker over the samples: its BPM and raw beat times. */
export async function aubioBeats(samples: Float32Array, sampleRate: number): Promise<{ bpm: number; beats: number[] }> {
  const m = await loadAubio();
  const hop = 256;
  const tempo = new m.Tempo(1024, hop, sampleRate);
  const beats: number[] = [];
  const frame = new Float32Array(hop);
  for (let i = 0; i + hop <= samples.length; i += hop) {
    frame.set(samples.subarray(i, i + hop));
    if (tempo.do(frame)) beats.push((i + hop) / sampleRate);
  }
  return { bpm: tempo.getBpm(), beats };
}

/** Root mean square of the samples in [t, t + window). */
export function rmsAfter(samples: Float32Array, sampleRate: number, t: number, window: number): number {
  const a = Math.max(0, Math.floor(t * sampleRate));
  const b = Math.min(samples.length, a + Math.floor(window * sampleRate));
  let e = 0;
  for (let i = a; i < b; i++) e += samples[i]! * samples[i]!;
  return b > a ? Math.sqrt(e / (b - a)) : 0;
}

/**
 * Tempo, beats, bars and sections of a music file: decode, then the learned beat model and its
 * bar-pointer decoding (beat-learned.ts). `opts.tracker: 'rules'` runs the rule-based tracker
 * (beat-tracker.ts: onset envelope, local tempo) instead: the beat bench's comparison column, which
 * reads far fewer held-out generated songs right than the model (docs/beat-bench.md). `opts.aubio` runs aubio's tracker too, for comparison (benches), and
 * returns its beats as `rawBeats` (empty otherwise); it does not change the beats.
 */
export async function analyseMusic(
  file: string,
  durationSec: number,
  timeoutMs?: number,
  signal?: AbortSignal,
  opts: { aubio?: boolean; tracker?: 'rules' | 'model' } = {},
): Promise<MusicAnalysis & { rawBeats: number[]; sections: SongSection[] }> {
  const samples = await decodeAudio(file, ANALYSIS_SAMPLE_RATE, timeoutMs, signal);
  const duration = Math.min(durationSec, samples.length / ANALYSIS_SAMPLE_RATE);
  const raw = opts.aubio ? await aubioBeats(samples, ANALYSIS_SAMPLE_RATE) : { bpm: 0, beats: [] };
  // aubio is for comparison only: its tempo does not seed the tracker, so a bench that asks for it
  // scores the same beats the product computes.
  const fit =
    opts.tracker !== 'rules'
      ? await trackBeatsLearned(samples, duration)
      : trackBeats(onsetEnvelope(samples, ANALYSIS_SAMPLE_RATE), duration, {
          accentAt: (t) => rmsAfter(samples, ANALYSIS_SAMPLE_RATE, t, 0.1),
        });
  // The song's form on its bar lines (song-sections.ts): the reel's window is chosen from it.
  const sections = songSections(samples, ANALYSIS_SAMPLE_RATE, fit.bars, duration);
  return { ...fit, sections, rawBeats: raw.beats };
}
