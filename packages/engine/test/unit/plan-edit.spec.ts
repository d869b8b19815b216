import type { ClipAnalysis } from '../../src/clip-analysis';
import type { MusicAnalysis } from '../../src/beat-tracker';
import { planEdit, type EditPlan, type PlanInput } from '../../src/plan';
import { MAX_SEGMENTS, rerollPlan, validatePlan, type PlanLimits } from '../../src/plan-edit';

function music(durationSec: number, bpm = 120): MusicAnalysis {
  const p = 60 / bpm;
  const beats = [];
  for (let t = 0.25; t < durationSec; t += p) beats.push(Math.round(t * 1e6) / 1e6);
  return { version: 2, durationSec, bpm, beatPeriodSec: p, beats, bars: beats.filter((_, i) => i % 4 === 0), confidence: 1 };
}

function clip(durationSec: number): ClipAnalysis {
  const times = [];
  for (let t = 0; t < durationSec; t += 0.125) times.push(Math.round(t * 1000) / 1000);
  return {
    version: 2,
    durationSec,
    sampleIntervalSec: 0.125,
    times,
    score: times.map((t) => 0.5 + 0.4 * Math.sin(t)),
    black: times.map(() => false),
    frozen: times.map(() => false),
    blurred: times.map(() => false),
    scenes: [],
  };
}

const input = (over: Partial<PlanInput> = {}): PlanInput => ({
  clips: [10, 8, 12].map((d) => ({ durationSec: d, analysis: clip(d) })),
  music: { durationSec: 30, analysis: music(30) },
  pacing: 'standard',
  beatMapping: true,
  intelligence: true,
  fps: 30,
  ...over,
});
const limits: PlanLimits = { clipDurations: [10, 8, 12], musicSec: 30, fps: 30 };
const clone = (p: EditPlan): EditPlan => structuredClone(p);

describe('validatePlan', () => {
  const plan = planEdit(input());

  it('accepts the plans the planner makes, with and without music', () => {
    expect(validatePlan(plan, limits)).toBeNull();
    const silent = planEdit(input({ music: undefined, beatMapping: false }));
    expect(validatePlan(silent, { clipDurations: [10, 8, 12], fps: 30 })).toBeNull();
  });

  // Each bad plan gets its own message, naming the segment and what is wrong with it.
  const cases: Array<[string, (p: EditPlan) => void, RegExp]> = [
    [
      'a clip index that does not exist',
      (p) => (p.segments[2]!.clip = 3),
      /^plan\.segments\[2\]: clip 3 does not exist \(the request has 3 clips\)$/,
    ],
    [
      'an out point past the end of its clip',
      (p) => {
        const s = p.segments[1]!;
        const c = limits.clipDurations[s.clip]!;
        s.in = c - 0.5;
        s.out = c + 1;
      },
      /^plan\.segments\[1\]: out \d+(\.\d+)? is past the end of clip \d \(\d+ s\)$/,
    ],
    ['an in point before the clip', (p) => (p.segments[0]!.in = -1), /^plan\.segments\[0\]: in -1 is before the start of clip 0$/],
    ['out not after in', (p) => (p.segments[0]!.out = p.segments[0]!.in), /^plan\.segments\[0\]: out [\d.]+ is not after in [\d.]+$/],
    [
      'a gap between segments',
      (p) => (p.segments[3]!.start += 1 / 30),
      /^plan\.segments\[3\]: start [\d.]+ does not follow the previous segment's end [\d.]+ \(segments must be contiguous\)$/,
    ],
    ['a first segment not at 0', (p) => (p.segments[0]!.start = 1 / 30), /^plan\.segments\[0\]: start 0\.033 must be 0/],
    [
      'a cut off the frame grid',
      (p) => {
        p.segments[1]!.end += 0.01;
        p.segments[2]!.start += 0.01;
      },
      /^plan\.segments\[1\]: end [\d.]+ is not on the output frame grid \(1\/30 s\)$/,
    ],
    [
      'a source time that does not fill the segment',
      (p) => (p.segments[2]!.out -= 0.5),
      /^plan\.segments\[2\]: out - in \+ hold is [\d.]+ s but the segment lasts [\d.]+ s \(end - start\)$/,
    ],
    ['a total that is not the last end', (p) => (p.totalSec += 1), /^plan\.total_sec 31 is not the last segment's end 30$/],
    ['an unknown version', (p) => (p.version = 99), /^plan\.version: 99 is not a plan version/],
    ['another frame rate', (p) => (p.fps = 25), /^plan\.fps: 25 is not the output frame rate \(30\)$/],
    ['no segments', (p) => (p.segments = []), /^plan\.segments: a plan needs at least one segment$/],
  ];
  it.each(cases)('refuses %s, naming it', (_what, edit, message) => {
    const p = clone(plan);
    edit(p);
    expect(validatePlan(p, limits)).toMatch(message);
  });

  it('refuses a reel longer than the music, or than the material without music', () => {
    const p = clone(plan);
    expect(validatePlan(p, { ...limits, musicSec: 20 })).toBe('plan.total_sec 30 is longer than the music (20 s)');
    expect(validatePlan(p, { clipDurations: [10, 8, 11], fps: 30 })).toBe('plan.total_sec 30 is longer than the material (29 s of clips)');
  });

  it('refuses more segments than the cap', () => {
    const segments = Array.from({ length: MAX_SEGMENTS + 1 }, (_, i) => ({
      clip: 0,
      in: 0,
      out: 0.1,
      start: i / 10,
      end: (i + 1) / 10,
      hold: 0,
    }));
    const p: EditPlan = {
      ...plan,
      totalSec: segments.at(-1)!.end,
      fps: 30,
      beatAligned: false,
      musicStart: 0,
      musicFadeOutSec: 0,
      clampedToSong: false,
      segments,
    };
    expect(validatePlan(p, limits)).toBe(`plan.segments: ${MAX_SEGMENTS + 1} segments, at most ${MAX_SEGMENTS} are allowed`);
  });

  it('accepts an edited plan: a cut moved to another frame with the neighbours adjusted', () => {
    const p = clone(plan);
    const [a, b] = [p.segments[1]!, p.segments[2]!];
    const d = 6 / 30;
    a.end = Math.round((a.end + d) * 30) / 30;
    a.out = a.in + (a.end - a.start) - a.hold;
    b.start = a.end;
    b.in = b.in + d;
    expect(b.out).toBeGreaterThan(b.in);
    expect(validatePlan(p, limits)).toBeNull();
  });
});

describe('rerollPlan', () => {
  // Clips long enough that every segment can show a moment no other segment shows.
  const long = (over: Partial<PlanInput> = {}) =>
    input({ clips: [20, 18, 24].map((d) => ({ durationSec: d, analysis: clip(d) })), ...over });
  const base = planEdit(long());
  const longLimits: PlanLimits = { clipDurations: [20, 18, 24], musicSec: 30, fps: 30 };

  it('keeps locked (and untouched) segments bit for bit and gives re-rolled ones unused moments', () => {
    const locked = [0, 2, 4];
    const reroll = [1, 3];
    const next = rerollPlan(long(), base, { reroll, locked, seed: 0 });
    expect(next.segments).toHaveLength(base.segments.length);
    for (const [i, s] of base.segments.entries()) if (!reroll.includes(i)) expect(JSON.stringify(next.segments[i])).toBe(JSON.stringify(s));
    for (const r of reroll) {
      const was = base.segments[r]!;
      const now = next.segments[r]!;
      // Same clip, same place and length on the reel; another moment of the clip.
      expect([now.clip, now.start, now.end, now.hold]).toEqual([was.clip, was.start, was.end, was.hold]);
      expect(now.out - now.in).toBeCloseTo(was.out - was.in, 5);
      expect(now.in).not.toBe(was.in);
      // Not shown by any other segment of the new plan (the clips are long enough for that here).
      for (const [j, o] of next.segments.entries())
        if (j !== r && o.clip === now.clip) expect(now.in >= o.out - 1e-6 || now.out <= o.in + 1e-6).toBe(true);
    }
    expect(validatePlan(next, longLimits)).toBeNull();
  });

  it('is deterministic for the same request and seed, and a seed can change the choice', () => {
    const a = rerollPlan(long(), base, { reroll: [1, 3], seed: 7 });
    const b = rerollPlan(long(), base, { reroll: [1, 3], seed: 7 });
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
    const seeds = new Set([1, 2, 3, 4, 5, 6, 7, 8].map((seed) => rerollPlan(long(), base, { reroll: [1], seed }).segments[1]!.in));
    expect(seeds.size).toBeGreaterThan(1);
  });

  it('re-rolls without analysis too (evenly chosen unused moments)', () => {
    const plain = input({ intelligence: false, clips: [20, 18, 24].map((d) => ({ durationSec: d })) });
    const p = planEdit(plain);
    const next = rerollPlan(plain, p, { reroll: [0] });
    expect(next.segments[0]!.in).not.toBe(p.segments[0]!.in);
    expect(validatePlan(next, longLimits)).toBeNull();
  });

  it('refuses an index out of range, and one both locked and re-rolled', () => {
    expect(() => rerollPlan(long(), base, { reroll: [base.segments.length] })).toThrow(/^reroll: segment \d+ does not exist/);
    expect(() => rerollPlan(long(), base, { reroll: [1], locked: [1] })).toThrow('segment 1 is both locked and re-rolled');
  });
});
