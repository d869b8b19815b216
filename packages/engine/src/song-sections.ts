/**
 * Song form: the sections of a song (intro, verse, chorus, bridge, outro) on its bar lines, and
 * the window of a reel cut from it (the best part of the song, whole bars, starting on a phrase).
 *
 * Sections (`songSections`), from the decoded samples and the tracked bars:
 *  1. Per bar: a chroma vector (energy of the twelve pitch classes, C2..B6, measured with Goertzel
 *     filters over Hann-windowed frames of 4096 samples spread over the bar, unit length) and the
 *     bar's loudness (RMS in dB).
 *  2. Boundaries: at every bar line the novelty is the chroma distance (1 - cosine) between the
 *     mean chroma of the four bars before and of the four bars after, plus the loudness step in
 *     units of 6 dB. Bar lines whose novelty is a local maximum (+-2 bars) and above the median plus
 *     a quarter of its range become boundaries, at least four bars apart (a phrase), the strongest
 *     first.
 *  3. Labels: two sections get the same letter when their bars, compared in order from their starts
 *     (chroma self-similarity: the mean cosine of bar i of one with bar i of the other), are at
 *     least 0.9 alike and their loudness is within 4 dB. Energy is the section's loudness scaled
 *     to 0..1 between the quietest and the loudest section.
 *  4. Kinds: the chorus is the loudest letter that repeats (the loudest letter when none repeats);
 *     a first section of another letter that is quieter than the chorus is the intro, a last one
 *     the outro; the most repeated remaining letter is the verse; anything else is a bridge.
 *
 * The window (`chooseMusicWindow`): every bar line is a candidate start; its length is the whole
 * number of bars nearest the target (a candidate whose nearest length is more than half a bar off,
 * near the song's end, is dropped). Candidates are scored by the share of the window in a chorus
 * (x3), its mean section energy, minus its share in the intro or outro, plus a phrase bonus: 0.5
 * for starting on a section's first bar, 0.3 on a bar 8k bars into its section, 0.15 on 4k. The
 * best score wins; ties go to the earliest start. A target at least the song's length gives the
 * whole song (clamped).
 */
import { barsNearest, type AnalysedSection, type SectionKind } from '@reelsmith/proto';
import type { MusicAnalysis } from './beat-tracker.js';
import { periodAt } from './beat-tracker.js';
import { cosineSimilarity } from './numeric.js';

export type { SectionKind };

/** A section of the song: the message `SongSection` (proto/reelsmith/engine/v1/plan.proto), of a known kind. */
export type SongSection = AnalysedSection;

/** A music analysis that may carry the song's sections (analyses cached before them lack them). */
export type SongAnalysis = MusicAnalysis & { sections?: SongSection[]; beatsPerBar?: number };

const LOW_MIDI = 36; // C2, 65 Hz
const HIGH_MIDI = 95; // B6, 1976 Hz
const FRAME = 4096;
const FRAMES_PER_BAR = 4;
const PHRASE = 4;

const round3 = (x: number) => Math.round(x * 1000) / 1000;
const round6 = (x: number) => Math.round(x * 1e6) / 1e6;

/** Chroma (12, unit length) and loudness (dB) of [a, b) seconds. */
function barFeatures(samples: Float32Array, sampleRate: number, a: number, b: number): { chroma: Float64Array; db: number } {
  const chroma = new Float64Array(12);
  const s0 = Math.max(0, Math.floor(a * sampleRate));
  const s1 = Math.min(samples.length, Math.floor(b * sampleRate));
  let e = 0;
  for (let i = s0; i < s1; i++) e += samples[i]! * samples[i]!;
  const db = 10 * Math.log10(e / Math.max(1, s1 - s0) + 1e-12);
  const n = Math.min(FRAME, s1 - s0);
  if (n < 256) return { chroma, db };
  const hann = new Float64Array(n);
  for (let i = 0; i < n; i++) hann[i] = 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / (n - 1));
  const coef = new Float64Array(HIGH_MIDI - LOW_MIDI + 1);
  for (let m = LOW_MIDI; m <= HIGH_MIDI; m++) coef[m - LOW_MIDI] = 2 * Math.cos((2 * Math.PI * 440 * 2 ** ((m - 69) / 12)) / sampleRate);
  const frames = Math.max(1, Math.min(FRAMES_PER_BAR, Math.floor((s1 - s0) / n)));
  const x = new Float64Array(n);
  for (let f = 0; f < frames; f++) {
    const off = s0 + Math.floor(((s1 - s0 - n) * (f + 0.5)) / frames);
    for (let i = 0; i < n; i++) x[i] = samples[off + i]! * hann[i]!;
    for (let m = 0; m < coef.length; m++) {
      const c = coef[m]!;
      let q1 = 0,
        q2 = 0;
      for (let i = 0; i < n; i++) {
        const q0 = c * q1 - q2 + x[i]!;
        q2 = q1;
        q1 = q0;
      }
      chroma[(m + LOW_MIDI) % 12]! += Math.max(0, q1 * q1 + q2 * q2 - c * q1 * q2);
    }
  }
  // Compress (square root of power = magnitude) and normalise.
  let norm = 0;
  for (let k = 0; k < 12; k++) {
    chroma[k] = Math.sqrt(chroma[k]!);
    norm += chroma[k]! * chroma[k]!;
  }
  norm = Math.sqrt(norm);
  if (norm > 0) for (let k = 0; k < 12; k++) chroma[k]! /= norm;
  return { chroma, db };
}

function meanChroma(bars: Array<{ chroma: Float64Array }>): Float64Array {
  const m = new Float64Array(12);
  for (const b of bars) for (let k = 0; k < 12; k++) m[k]! += b.chroma[k]!;
  return m;
}

/** Mean loudness in dB of bars (power mean, so a loud bar counts as loud). */
const meanDb = (bars: Array<{ db: number }>) =>
  bars.length ? 10 * Math.log10(bars.reduce((s, b) => s + 10 ** (b.db / 10), 0) / bars.length) : -120;

/**
 * The song's sections on its bar lines (see the top of this file). `bars` are the tracked
 * downbeats; the first section starts at 0 and the last ends at `durationSec`, so the sections
 * cover the song. Without at least eight bars the song is one section.
 */
export function songSections(samples: Float32Array, sampleRate: number, bars: readonly number[], durationSec: number): SongSection[] {
  // A bar line too close to the end (a last partial bar, the tail) starts no bar of its own.
  const spacing = bars.length > 1 ? (bars.at(-1)! - bars[0]!) / (bars.length - 1) : 0;
  const lines = bars.filter((b) => b > 0.05 && b < durationSec - Math.max(0.05, spacing / 2));
  if (lines.length < 8) {
    const all = barFeatures(samples, sampleRate, 0, durationSec);
    return [{ start: 0, end: round6(durationSec), label: 'A', kind: 'chorus', energy: 1, loudnessDb: round3(all.db) }];
  }
  // Bars [lines[i], lines[i+1]); a pickup before the first line is its own (part of the first section).
  const edges = [...lines, durationSec];
  const feats = edges.slice(0, -1).map((a, i) => barFeatures(samples, sampleRate, a, edges[i + 1]!));
  const n = feats.length;
  // Novelty at bar line k (between bar k-1 and bar k), k = 1..n-1.
  const novelty = new Float64Array(n);
  for (let k = 1; k < n; k++) {
    const before = feats.slice(Math.max(0, k - PHRASE), k);
    const after = feats.slice(k, Math.min(n, k + PHRASE));
    novelty[k] = 1 - cosineSimilarity(meanChroma(before), meanChroma(after)) + Math.abs(meanDb(before) - meanDb(after)) / 6;
  }
  // The threshold from the bar lines that may become boundaries (not the song's ragged ends).
  const vals = [...novelty.slice(PHRASE, n - PHRASE + 1)].sort((a, b) => a - b);
  if (!vals.length) vals.push(Infinity);
  const median = vals[Math.floor(vals.length / 2)]!;
  const threshold = median + (vals.at(-1)! - median) / 4;
  const peaks: number[] = [];
  for (let k = PHRASE; k <= n - PHRASE; k++) {
    const v = novelty[k]!;
    if (v < threshold) continue;
    let isMax = true;
    for (let j = Math.max(1, k - 2); j <= Math.min(n - 1, k + 2); j++) if (novelty[j]! > v || (novelty[j] === v && j < k)) isMax = false;
    if (isMax) peaks.push(k);
  }
  const chosen: number[] = [];
  for (const k of peaks.sort((a, b) => novelty[b]! - novelty[a]! || a - b))
    if (chosen.every((c) => Math.abs(c - k) >= PHRASE)) chosen.push(k);
  chosen.sort((a, b) => a - b);
  const spans = [0, ...chosen, n].slice(0, -1).map((a, i, arr) => [a, i + 1 < arr.length ? arr[i + 1]! : n] as const);

  // Labels by bar-by-bar chroma self-similarity and loudness.
  const secDb = spans.map(([a, b]) => meanDb(feats.slice(a, b)));
  const alike = (x: number, y: number) => {
    const [a0, a1] = spans[x]!;
    const [b0, b1] = spans[y]!;
    const len = Math.min(a1 - a0, b1 - b0);
    let s = 0;
    for (let i = 0; i < len; i++) s += cosineSimilarity(feats[a0 + i]!.chroma, feats[b0 + i]!.chroma);
    return s / len >= 0.9 && Math.abs(secDb[x]! - secDb[y]!) <= 4;
  };
  const labels: string[] = [];
  let next = 0;
  spans.forEach((_, i) => {
    const same = labels.findIndex((_, j) => alike(i, j));
    labels.push(same >= 0 ? labels[same]! : String.fromCharCode(65 + Math.min(25, next++)));
  });
  const lo = Math.min(...secDb);
  const hi = Math.max(...secDb);
  const energy = secDb.map((d) => (hi - lo > 1e-9 ? (d - lo) / (hi - lo) : 1));
  const count = (l: string) => labels.filter((x) => x === l).length;
  const letters = [...new Set(labels)];
  const letterDb = (l: string) => meanDb(spans.flatMap(([a, b], i) => (labels[i] === l ? feats.slice(a, b) : [])));
  const repeated = letters.filter((l) => count(l) > 1);
  const chorus = (repeated.length ? repeated : letters).reduce((best, l) => (letterDb(l) > letterDb(best) + 1e-9 ? l : best));
  const kinds: SectionKind[] = labels.map(() => 'bridge');
  labels.forEach((l, i) => {
    if (l === chorus) kinds[i] = 'chorus';
  });
  const last = labels.length - 1;
  if (labels[0] !== chorus && secDb[0]! < letterDb(chorus)) kinds[0] = 'intro';
  if (last > 0 && labels[last] !== chorus && count(labels[last]!) === 1 && secDb[last]! < letterDb(chorus)) kinds[last] = 'outro';
  const others = letters.filter((l) => l !== chorus && labels.some((x, i) => x === l && kinds[i] === 'bridge'));
  if (others.length) {
    const verse = others.reduce((best, l) => (count(l) > count(best) ? l : best));
    labels.forEach((l, i) => {
      if (l === verse && kinds[i] === 'bridge') kinds[i] = 'verse';
    });
  }
  return spans.map(([a, b], i) => ({
    start: a === 0 ? 0 : round6(lines[a]!),
    end: b === n ? round6(durationSec) : round6(lines[b]!),
    label: labels[i]!,
    kind: kinds[i]!,
    energy: round3(energy[i]!),
    loudnessDb: round3(secDb[i]!),
  }));
}

/** The part of the song a reel plays. */
export interface MusicWindow {
  /** Seconds into the song where the reel's music begins (a bar line, or 0). */
  start: number;
  /** Seconds into the song where it ends (a bar line, or the song's end). */
  end: number;
  /** The target was longer than the song: the reel is the whole song. */
  clamped: boolean;
  /** Seconds the music fades out over at the end (the last beat), 0 when the song ends there itself. */
  fadeOutSec: number;
}

/** Shortest fade-out at a window's end, seconds (a very fast last beat still fades audibly). */
export const MIN_WINDOW_FADE_OUT_SEC = 0.35;

/** Seconds of `[a, b)` inside sections for which `pick` holds. */
const shareIn = (sections: readonly SongSection[], a: number, b: number, pick: (s: SongSection) => boolean) =>
  sections.filter(pick).reduce((s, x) => s + Math.max(0, Math.min(b, x.end) - Math.max(a, x.start)), 0);

/**
 * The window of the song a reel of `targetSec` plays (see the top of this file). `targetSec`
 * undefined: the whole song (from the bar line of `startSec` when given). `startSec`: the user's choice of start (a bar line; the nearest bar
 * line is used), otherwise the best part of the song. Without tracked bars the window starts at
 * `startSec` (or 0) and lasts the target.
 */
export function chooseMusicWindow(
  analysis: SongAnalysis | undefined,
  durationSec: number,
  targetSec?: number,
  startSec?: number,
): MusicWindow {
  const whole = (clamped: boolean): MusicWindow => ({ start: 0, end: durationSec, clamped, fadeOutSec: 0 });
  if (targetSec === undefined) {
    // The rest of the song from the user's bar line (the nearest one), or the whole song.
    const lines = analysis?.bars ?? [];
    if (startSec === undefined || !lines.length) return whole(false);
    const from = lines.reduce((b, x) => (Math.abs(x - startSec) < Math.abs(b - startSec) ? x : b));
    return from > 0 && from < durationSec - 1 ? { start: round6(from), end: durationSec, clamped: false, fadeOutSec: 0 } : whole(false);
  }
  if (targetSec >= durationSec - 1e-6) return whole(targetSec > durationSec + 1e-6);
  const bars = (analysis?.bars ?? []).filter((b) => b >= 0 && b <= durationSec + 1e-6);
  const fadeAt = (end: number) =>
    end >= durationSec - 0.05 ? 0 : round6(Math.max(MIN_WINDOW_FADE_OUT_SEC, analysis ? periodAt(analysis, end - 0.01) : 0));
  if (bars.length < 2) {
    const start = Math.max(0, Math.min(startSec ?? 0, durationSec - targetSec));
    return { start: round6(start), end: round6(start + targetSec), clamped: false, fadeOutSec: fadeAt(start + targetSec) };
  }
  // The whole number of bars nearest the target from bar i: its end bar index, or -1.
  const endFor = (i: number) => barsNearest(bars, i, targetSec);
  const sections = analysis?.sections ?? [];
  let chosen = -1;
  if (startSec !== undefined) {
    chosen = bars.reduce((b, x, i) => (Math.abs(x - startSec) < Math.abs(bars[b]! - startSec) ? i : b), 0);
    if (endFor(chosen) < 0) chosen = -1;
  }
  if (chosen < 0) {
    let bestScore = -Infinity;
    for (let i = 0; i < bars.length; i++) {
      const j = endFor(i);
      if (j < 0) continue;
      const a = bars[i]!,
        b = bars[j]!;
      const len = b - a;
      let score = 0;
      if (sections.length) {
        const chorus = shareIn(sections, a, b, (s) => s.kind === 'chorus') / len;
        const edges = shareIn(sections, a, b, (s) => s.kind === 'intro' || s.kind === 'outro') / len;
        const energy = sections.reduce((s, x) => s + x.energy * Math.max(0, Math.min(b, x.end) - Math.max(a, x.start)), 0) / len;
        const home = sections.find((s) => s.start <= a + 0.05 && s.end > a + 0.05);
        const homeBar = home ? bars.findIndex((x) => x >= home.start - 0.05) : 0;
        const into = i - Math.max(0, homeBar);
        const phrase = into === 0 ? 0.5 : into % 8 === 0 ? 0.3 : into % 4 === 0 ? 0.15 : 0;
        score = 3 * chorus + energy - edges + phrase;
      } else {
        // No sections (an analysis cached before them): a 4-bar phrase start nearest a quarter in.
        score = -Math.abs(a - durationSec / 4) / durationSec + (i % 4 === 0 ? 1 : 0);
      }
      if (score > bestScore + 1e-9) {
        bestScore = score;
        chosen = i;
      }
    }
  }
  if (chosen < 0) return whole(true);
  const j = endFor(chosen);
  const end = bars[j]!;
  return { start: round6(bars[chosen]!), end: round6(end), clamped: false, fadeOutSec: fadeAt(end) };
}
