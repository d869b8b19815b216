import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MUSIC_ANALYSIS_VERSION, SAME_BEATS_SINCE, type MusicAnalysis } from '../../src/beat-tracker';
import { PLAN_VERSION, type EditPlan } from '../../src/plan';
import { prepare, renderReel } from '../../src/render';
import { makeTestMedia, TEST_PRESET } from '../media';

/**
 * Issue 20: a reel rendered from an edited plan follows it exactly. Clips of distinct flat grey
 * levels make every cut unambiguous in the pixels; the cuts are found by decoding the reel and
 * comparing each frame's brightness with the one before.
 */
describe('rendering a given (edited) plan', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'engine-plan-'));
  const FPS = 30;
  const levels = ['0x202020', '0x808080', '0xE0E0E0'];
  const clips = levels.map((c, i) => {
    const file = path.join(root, `clip-${i}.mp4`);
    return makeTestMedia(file, [`color=c=${c}:s=320x180:r=30:d=6`], ['-c:v', 'libx264', '-pix_fmt', 'yuv420p']);
  });
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

  /** Mean brightness of every frame of a video (decoded at 16x16 grey). */
  function brightness(file: string): number[] {
    const raw = execFileSync('ffmpeg', ['-v', 'error', '-i', file, '-vf', 'scale=16:16,format=gray', '-f', 'rawvideo', '-'], {
      maxBuffer: 64 << 20,
    });
    const out: number[] = [];
    for (let o = 0; o + 256 <= raw.length; o += 256) {
      let s = 0;
      for (let i = 0; i < 256; i++) s += raw[o + i]!;
      out.push(s / 256);
    }
    return out;
  }

  it('puts every cut within one frame of the plan, at odd frames a planner would not choose', async () => {
    // Cuts moved by hand to frames 37, 81 and 112 (not on any beat or pacing grid).
    const frames = [0, 37, 81, 112, 150];
    const order = [0, 1, 2, 0];
    const ins = [0.5, 1, 2, 3.5];
    const segments = order.map((clip, k) => {
      const start = frames[k]! / FPS;
      const end = frames[k + 1]! / FPS;
      return { clip, in: ins[k]!, out: ins[k]! + (end - start), start, end, hold: 0 };
    });
    const plan: EditPlan = {
      version: PLAN_VERSION,
      totalSec: 5,
      fps: FPS,
      beatAligned: false,
      musicStart: 0,
      musicFadeOutSec: 0,
      clampedToSong: false,
      aspect: '',
      segments,
    };
    const output = path.join(root, 'reel.mp4');
    const r = await renderReel({
      preset: TEST_PRESET,
      clips,
      plan,
      output,
      tmpRoot: root,
      settings: { title_config: { enabled: false }, enable_fades: false, aspect: '1:1', enable_intelligence: false },
    });
    // Rendered as given; the segments it does not frame get the request's framing (1:1: the subject's crop).
    expect(r.plan.segments.map(({ framing: _f, ...seg }) => seg)).toEqual(plan.segments);
    for (const seg of r.plan.segments) expect(seg.framing?.mode).toBe('subject');
    const b = brightness(output);
    expect(b.length).toBe(150);
    const cuts = b.flatMap((v, i) => (i > 0 && Math.abs(v - b[i - 1]!) > 30 ? [i] : []));
    expect(cuts).toHaveLength(3);
    for (const [k, c] of cuts.entries()) expect(Math.abs(c - frames[k + 1]!)).toBeLessThanOrEqual(1);
    // Each segment shows its own clip: dark, middle, light, dark.
    const mid = (k: number) => b[Math.floor((frames[k]! + frames[k + 1]!) / 2)]!;
    expect(mid(0)).toBeLessThan(mid(1));
    expect(mid(1)).toBeLessThan(mid(2));
    expect(Math.abs(mid(3) - mid(0))).toBeLessThan(5);
  }, 120_000);

  it("plans on a cached music analysis with this version's beats (8 or 9) and analyses again an older one", async () => {
    // A steady tone: analysed, it has no pulse (the plan paces by time). The cached grids below are
    // at an odd phase no tracker would give it, so the plan's cuts say which analysis it used.
    const song = makeTestMedia(path.join(root, 'tone.m4a'), ['sine=f=220:d=10'], ['-c:a', 'aac']);
    const beats = Array.from({ length: 19 }, (_, i) => Math.round((0.37 + i * 0.5) * 1e6) / 1e6);
    const cached = (version: number): MusicAnalysis => ({
      version,
      durationSec: 10,
      bpm: 120,
      beatPeriodSec: 0.5,
      beats,
      bars: beats.filter((_, i) => i % 4 === 0),
      beatsPerBar: 4,
      confidence: 1,
    });
    const planned = async (version: number, targetSec?: number) =>
      (
        await prepare({
          preset: TEST_PRESET,
          clips,
          music: song,
          settings: { pacing_preset: 'high-energy', enable_beat_mapping: true, enable_intelligence: false },
          analyses: { music: cached(version) },
          targetSec,
        })
      ).plan;
    for (const version of [SAME_BEATS_SINCE, MUSIC_ANALYSIS_VERSION]) {
      const plan = await planned(version);
      expect(plan.beatAligned).toBe(true);
      for (const s of plan.segments.slice(1))
        expect(Math.min(...beats.map((b) => Math.abs(b - s.start)))).toBeLessThanOrEqual(0.5 / FPS + 1e-9);
    }
    expect((await planned(SAME_BEATS_SINCE - 1)).beatAligned).toBe(false);
    // A reel cut from the song takes it too, sections or none (a song without sections arrives
    // without the field), as the plan preview does: its cuts are on the cached grid in the song.
    const windowed = await planned(MUSIC_ANALYSIS_VERSION, 6);
    expect(windowed.beatAligned).toBe(true);
    for (const s of windowed.segments.slice(1))
      expect(Math.min(...beats.map((b) => Math.abs(b - (windowed.musicStart + s.start))))).toBeLessThanOrEqual(0.5 / FPS + 1e-9);
  }, 120_000);

  it('refuses a plan that does not fit its clips, naming the problem, before rendering', async () => {
    const plan: EditPlan = {
      version: PLAN_VERSION,
      totalSec: 2,
      fps: FPS,
      beatAligned: false,
      musicStart: 0,
      musicFadeOutSec: 0,
      clampedToSong: false,
      aspect: '',
      segments: [{ clip: 1, in: 5, out: 7, start: 0, end: 2, hold: 0 }],
    };
    await expect(renderReel({ preset: TEST_PRESET, clips, plan, output: path.join(root, 'bad.mp4'), tmpRoot: root })).rejects.toThrow(
      'Invalid plan: plan.segments[0]: out 7 is past the end of clip 1 (6 s)',
    );
    expect(fs.existsSync(path.join(root, 'bad.mp4'))).toBe(false);
  });
});
