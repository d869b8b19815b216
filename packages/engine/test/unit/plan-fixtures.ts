/** Plan inputs shared by the planning specs: a steady song, a clip analysis with optional bad stretches and scene cuts. */
import type { MusicAnalysis } from '../../src/beat-tracker';
import type { ClipAnalysis } from '../../src/clip-analysis';
import type { PlanInput } from '../../src/plan';

export const FRAME = 1 / 30;

export function music(durationSec: number, bpm = 120, offset = 0): MusicAnalysis {
  const p = 60 / bpm;
  const beats = [];
  for (let t = offset; t < durationSec; t += p) beats.push(Math.round(t * 1e6) / 1e6);
  return { version: 2, durationSec, bpm, beatPeriodSec: p, beats, bars: beats.filter((_, i) => i % 4 === 0), confidence: 1 };
}

export function clip(durationSec: number, opts: { bad?: [number, number]; scenes?: number[] } = {}): ClipAnalysis {
  const times = [];
  for (let t = 0; t < durationSec; t += 0.125) times.push(Math.round(t * 1000) / 1000);
  const bad = (t: number) => Boolean(opts.bad && t >= opts.bad[0] && t < opts.bad[1]);
  return {
    version: 1,
    durationSec,
    sampleIntervalSec: 0.125,
    times,
    score: times.map((t) => (bad(t) ? 0 : 0.5 + 0.4 * Math.sin(t))),
    black: times.map(bad),
    frozen: times.map(() => false),
    blurred: times.map(() => false),
    scenes: opts.scenes ?? [],
  };
}

export const base = (over: Partial<PlanInput> = {}): PlanInput => ({
  clips: [10, 8, 12].map((d) => ({ durationSec: d, analysis: clip(d) })),
  music: { durationSec: 30, analysis: music(30, 120, 0.25) },
  pacing: 'standard',
  beatMapping: true,
  intelligence: true,
  fps: 30,
  ...over,
});
