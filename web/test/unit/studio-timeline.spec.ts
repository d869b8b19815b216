import type { EditPlan } from '../../src/api/types';
import {
  cutCandidates,
  moveCut,
  musicOnReel,
  segmentAt,
  snap,
  sourceTime,
  stepCut,
  tapBpm,
  timelineMinWidth,
  widths,
  withoutStaleFraming,
} from '../../src/features/studio/timeline';
import { checkNumber, clock, moveItem, nextToUpload, resolutionLabel, type TrayItem } from '../../src/features/assembly/tray';

const seg = (clip: number, inS: number, start: number, end: number, hold = 0) => ({
  clip,
  in: inS,
  out: inS + (end - start) - hold,
  start,
  end,
  hold,
  score: null,
  thumbnail_url: '',
});
const plan: EditPlan = {
  version: 2,
  total_sec: 4,
  fps: 30,
  beat_aligned: true,
  aspect: '16:9',
  segments: [seg(0, 1, 0, 1), seg(1, 0.5, 1, 2.5), seg(0, 3, 2.5, 4)],
};
const beats = [0, 0.5, 1, 1.5, 2, 2.5, 3, 3.5];

/** What the server checks of a plan's form (engine validatePlan), without the clips' lengths. */
function expectValid(p: EditPlan) {
  let t = 0;
  for (const s of p.segments) {
    expect(s.start).toBeCloseTo(t, 6);
    expect(s.in).toBeGreaterThanOrEqual(0);
    expect(s.hold).toBeGreaterThanOrEqual(0);
    expect(s.out - s.in + s.hold).toBeCloseTo(s.end - s.start, 6);
    expect(Math.abs(s.end * p.fps - Math.round(s.end * p.fps))).toBeLessThan(1e-6);
    t = s.end;
  }
  expect(t).toBeCloseTo(p.total_sec, 6);
}

describe('the studio timeline', () => {
  it('gives each segment its share of the width and finds the segment under the playhead', () => {
    expect(widths(plan)).toEqual([25, 37.5, 37.5]);
    expect([0, 0.99, 1, 3.9, 4].map((t) => segmentAt(plan, t))).toEqual([0, 0, 1, 2, 2]);
    expect(sourceTime(plan.segments[1]!, 1.5)).toBeCloseTo(1);
  });

  it('moves a cut to the next or previous beat, keeping the plan one the server accepts', () => {
    expect(stepCut(plan, 0, beats, 1)).toBe(1.5);
    expect(stepCut(plan, 0, beats, -1)).toBe(0.5);
    const later = moveCut(plan, 0, 1.5) as EditPlan;
    expectValid(later);
    expect(later.segments[0]).toMatchObject({ start: 0, end: 1.5, out: 2 }); // starts earlier in its clip, same last frame
    expect(later.segments[0]!.in).toBeCloseTo(0.5);
    expect(later.segments[1]).toMatchObject({ start: 1.5, end: 2.5, in: 1, out: 2 });
    expect(later.segments[2]).toEqual(plan.segments[2]); // nothing else moves
    const earlier = moveCut(plan, 1, 2) as EditPlan;
    expectValid(earlier);
    expect(earlier.segments[0]).toEqual(plan.segments[0]);
  });

  it('holds the last frame when a segment grows past the start of its clip, and refuses too-short segments', () => {
    const atZero: EditPlan = { ...plan, segments: [seg(0, 0, 0, 1), seg(1, 0, 1, 2.5), seg(0, 3, 2.5, 4)] };
    const grown = moveCut(atZero, 0, 1.5) as EditPlan;
    expectValid(grown);
    expect(grown.segments[0]).toMatchObject({ in: 0, hold: 0.5 });
    expect(moveCut(plan, 0, 2.49)).toBe('A segment would become too short.');
    expect(moveCut(plan, 2, 3)).toBe('There is no cut after the last segment.');
  });

  it('after a moved cut, a segment whose moment outgrew its crop path goes back to the server to be framed anew', () => {
    const framed = (s: ReturnType<typeof seg>) => ({
      ...s,
      framing: {
        mode: 'subject',
        camera: 'track',
        width: 202,
        height: 360,
        path: [
          { t: s.in, x: 10, y: 0 },
          { t: s.out, x: 90, y: 0 },
        ],
      },
    });
    const vertical: EditPlan = { ...plan, aspect: '9:16', segments: plan.segments.map(framed) };
    expect(withoutStaleFraming(vertical)).toBeNull();
    // Later: segment 0 starts earlier in its clip (its path starts later); segment 1 only gets shorter.
    const later = moveCut(vertical, 0, 1.5) as EditPlan;
    const sent = withoutStaleFraming(later)!;
    expect(sent.segments.map((s) => Boolean(s.framing))).toEqual([false, true, true]);
    expect(sent.segments[0]).toMatchObject({ in: later.segments[0]!.in, out: later.segments[0]!.out });
    // Earlier: segment 2 is untouched, segment 1 (longer at its end, so earlier in its clip) is framed anew.
    const earlier = withoutStaleFraming(moveCut(vertical, 1, 3) as EditPlan)!;
    expect(earlier.segments.map((s) => Boolean(s.framing))).toEqual([true, false, true]);
    // Without framing (16:9 from 16:9) nothing is asked.
    expect(withoutStaleFraming(moveCut(plan, 0, 1.5) as EditPlan)).toBeNull();
  });

  it('snaps a dragged cut to the nearest beat on the frame grid', () => {
    const c = cutCandidates(plan, 0, [0.2, 0.51, 1.26, 2.4, 3]);
    expect(c).toEqual([0.2, 0.5, 1.266667, 2.4].map((t) => Math.round(t * 30) / 30));
    expect(snap(c, 1.1)).toBeCloseTo(38 / 30);
    expect(snap([], 1)).toBeUndefined();
  });
});

describe('the media tray', () => {
  it('moves a clip, reads durations and resolutions as people do, and uploads three at a time', () => {
    expect(moveItem(['a', 'b', 'c'], 2, 0)).toEqual(['c', 'a', 'b']);
    expect(moveItem(['a', 'b', 'c'], 0, 9)).toEqual(['b', 'c', 'a']);
    expect(clock(75.4)).toBe('1:15');
    expect(clock(3725)).toBe('1:02:05');
    expect(resolutionLabel(1920, 1080)).toBe('1080p');
    expect(resolutionLabel(1080, 1920)).toBe('1080p portrait');
    expect(resolutionLabel(3840, 2160)).toBe('4K');
    const item = (id: string, state: TrayItem['state']): TrayItem => ({
      id,
      state,
      kind: 'video',
      name: id,
      size: 1,
      source: 'upload',
      progress: 0,
    });
    expect(
      nextToUpload([item('a', 'uploading'), item('b', 'waiting'), item('c', 'waiting'), item('d', 'waiting')]).map((i) => i.id),
    ).toEqual(['b', 'c']);
  });

  it("checks a typed number against the server's limits without snapping back", () => {
    const lim = { min: 8, max: 400 };
    expect(checkNumber('', 'Font size', lim, true)).toBe('Font size is required');
    expect(checkNumber('900', 'Font size', lim, true)).toBe('Font size must be at most 400');
    expect(checkNumber('7', 'Font size', lim, true)).toBe('Font size must be at least 8');
    expect(checkNumber('7.5', 'Font size', lim, true)).toBe('Font size must be a whole number');
    expect(checkNumber(' 64 ', 'Font size', lim, true)).toBe(64);
    expect(checkNumber('2.5', 'Fade-in', { min: 0, max: 10 })).toBe(2.5);
  });
});

describe('tapBpm', () => {
  it('is 0 before two taps, then the tempo tapped, a missed tap counted as a skipped beat', () => {
    expect(tapBpm([])).toBe(0);
    expect(tapBpm([1])).toBe(0);
    expect(tapBpm([1, 1.5])).toBeCloseTo(120, 6);
    // 100 BPM with the fourth tap missed and a little jitter.
    expect(tapBpm([0, 0.61, 1.2, 2.4, 3.01, 3.6])).toBeCloseTo(100, 0);
  });
});

describe('the music on the reel clock', () => {
  it("shows only a cut reel's window of the song, from 0", () => {
    const music = {
      duration_sec: 100,
      beats: [0, 0.5, 48, 48.5, 78, 78.5],
      downbeats: [0, 48, 50, 78],
      peaks: Array.from({ length: 100 }, (_, i) => i / 100),
    };
    const w = musicOnReel(music, { music_start: 48, total_sec: 30 });
    expect(w.duration_sec).toBe(30);
    expect(w.beats).toEqual([0, 0.5, 30]);
    expect(w.downbeats).toEqual([0, 2, 30]);
    expect(w.peaks).toHaveLength(30);
    expect(w.peaks[0]).toBeCloseTo(0.48, 6);
    expect(musicOnReel(music, { music_start: 0, total_sec: 100 }).peaks).toHaveLength(100);
  });
});

describe('timelineMinWidth', () => {
  it('keeps the shortest segment at least 44 px wide, however many segments (a phone scrolls the timeline)', () => {
    // 15 segments, the shortest 2 % of the reel: 44 / 0.02 = 2200 px.
    expect(timelineMinWidth([2, ...Array<number>(14).fill(98 / 14)])).toBe('max(100%, 2200px)');
    // Two halves: the box's own width is enough anywhere wider than 88 px.
    expect(timelineMinWidth([50, 50])).toBe('max(100%, 88px)');
    expect(timelineMinWidth([])).toBe('100%');
  });
});
