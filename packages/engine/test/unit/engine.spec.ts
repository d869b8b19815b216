import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import { enginePlan } from '@reelsmith/proto';
import type { MusicAnalysis } from '../../src/beat-tracker';
import type { ClipAnalysis } from '../../src/clip-analysis';
import { planSummary } from '../../src/cli';
import { FIRST_CUT_WAIT_SEC, planEdit, type PlanInput, type Used } from '../../src/plan';
import { bestTier } from '../../src/plan-windows';
import type { MediaInfo } from '../../src/probe';
import { base, clip, FRAME, music } from './plan-fixtures';

describe('edit planning', () => {
  it('is deterministic: the same inputs give the same cuts whatever the clock or random source says', () => {
    // A plan that drew on Math.random or the clock would differ between these two runs.
    const random = jest.spyOn(Math, 'random').mockReturnValue(0.01);
    const now = jest.spyOn(Date, 'now').mockReturnValue(1_000);
    const first = JSON.stringify(planEdit(base()));
    random.mockReturnValue(0.99);
    now.mockReturnValue(9_999_999_999);
    const second = JSON.stringify(planEdit(base()));
    random.mockRestore();
    now.mockRestore();
    expect(second).toBe(first);
  });

  it('cuts on beats, within one frame, and lasts as long as the music', () => {
    const plan = planEdit(base());
    const beats = base().music!.analysis!.beats;
    expect(plan.beatAligned).toBe(true);
    expect(plan.totalSec).toBe(30);
    expect(plan.segments.at(-1)!.end).toBe(30);
    for (const s of plan.segments.slice(1))
      expect(Math.min(...beats.map((b) => Math.abs(b - s.start)))).toBeLessThanOrEqual(FRAME / 2 + 1e-9);
    // Contiguous timeline.
    plan.segments.forEach((s, i) => i && expect(s.start).toBe(plan.segments[i - 1]!.end));
  });

  it('makes longer segments for relaxed pacing and shorter for high energy', () => {
    const mean = (pacing: PlanInput['pacing']) => {
      const p = planEdit(base({ pacing }));
      return p.totalSec / p.segments.length;
    };
    expect(mean('relaxed')).toBeGreaterThan(mean('standard'));
    expect(mean('standard')).toBeGreaterThan(mean('high-energy'));
    expect(mean('high-energy')).toBeCloseTo(1, 0);
  });

  it('prefers bar lines for cuts', () => {
    const plan = planEdit(base({ pacing: 'relaxed' }));
    const bars = new Set(base().music!.analysis!.bars.map((b) => Math.round(b * 30)));
    const onBars = plan.segments.slice(1).filter((s) => bars.has(Math.round(s.start * 30)));
    expect(onBars.length).toBeGreaterThanOrEqual(plan.segments.length - 2);
  });

  it("waits for the music's first sure beat before the first cut (a lead-in the decoding carried its grid into)", () => {
    // 120 BPM from 0.2 s; the first four beats are the noise before the music (activation 0.1-0.19).
    const song = music(30, 120, 0.2);
    const beatStrength = song.beats.map((_, i) => (i < 4 ? 0.1 + 0.03 * i : 0.8));
    const cuts = (analysis: MusicAnalysis, over: Partial<PlanInput> = {}) =>
      planEdit(base({ pacing: 'high-energy', music: { durationSec: 30, analysis }, ...over })).segments.map((s) => s.start);
    // Without strengths (the rule-based tracker, a tempo-corrected grid): about two beats in, at 1.2 s.
    expect(cuts(song)[1]).toBeCloseTo(1.2, 6);
    // With them: the first shot holds until the first sure beat (2.2 s); the cuts after keep the
    // two-beat pace, on beats.
    // Strengths that do not match the beats one for one (a damaged stored analysis) are not read.
    expect(cuts({ ...song, beatStrength: beatStrength.slice(1) })[1]).toBeCloseTo(1.2, 6);
    const waited = cuts({ ...song, beatStrength });
    expect(waited[1]).toBeCloseTo(2.2, 6);
    expect(waited[2]).toBeCloseTo(3.2, 6);
    for (const c of waited.slice(1)) expect(Math.min(...song.beats.map((b) => Math.abs(b - c)))).toBeLessThanOrEqual(FRAME / 2 + 1e-9);
    // A lone peak of the noise (0.35) is not the music's start: the sure beat begins four strong
    // beats in a row (each of at least half the song's median strength).
    const peak = cuts({ ...song, beatStrength: beatStrength.map((x, i) => (i === 1 ? 0.35 : x)) });
    expect(peak[1]).toBeCloseTo(2.2, 6);
    // A run that starts more than FIRST_CUT_WAIT_SEC in is not waited for, but the first beat of at
    // least WEAK_BEAT before it is (here a beat of 0.35 at 3.2 s, the run from 9.2 s).
    const longIntro = song.beats.map((b) => (Math.abs(b - 3.2) < 0.01 ? 0.35 : b < FIRST_CUT_WAIT_SEC + 1 ? 0.1 : 0.8));
    expect(cuts({ ...song, beatStrength: longIntro })[1]).toBeCloseTo(3.2, 6);
    // A sure beat further than FIRST_CUT_WAIT_SEC into the reel is not waited for.
    // Nor by any later cut: the pace holds through the lead-in.
    const late = cuts({ ...song, beatStrength: song.beats.map((b) => (b < FIRST_CUT_WAIT_SEC + 0.5 ? 0.1 : 0.8)) });
    expect(late[1]).toBeCloseTo(1.2, 6);
    late.slice(2, 8).forEach((c, i) => expect(c - late[i + 1]!).toBeCloseTo(1, 6));
    // A window of the song (a 10 s reel from the bar line at 8.2 s): the strengths move with the beats.
    const windowed = cuts(
      { ...song, beatStrength: song.beats.map((b) => (b < 8.2 + 2.5 ? 0.1 : 0.8)) },
      { targetSec: 10, musicStartSec: 8.2 },
    );
    expect(windowed[1]).toBeCloseTo(2.5, 6);
    // A window that starts in a quiet stretch after the song's first sure beat is cut on its grid.
    const quietStretch = cuts(
      { ...song, beatStrength: song.beats.map((b) => (b >= 8.2 && b < 8.2 + 2.5 ? 0.1 : 0.8)) },
      { targetSec: 10, musicStartSec: 8.2 },
    );
    expect(quietStretch[1]).toBeCloseTo(1, 6);
  });

  it('uses every clip, in the given order, round robin', () => {
    expect(
      planEdit(base())
        .segments.slice(0, 6)
        .map((s) => s.clip),
    ).toEqual([0, 1, 2, 0, 1, 2]);
  });

  it('never asks a clip for more than it has: the cut moves to an earlier beat, or the last frame is held', () => {
    const plan = planEdit(base({ clips: [{ durationSec: 1.2 }, { durationSec: 0.3 }], pacing: 'relaxed', intelligence: false }));
    for (const s of plan.segments) expect(s.out - s.in).toBeLessThanOrEqual([1.2, 0.3][s.clip]! + 1e-9);
    expect(plan.segments.some((s) => s.hold > 0)).toBe(true);
  });

  it('without beat mapping, cuts on fixed lengths and still lasts as long as the music', () => {
    const plan = planEdit(base({ beatMapping: false }));
    expect(plan.beatAligned).toBe(false);
    expect(plan.totalSec).toBe(30);
    expect(plan.segments[1]!.start).toBeCloseTo(2.5, 5);
  });

  it('without music, lasts as long as the material; without Intelligence, takes evenly spaced moments in order', () => {
    const plan = planEdit(base({ music: undefined, intelligence: false }));
    expect(plan.totalSec).toBe(30);
    for (const c of [0, 1, 2]) {
      const ins = plan.segments.filter((s) => s.clip === c).map((s) => s.in);
      expect([...ins].sort((a, b) => a - b)).toEqual(ins);
    }
  });

  it('with Intelligence, avoids black stretches and never spans a scene change', () => {
    const plan = planEdit(
      base({
        clips: [{ durationSec: 10, analysis: clip(10, { bad: [3, 7], scenes: [2] }) }],
        music: { durationSec: 6, analysis: music(6) },
      }),
    );
    for (const s of plan.segments) {
      expect(s.out <= 3 + 1e-9 || s.in >= 7 - 1e-9).toBe(true);
      expect(s.in < 2 - 0.05 && s.out > 2 + 0.05).toBe(false);
    }
  });
});

describe('Intelligence: which moments a segment shows', () => {
  /** A clip analysis from per-second kinds: g good, b blurred, k black, f frozen. */
  function kinds(pattern: string, opts: { sharp?: (t: number) => number } = {}): ClipAnalysis {
    const times: number[] = [];
    for (let t = 0; t < pattern.length; t += 0.125) times.push(t);
    const kind = (t: number) => pattern[Math.floor(t)]!;
    const sharpness = times.map((t) => (kind(t) === 'b' ? 0.3 : kind(t) === 'k' ? 0 : (opts.sharp?.(t) ?? 0.9)));
    const motion = times.map((t) => (kind(t) === 'f' ? 0 : 0.6));
    const score = times.map((t, i) =>
      kind(t) === 'k' ? 0 : (0.25 + 0.75 * sharpness[i]!) * (0.7 + 0.3 * motion[i]!) * (kind(t) === 'f' ? 0.3 : 1),
    );
    return {
      version: 2,
      durationSec: pattern.length,
      sampleIntervalSec: 0.125,
      times,
      score,
      black: times.map((t) => kind(t) === 'k'),
      frozen: times.map((t) => kind(t) === 'f'),
      blurred: times.map((t) => kind(t) === 'b'),
      scenes: [],
      sharpness,
      motion,
      exposure: times.map(() => 1),
    };
  }
  const one = (a: ClipAnalysis, seconds: number, pacing: PlanInput['pacing'] = 'high-energy') =>
    planEdit(
      base({ clips: [{ durationSec: a.durationSec, analysis: a }], music: { durationSec: seconds, analysis: music(seconds) }, pacing }),
    );
  const overlap = (x: { in: number; out: number }, y: { in: number; out: number }) => Math.min(x.out, y.out) - Math.max(x.in, y.in) > 1e-6;

  it('never shows a moment twice while unused good material remains', () => {
    // 12 s of good material, a 10 s reel of 1 s segments: ten different moments.
    const plan = one(kinds('gggggggggggg'), 10);
    expect(plan.segments.length).toBe(10);
    plan.segments.forEach((s, i) =>
      plan.segments.slice(i + 1).forEach((t) => expect([s.in, t.in, overlap(s, t)]).toEqual([s.in, t.in, false])),
    );
  });

  it('with less material than reel, spreads repeats as far apart as possible and never back to back', () => {
    // 3 s of good material, a 12 s reel of 1 s segments: each moment 4 times, 3 segments apart.
    const plan = one(kinds('ggg'), 12);
    const segs = plan.segments;
    expect(segs.length).toBe(12);
    for (let i = 1; i < segs.length; i++) expect(overlap(segs[i]!, segs[i - 1]!)).toBe(false);
    for (let i = 0; i < segs.length; i++)
      for (let j = i + 1; j < segs.length; j++) if (overlap(segs[i]!, segs[j]!)) expect(j - i).toBeGreaterThanOrEqual(3);
    expect(segs.filter((s) => s.why!.repeatGapSec !== undefined).every((s) => s.why!.repeatGapSec! >= 2 - 1e-6)).toBe(true);
  });

  it('when every window of a short clip touches its latest showing, repeats the least of it', () => {
    // Two 3 s clips in a reel of 1.8 s segments: every window of a clip overlaps its last showing,
    // so the next one shows the other end of it.
    const short = kinds('ggg');
    const plan = planEdit(
      base({
        clips: [
          { durationSec: 3, analysis: short },
          { durationSec: 3, analysis: kinds('ggg') },
        ],
        music: { durationSec: 22, analysis: music(22, 133.3) },
        pacing: 'standard',
      }),
    );
    const mine = plan.segments.filter((s) => s.clip === 0);
    expect(mine.length).toBeGreaterThanOrEqual(4);
    for (let i = 1; i < mine.length; i++) {
      const a = mine[i - 1]!;
      const b = mine[i]!;
      const shared = Math.max(0, Math.min(a.out, b.out) - Math.max(a.in, b.in));
      // Never the same window again; at most what two windows of 1.8 s in 3 s must share.
      expect([i, shared <= 2 * 1.8 - 3 + 1e-6]).toEqual([i, true]);
    }
  });

  it('shares the reel by usable material: nothing shown again while fresh clean material remains', () => {
    // A clip with 6 good seconds (the rest black, frozen, blurred) and one with 12; a 15 s reel at
    // standard pacing. Turn by turn the first clip would show 3-4 segments (7.5-8 s) of its 6 s.
    const six = { durationSec: 20, analysis: kinds('gggggg' + 'kkkkk' + 'ffff' + 'bbbbb') };
    const twelve = { durationSec: 20, analysis: kinds('kk' + 'g'.repeat(12) + 'ffffff') };
    for (const beatMapping of [true, false]) {
      const plan = planEdit(base({ clips: [six, twelve], music: { durationSec: 15, analysis: music(15, 120, 0.25) }, beatMapping }));
      expect(plan.totalSec).toBe(15);
      const label = (s: (typeof plan.segments)[number]) =>
        `${beatMapping ? 'beats' : 'fixed'} #${plan.segments.indexOf(s)} clip ${s.clip} ${s.in}-${s.out}`;
      // Every segment fresh clean material, in the good stretches.
      for (const s of plan.segments) {
        expect([label(s), s.why?.reason]).toEqual([label(s), 'fresh clean material']);
        const [lo, hi] = s.clip === 0 ? [0, 6] : [2, 14];
        expect([label(s), s.in >= lo - 1e-6 && s.out <= hi + 1e-6]).toEqual([label(s), true]);
      }
      // No two windows of a clip overlap.
      for (const c of [0, 1]) {
        const mine = plan.segments.filter((s) => s.clip === c).sort((a, b) => a.in - b.in);
        for (let i = 1; i < mine.length; i++) expect(mine[i]!.in).toBeGreaterThanOrEqual(mine[i - 1]!.out - 1e-6);
      }
      // Both clips used, the second for more of the reel.
      const secs = (c: number) => plan.segments.filter((s) => s.clip === c).reduce((t, s) => t + s.end - s.start, 0);
      expect(secs(0)).toBeGreaterThan(0);
      expect(secs(0)).toBeLessThanOrEqual(6 + 1e-6);
      expect(secs(1)).toBeGreaterThan(secs(0));
    }
  });

  it('shows nothing again while unused clean material that fits the segment remains (6 and 12 good seconds, 15 s at 128 BPM)', () => {
    // The case: the short clip's 21.25-22.75 and then 22.15-24.00 (0.6 s twice) while
    // 8.27-10.13 of the long clip, long enough for that segment, was never used. Its causes: a clip
    // was judged by the pacing's exact length (1.875 s) where the cut on a beat and a frame gave
    // 1.85 s, and the best windows left slivers of clean material too short for any segment.
    // Quality varies along the clips (as in real footage), so windows do not sit end to end by chance.
    let plans = 0;
    for (const offset of [0, 0.1, 0.2, 0.3, 0.4])
      for (const phase of [0, 1.5, 3, 4.5]) {
        const six = {
          durationSec: 20,
          analysis: kinds('gggggg' + 'kkkkk' + 'ffff' + 'bbbbb', { sharp: (t) => 0.7 + 0.2 * Math.sin(t + phase) }),
        };
        const twelve = {
          durationSec: 20,
          analysis: kinds('kk' + 'g'.repeat(12) + 'ffffff', { sharp: (t) => 0.7 + 0.2 * Math.sin(1.7 * t) }),
        };
        const clips = [six, twelve];
        const plan = planEdit(base({ clips, music: { durationSec: 15, analysis: music(15, 128, offset) } }));
        const used: Used[][] = [[], []];
        for (const s of plan.segments) {
          const label = `offset ${offset} phase ${phase} #${plan.segments.indexOf(s)} clip ${s.clip} ${s.in}-${s.out}`;
          // What each clip still had, fresh and clean, for a segment of this length.
          const fits = clips.map((c, i) => bestTier(c.analysis, c.durationSec, s.out - s.in, used[i]!, s.start) === 0);
          if (fits.some(Boolean)) expect([label, s.why?.reason]).toEqual([label, 'fresh clean material']);
          used[s.clip]!.push({ in: s.in, out: s.out, reelStart: s.start, reelEnd: s.end });
        }
        // 18 good seconds hold a 15 s reel: nothing is shown twice.
        expect([offset, phase, plan.segments.every((s) => s.why?.tier === 0)]).toEqual([offset, phase, true]);
        plans++;
      }
    expect(plans).toBe(20);
  });

  it('shows every clip the user gave once, even one with no clean material, and that one only once', () => {
    const good = { durationSec: 20, analysis: kinds('g'.repeat(20)) };
    const frozen = { durationSec: 20, analysis: kinds('f'.repeat(20)) };
    const plan = planEdit(base({ clips: [good, frozen, good], music: { durationSec: 15, analysis: music(15, 120, 0.25) } }));
    expect(plan.segments.filter((s) => s.clip === 1)).toHaveLength(1);
    expect(new Set(plan.segments.map((s) => s.clip))).toEqual(new Set([0, 1, 2]));
  });

  it('shows blurred, black and frozen moments only when nothing better is left in the clip', () => {
    // Quarters: black, frozen, blurred, good (2 s each); a 4 s reel of 1 s segments.
    const a = kinds('kkffbbgg');
    const plan = one(a, 4);
    for (const s of plan.segments) expect([s.in, s.in >= 6 - 1e-6]).toEqual([s.in, true]);
    // The good quarter is shown again (spread) rather than the blurred one.
    expect(plan.segments.map((s) => s.why!.tier)).toEqual([0, 0, 1, 1]);
    // A clip with blurred and frozen material only: blurred first, frozen after, black last.
    const worse = one(kinds('kkffbb'), 4);
    expect(worse.segments.slice(0, 2).every((s) => s.in >= 4 - 1e-6)).toBe(true);
  });

  it('shows the good quarter again rather than a blurred one when the first segment is a frame short', () => {
    // The beats 20 ms early (as a model may place a kick): a first segment of 29 frames, then 1 s
    // ones. No 1 s window of the good quarter is clear of the one just before by that frame.
    const a = kinds('kkffbbgg');
    const early = music(4, 120, 0.48);
    const plan = planEdit(
      base({
        clips: [{ durationSec: 8, analysis: a }],
        music: { durationSec: 4, analysis: { ...early, beats: [0, ...early.beats] } },
        pacing: 'high-energy',
      }),
    );
    expect(plan.segments[0]!.end).toBeCloseTo(29 * FRAME, 6);
    for (const s of plan.segments) expect([s.in, s.in >= 6 - 1e-6, s.why!.tier <= 1]).toEqual([s.in, true, true]);
    for (let i = 1; i < plan.segments.length; i++) expect(plan.segments[i]!.in).not.toBeCloseTo(plan.segments[i - 1]!.in, 1);
  });

  it('ranks a sharp moment above a blurred one of similar motion, even when the blur is not flagged', () => {
    // Seconds 0-3 slightly soft (sharpness 0.55, above the blur flag), 3-4 sharp.
    const plan = one(kinds('gggg', { sharp: (t) => (t < 3 ? 0.55 : 0.95) }), 1);
    expect(plan.segments[0]!.in).toBeGreaterThanOrEqual(3 - 1e-6);
  });

  it("records each segment's score and the components behind it", () => {
    const plan = one(kinds('kkffbbgg'), 4);
    // As the plan crosses gRPC: the score and its components travel in the message.
    const S = enginePlan.EditPlanSchema;
    const json = fromBinary(S, toBinary(S, create(S, plan)));
    for (const s of json.segments) {
      expect(s.score).toBeGreaterThan(0);
      expect(s.why).toMatchObject({
        reason: expect.any(String),
        quality: s.score,
        sharpness: expect.any(Number),
        motion: expect.any(Number),
      });
    }
    expect(json.segments[0]!.why!.reason).toBe('fresh clean material');
  });
});

describe('the CLI summary of a plan', () => {
  it('names the tempo range, what the analysis saw in each clip and, per segment, its place, its source moment and why it was chosen', () => {
    const beats = [...Array.from({ length: 10 }, (_, i) => i * 0.6), ...Array.from({ length: 13 }, (_, i) => 6 + i * (60 / 132))];
    const m: MusicAnalysis = {
      version: 2,
      durationSec: 12,
      bpm: 116,
      beatPeriodSec: 0.52,
      beats,
      bars: beats.filter((_, i) => i % 4 === 0),
      confidence: 1,
    };
    const plan = planEdit(base({ clips: [{ durationSec: 20, analysis: clip(20) }], music: { durationSec: 12, analysis: m } }));
    const info = { path: '/m/holiday.mp4', durationSec: 20 } as MediaInfo;
    const analysis: ClipAnalysis = {
      ...clip(20, { bad: [5, 10], scenes: [4.5, 12] }),
      decoding: { mode: 'sparse', decodedShare: 0.2, measuredShare: 0.3 },
    };
    const text = planSummary(plan, [info], { path: '/m/song.mp3', durationSec: 12 } as MediaInfo, m, [analysis]);
    expect(text).toContain('song.mp3, 12.00 s, 116.0 BPM on average (100-132 locally)');
    // What the analysis saw in the clip: 5 of 20 s black, two shot boundaries, how it was decoded.
    expect(text).toContain('holiday.mp4   20.00 s  2 shot boundaries, black 25 %, frozen 0 %, blurred 0 %, sparse decode (20 % of frames)');
    const rows = text.split('\n').filter((l) => /^\s+\d+\s/.test(l));
    expect(rows.length).toBe(plan.segments.length);
    expect(rows[0]).toContain('holiday.mp4');
    expect(rows[0]).toContain('fresh clean material');
  });
});
