import { beatAccuracy, beatFMeasure } from '../../src/beat-measures';
import { fitBeats, onsetEnvelope, trackBeats, type MusicAnalysis } from '../../src/beat-tracker';
import { beatTracks } from '../../src/bench/beat-tracks';
import type { ClipAnalysis } from '../../src/clip-analysis';
import { planSummary } from '../../src/cli';
import { planEdit, type PlanInput } from '../../src/plan';
import type { MediaInfo } from '../../src/probe';
import { mapLimit } from '../../src/render';
import { buildRenderArgs, frameFilter } from '../../src/render-args';
import { buildChunkArgs, buildJoinArgs, concatList, planBatches } from '../../src/render-batch-args';
import { buildClipSoundArgs, buildJoinSoundArgs, buildMusicTrackArgs, musicStartSec, reelSamples } from '../../src/render-audio-args';
import { parseSettings } from '../../src/settings';
import { assLiteral, titleScript } from '../../src/title';

const FRAME = 1 / 30;

function music(durationSec: number, bpm = 120, offset = 0): MusicAnalysis {
  const p = 60 / bpm;
  const beats = [];
  for (let t = offset; t < durationSec; t += p) beats.push(Math.round(t * 1e6) / 1e6);
  return { version: 2, durationSec, bpm, beatPeriodSec: p, beats, bars: beats.filter((_, i) => i % 4 === 0), confidence: 1 };
}

function clip(durationSec: number, opts: { bad?: [number, number]; scenes?: number[] } = {}): ClipAnalysis {
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

const base = (over: Partial<PlanInput> = {}): PlanInput => ({
  clips: [10, 8, 12].map((d) => ({ durationSec: d, analysis: clip(d) })),
  music: { durationSec: 30, analysis: music(30, 120, 0.25) },
  pacing: 'standard',
  beatMapping: true,
  intelligence: true,
  fps: 30,
  ...over,
});

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

  it('ranks a sharp moment above a blurred one of similar motion, even when the blur is not flagged', () => {
    // Seconds 0-3 slightly soft (sharpness 0.55, above the blur flag), 3-4 sharp.
    const plan = one(kinds('gggg', { sharp: (t) => (t < 3 ? 0.55 : 0.95) }), 1);
    expect(plan.segments[0]!.in).toBeGreaterThanOrEqual(3 - 1e-6);
  });

  it("records each segment's score and the components behind it", () => {
    const plan = one(kinds('kkffbbgg'), 4);
    const json = JSON.parse(JSON.stringify(plan)) as typeof plan;
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

describe('beat fit', () => {
  /** Kick on the beat (louder every bar), hi-hat on the off-beat. */
  function track(seconds: number, bpm: number, sr = 22050): Float32Array {
    const out = new Float32Array(seconds * sr);
    const p = 60 / bpm;
    for (let i = 0; i < out.length; i++) {
      const t = i / sr;
      const beat = t % p;
      const bar = Math.floor(t / p) % 4 === 0 ? 1.6 : 1;
      const off = (t + p / 2) % p;
      out[i] =
        bar * 0.7 * Math.sin(2 * Math.PI * 55 * t) * Math.exp(-25 * beat) + 0.25 * Math.sin(2 * Math.PI * 7000 * t) * Math.exp(-60 * off);
    }
    return out;
  }

  it('locks phase and tempo even when the tempo guess is 1% off and the raw beats are off-beat', () => {
    const sr = 22050;
    const samples = track(60, 128, sr);
    const offBeats = Array.from({ length: 100 }, (_, i) => i * (60 / 128) + 60 / 256);
    const m = fitBeats(onsetEnvelope(samples, sr), 60, 128 * 1.01, offBeats, (t) => {
      const a = Math.floor(t * sr);
      let e = 0;
      for (let i = a; i < a + 2205 && i < samples.length; i++) e += samples[i]! ** 2;
      return e;
    });
    const reference = Array.from({ length: 128 }, (_, i) => i * (60 / 128));
    expect(Math.abs(m.bpm - 128)).toBeLessThan(0.05);
    expect(beatAccuracy(m.beats, reference, 0.05)).toBeGreaterThanOrEqual(0.98);
    expect(beatAccuracy(offBeats, reference, 0.05)).toBeLessThan(0.1);
    // Downbeats on the loud kick: every fourth beat from 0.
    for (const b of m.bars.slice(0, 5)) {
      const r = (b / (60 / 128)) % 4;
      expect(Math.min(r, 4 - r)).toBeLessThan(0.1);
    }
  });

  it('follows a tempo change, a drifting drummer, a break and loud off-beat hats: beats and every plan cut on true beats', () => {
    const wanted = ['tempo step', 'live drummer', 'syncopated', 'break'];
    for (const tr of beatTracks({ seconds: 30, only: wanted })) {
      const seconds = tr.samples.length / tr.sampleRate;
      const m = trackBeats(onsetEnvelope(tr.samples, tr.sampleRate), seconds);
      expect([tr.name, beatAccuracy(m.beats, tr.beats, 0.05) >= 0.95, beatFMeasure(m.beats, tr.beats, 0.07) >= 0.95]).toEqual([
        tr.name,
        true,
        true,
      ]);
      const plan = planEdit(
        base({
          clips: [30, 30, 30].map((d) => ({ durationSec: d })),
          intelligence: false,
          pacing: 'high-energy',
          music: { durationSec: seconds, analysis: m },
        }),
      );
      const off = plan.segments.slice(1).filter((s) => !tr.beats.some((b) => Math.abs(b - s.start) <= 0.04));
      expect([tr.name, off.map((s) => s.start)]).toEqual([tr.name, []]);
    }
  }, 90_000);

  it("finds the drummer's beat where the loudest onsets mislead: chords off the beat, a step to 1.5x the tempo, a fast song", () => {
    for (const tr of beatTracks({ seconds: 30, only: ['one-drop', 'step to 1.5x', 'fast'] })) {
      const seconds = tr.samples.length / tr.sampleRate;
      const m = trackBeats(onsetEnvelope(tr.samples, tr.sampleRate), seconds);
      // Every true beat found, and no extra ones (the off-beats or the half-time bait).
      expect([tr.name, beatAccuracy(m.beats, tr.beats, 0.05) >= 0.95, beatFMeasure(m.beats, tr.beats, 0.07) >= 0.95]).toEqual([
        tr.name,
        true,
        true,
      ]);
    }
  }, 60_000);

  it('returns no beats when there is no tempo at all', () => {
    const m = fitBeats(onsetEnvelope(new Float32Array(22050 * 5), 22050), 5, 0, []);
    expect(m.beats).toEqual([]);
  });
});

describe('titles render literally', () => {
  it('escapes ASS override blocks and escapes', () => {
    expect(assLiteral('a{\\b1}b')).toBe('a\\{\\\u2060b1\\}b');
    expect(assLiteral('50% "q": c:\\N\\h')).toBe('50% "q": c:\\\u2060N\\\u2060h');
    expect(assLiteral('two\nlines')).toBe('two lines');
  });

  it('places the title and maps Arial and Helvetica to Arimo', () => {
    const s = parseSettings({ title_config: { text: 'Hi', font: 'Helvetica-Bold.ttf', position: 'bottom', font_size: 72 } });
    const ass = titleScript(s.title_config, 1920, 1080, 30);
    expect(ass).toContain('Style: Title,Arimo,72,');
    expect(ass).toMatch(/,2,\d+,\d+,\d+,1$/m); // alignment 2 = bottom centre
    expect(ass).toContain('Dialogue: 0,0:00:00.00,0:00:04.00,Title');
  });
});

describe('ffmpeg arguments', () => {
  const info = (w: number, h: number, audio = true): MediaInfo => ({
    path: `/m/${w}x${h}.mp4`,
    sizeBytes: 1,
    durationSec: 10,
    formatName: 'mov',
    video: { codec: 'h264', width: w, height: h, codedWidth: w, codedHeight: h, rotation: 0, sar: 1, fps: 30, variableFrameRate: false },
    audio: audio ? { codec: 'aac', channels: 2, sampleRate: 48000 } : undefined,
  });

  it('letterboxes with bars, or fills by cropping', () => {
    expect(frameFilter({ width: 640, height: 480 }, { width: 1920, height: 1080 }, true)).toBe(
      'scale=1440:1080:flags=bicubic,setsar=1,pad=1920:1080:240:0:color=black',
    );
    expect(frameFilter({ width: 640, height: 480 }, { width: 1920, height: 1080 }, false)).toBe(
      'scale=1920:1440:flags=bicubic,setsar=1,crop=1920:1080',
    );
    expect(frameFilter({ width: 1080, height: 1920 }, { width: 1920, height: 1080 }, true)).toMatch(/^scale=608:1080/);
  });

  it('seeks each input to its segment, guards every input, and encodes H.264/AAC with fast start', () => {
    const plan = planEdit({
      clips: [{ durationSec: 10 }, { durationSec: 10 }],
      pacing: 'standard',
      beatMapping: false,
      intelligence: false,
      fps: 30,
    });
    const { args, frames } = buildRenderArgs({
      clips: [info(1280, 720), info(640, 480, false)],
      plan,
      settings: parseSettings({}),
      output: '/o/out.mp4',
    });
    const inputs = args.flatMap((a, i) => (a === '-i' ? [i] : []));
    expect(inputs.length).toBe(plan.segments.length);
    for (const i of inputs) {
      expect(args.slice(i - 6, i)).toEqual(expect.arrayContaining(['-protocol_whitelist', 'file,pipe', '-format_whitelist']));
      expect(args[i + 1]).toMatch(/^file:\//);
    }
    expect(args.filter((a) => a === '-ss').length).toBe(plan.segments.length);
    const joined = args.join(' ');
    for (const flag of ['-c:v libx264', '-c:a aac', '-movflags +faststart', '-fps_mode cfr', '-pix_fmt yuv420p', '-r 30'])
      expect(joined).toContain(flag);
    expect(joined).toContain('anullsrc'); // the silent clip gets silence
    expect(joined).toContain(`concat=n=${plan.segments.length}:v=1:a=1`);
    expect(frames).toBe(600);
    // The thumbnail is a second output of the same process: one frame of the finished picture.
    const withThumb = buildRenderArgs({
      clips: [info(1280, 720), info(640, 480, false)],
      plan,
      settings: parseSettings({}),
      output: '/o/out.mp4',
      thumbnail: { path: '/t/thumb.jpg', atSec: 2 },
    }).args.join(' ');
    expect(withThumb).toContain('split=2[vout][vth]');
    expect(withThumb).toContain('[vth]trim=start_frame=60:end_frame=61,scale=640:-2[thumb]');
    expect(withThumb).toMatch(/-map \[thumb\] -frames:v 1 .* file:\/t\/thumb\.jpg$/);
  });
});

describe('bounded concurrency', () => {
  it('runs at most `limit` calls at once, keeps input order, and reports the first failure in input order', async () => {
    let running = 0;
    let peak = 0;
    const delays = [30, 5, 20, 1, 10, 2];
    const out = await mapLimit(delays, 2, async (d) => {
      running++;
      peak = Math.max(peak, running);
      await new Promise((r) => setTimeout(r, d));
      running--;
      return d * 2;
    });
    expect(out).toEqual(delays.map((d) => d * 2));
    expect(peak).toBe(2);
    // Item 1 fails late, item 3 early: the error of item 1 wins, as a sequential loop would give.
    const failing = mapLimit([0, 1, 2, 3], 4, async (i) => {
      await new Promise((r) => setTimeout(r, i === 1 ? 30 : 1));
      if (i === 1 || i === 3) throw new Error(`bad ${i}`);
      return i;
    });
    await expect(failing).rejects.toThrow('bad 1');
  });
});

describe('long reels in batches', () => {
  const info = (w: number, h: number, durationSec: number, audio = true): MediaInfo => ({
    path: `/m/${w}x${h}-${durationSec}.mp4`,
    sizeBytes: 1,
    durationSec,
    formatName: 'mov',
    video: { codec: 'h264', width: w, height: h, codedWidth: w, codedHeight: h, rotation: 0, sar: 1, fps: 30, variableFrameRate: false },
    audio: audio ? { codec: 'aac', channels: 2, sampleRate: 48000 } : undefined,
  });
  // A paid user's 12-minute clip without music: 288 segments of 2.5 s.
  const longPlan = (minutes: number) =>
    planEdit({ clips: [{ durationSec: minutes * 60 }], pacing: 'standard', beatMapping: false, intelligence: false, fps: 30 });
  const inputsOf = (args: string[]) => args.filter((a) => a === '-i').length;
  const bytesOf = (args: string[]) => args.reduce((s, a) => s + Buffer.byteLength(a) + 1, 0);

  it('splits a long plan into consecutive batches of at most 16 segments that cover every frame once; a short plan stays one batch', () => {
    const plan = longPlan(12);
    const clips = [info(1920, 1080, 720)];
    expect(plan.segments.length).toBe(288);
    const batches = planBatches(plan, clips);
    expect(batches.length).toBe(18);
    let frame = 0;
    let seg = 0;
    for (const b of batches) {
      expect(b.first).toBe(seg);
      expect(b.end - b.first).toBeLessThanOrEqual(16);
      expect(b.startFrame).toBe(frame);
      frame += b.frames;
      seg = b.end;
    }
    expect(seg).toBe(288);
    expect(frame).toBe(720 * 30);
    const short = planEdit({ clips: [{ durationSec: 30 }], pacing: 'standard', beatMapping: false, intelligence: false, fps: 30 });
    expect(planBatches(short, [info(1920, 1080, 30)])).toEqual([{ first: 0, end: short.segments.length, startFrame: 0, frames: 900 }]);
    // 4K sources hold four times the pictures per decoder: a quarter as many per batch.
    expect(Math.max(...planBatches(plan, [info(3840, 2160, 720)]).map((b) => b.end - b.first))).toBe(4);
    expect(planBatches(plan, clips, { maxSegments: 5 }).every((b) => b.end - b.first <= 5)).toBe(true);
  });

  it("keeps every command line of a 60-minute reel as small as a short reel's: a bounded number of inputs, lists in files", () => {
    const settings = parseSettings({});
    const plan = longPlan(60);
    const clips = [info(1920, 1080, 3600, false)];
    const batches = planBatches(plan, clips);
    const totalFrames = batches.reduce((s, b) => s + b.frames, 0);
    expect(totalFrames).toBe(3600 * 30);
    const chunks = batches.map((batch, k) =>
      buildChunkArgs({
        clips,
        plan,
        settings,
        batch,
        totalFrames,
        video: `/t/c${k}.mp4`,
        title: { assFile: '/t/title.ass' },
      }),
    );
    for (const c of chunks) {
      expect(inputsOf(c.args)).toBeLessThanOrEqual(16);
      expect(bytesOf(c.args)).toBeLessThan(64 * 1024);
    }
    const join = buildJoinArgs({ fps: 30, totalFrames, videoList: '/t/video.txt', audio: '/t/sound.wav', output: '/o/out.mp4' });
    expect(inputsOf(join.args)).toBe(2);
    // The sound of the whole reel: sound-only processes of 64 segments, then one join of the pieces.
    const pieces = planBatches(plan, clips, { maxSegments: 64, maxPixels: Infinity });
    for (const piece of pieces) {
      const a = buildClipSoundArgs({ clips, plan, batch: piece, output: '/t/s.wav' }).args;
      expect(bytesOf(a)).toBeLessThan(64 * 1024);
    }
    expect(bytesOf(join.args)).toBeLessThan(4096);
    expect(join.durationSec).toBe(3600);
  });

  it("encodes each chunk video-only on the reel's clock: title and fade-in in the first, fade-out in the last, no sound", () => {
    const settings = parseSettings({});
    const plan = longPlan(12);
    const clips = [info(1920, 1080, 720)];
    const batches = planBatches(plan, clips);
    const totalFrames = 720 * 30;
    const chunk = (k: number) =>
      buildChunkArgs({
        clips,
        plan,
        settings,
        batch: batches[k]!,
        totalFrames,
        video: `/t/c${k}.mp4`,
        title: { assFile: '/t/title.ass' },
        thumbnail: { path: '/t/thumb.jpg', atSec: 360 },
      });
    const first = chunk(0).args.join(' ');
    const middle = chunk(5).args.join(' ');
    const last = chunk(batches.length - 1).args.join(' ');
    expect(first).toContain("settb=1/30,setpts=N+0,subtitles=filename='/t/title.ass',fade=t=in:st=0:d=2,setpts=PTS-STARTPTS");
    expect(first).not.toContain('fade=t=out');
    expect(middle).not.toMatch(/subtitles|fade=/);
    // Frames 20400..21600 of the reel: the fade-out starts at 718 s on the reel clock.
    expect(last).toContain(`setpts=N+${batches.at(-1)!.startFrame},fade=t=out:st=718:d=2`);
    for (const c of [first, middle, last]) {
      expect(c).toMatch(/-map \[vout\] -an -c:v libx264 .*-g 60 -flags \+cgop -f mp4 \/t\/c\d+\.mp4/);
      expect(c).toContain(`concat=n=16:v=1:a=0[vc]`);
      expect(c).not.toMatch(/\[a\d+\]|\[aout\]|pcm_s16le|-c:a/);
    }
    // The thumbnail (frame 10800) comes from the one chunk that holds it, by its frame in that chunk.
    const holder = batches.findIndex((b) => b.startFrame <= 10800 && 10800 < b.startFrame + b.frames);
    const withThumb = batches.map((_, k) => chunk(k).args.includes('file:/t/thumb.jpg'));
    expect(withThumb.filter(Boolean).length).toBe(1);
    expect(withThumb[holder]).toBe(true);
    const k = 10800 - batches[holder]!.startFrame;
    expect(chunk(holder).args.join(' ')).toContain(`[vth]trim=start_frame=${k}:end_frame=${k + 1},scale=640:-2[thumb]`);
  });

  it('encodes each chunk with the threads asked for (RENDER_THREADS), else as the encoder chooses', () => {
    const settings = parseSettings({});
    const plan = longPlan(2);
    const clips = [info(1920, 1080, 120)];
    const batch = planBatches(plan, clips)[0]!;
    const args = (threads?: number) =>
      buildChunkArgs({ clips, plan, settings, batch, totalFrames: 3600, video: '/t/c.mp4', threads }).args.join(' ');
    expect(args(1)).toContain('-c:v libx264 -threads 1 -preset veryfast');
    expect(args()).toContain('-c:v libx264 -preset veryfast');
  });

  it('joins by copying the picture and encoding the one sound track made beforehand; moov first', () => {
    const join = buildJoinArgs({ fps: 30, totalFrames: 21600, videoList: '/t/video.txt', audio: '/t/sound.wav', output: '/o/out.mp4' });
    const joined = join.args.join(' ');
    expect(joined).toContain(
      '-protocol_whitelist file -f concat -i file:/t/video.txt -protocol_whitelist file -f wav -i file:/t/sound.wav',
    );
    for (const flag of ['-map 0:v', '-map 1:a', '-c:v copy', '-c:a aac', '-movflags +faststart']) expect(joined).toContain(flag);
    // Nothing filters the picture or the sound here: both are final.
    expect(joined).not.toMatch(/filter|afade|-vf|-af/);
    expect(join.durationSec).toBe(720);
  });

  it("makes the reel's whole sound track once: the music window or the clips' sound, sample-exact, with the reel's fades", () => {
    const settings = parseSettings({});
    const plan = longPlan(12);
    const song = { ...info(1, 1, 800), video: undefined, path: '/m/song.mp3' };
    expect(reelSamples(21600, 30)).toBe(34_560_000);
    const music = buildMusicTrackArgs({ music: song, plan, settings, totalFrames: 21600, output: '/t/sound.wav' }).args.join(' ');
    expect(music).toMatch(/-t 721 -protocol_whitelist file,pipe -format_whitelist \S+ -i file:\/m\/song\.mp3/);
    expect(music).not.toContain('-ss');
    expect(music).toContain('apad,atrim=end_sample=34560000,afade=t=in:st=0:d=2,afade=t=out:st=718:d=2[aout]');
    expect(music).toContain('-c:a pcm_s16le -ar 48000 -ac 2 -f wav /t/sound.wav');
    // A plan with a music window starts the song there (absent: at 0).
    expect(musicStartSec(plan)).toBe(0);
    const windowed = { ...plan, musicStart: 42.5 };
    expect(musicStartSec(windowed)).toBe(42.5);
    expect(buildMusicTrackArgs({ music: song, plan: windowed, settings, totalFrames: 21600, output: '/t/s.wav' }).args.join(' ')).toContain(
      '-ss 42.5 -t 721 ',
    );
    const noFades = buildMusicTrackArgs({
      music: song,
      plan,
      settings: parseSettings({ enable_fades: false }),
      totalFrames: 21600,
      output: '/t/s.wav',
    });
    expect(noFades.args.join(' ')).toContain('atrim=end_sample=34560000[aout]');

    // Without music: pieces of clip sound, silence for a silent clip (not even opened), each
    // segment exactly its frames' samples; the join of the pieces fades and cuts the whole.
    const mixed = planEdit({
      clips: [{ durationSec: 10 }, { durationSec: 10 }],
      pacing: 'standard',
      beatMapping: false,
      intelligence: false,
      fps: 30,
    });
    const two = [info(1920, 1080, 10), info(1280, 720, 10, false)];
    const all = { first: 0, end: mixed.segments.length, startFrame: 0, frames: 600 };
    const piece = buildClipSoundArgs({ clips: two, plan: mixed, batch: all, output: '/t/p.wav' }).args;
    expect(inputsOf(piece)).toBe(mixed.segments.filter((s) => s.clip === 0).length);
    const graph = piece[piece.indexOf('-filter_complex') + 1]!;
    expect(graph).toContain('anullsrc=r=48000:cl=stereo,atrim=end_sample=120000');
    expect(graph).toContain(`concat=n=${mixed.segments.length}:v=0:a=1[aout]`);
    expect(graph).not.toMatch(/\[\d+:v\]/);
    const whole = buildJoinSoundArgs({ settings, fps: 30, totalFrames: 600, list: '/t/sound.txt', output: '/t/sound.wav' }).args.join(' ');
    expect(whole).toContain('-protocol_whitelist file -f concat -i file:/t/sound.txt');
    expect(whole).toContain('atrim=end_sample=960000,afade=t=in:st=0:d=2,afade=t=out:st=18:d=2[aout]');
  });

  it('lists chunks by plain names with their exact durations', () => {
    expect(
      concatList([
        { file: 'chunk-0000.mp4', durationSec: 60 },
        { file: 'chunk-0001.mp4', durationSec: 1 / 3 },
      ]),
    ).toBe("file 'chunk-0000.mp4'\nduration 60\nfile 'chunk-0001.mp4'\nduration 0.333333\n");
    expect(() => concatList([{ file: "x'.mp4", durationSec: 1 }])).toThrow();
  });
});
