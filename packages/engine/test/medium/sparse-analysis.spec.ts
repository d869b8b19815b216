/**
 * Sparse clip analysis against the dense decode, on clips whose events sit inside GOPs (x264 with
 * a keyframe every 2 s and no keyframes at cuts, B frames on), on closed- and open-GOP HEVC, and
 * on real footage. The sparse path must find what the dense one finds.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { analyseClip, clipSamples, scoreStats, type ClipAnalysis, type ClipSamples } from '../../src/clip-analysis';
import { EngineError } from '../../src/errors';
import { execPipeline } from '../../src/exec';
import { planEdit } from '../../src/plan';
import { probe } from '../../src/probe';

const MEDIA = path.resolve(__dirname, '..', '..', '..', '..', '..', 'shared', 'media');
const ff = (args: string[]) => execFileSync('ffmpeg', ['-v', 'error', '-y', ...args], { stdio: 'pipe' });
/** x264 as cameras write it: a keyframe every 2 s, none at cuts, B frames. */
const X264_GOP2 = ['-c:v', 'libx264', '-preset', 'veryfast', '-g', '60', '-sc_threshold', '0', '-pix_fmt', 'yuv420p'];
/** The same with x264's cheaper superfast preset (B frames still), for the generated clips. */
const X264_GOP2_FAST = X264_GOP2.map((a) => (a === 'veryfast' ? 'superfast' : a));

type Both = { dense: ClipSamples; sparse: ClipSamples; d: ClipAnalysis; s: ClipAnalysis; duration: number };
const decoded = new Map<string, Promise<Both>>();
/** Both decodings of a clip, made once per file: several tests check the same pair from different sides. */
function both(file: string): Promise<Both> {
  if (!decoded.has(file)) decoded.set(file, decodeBoth(file));
  return decoded.get(file)!;
}

async function decodeBoth(file: string): Promise<Both> {
  const duration = (await probe(file, 'clip')).durationSec;
  const dense = await clipSamples(file, duration, undefined, undefined, { subjects: false, decode: 'dense' });
  const sparse = await clipSamples(file, duration, undefined, undefined, { subjects: false, decode: 'sparse' });
  // The analyses are scored from these samples exactly as analyseClip scores them.
  return { dense, sparse, d: scoreStats(dense.stats, 0.125, duration), s: scoreStats(sparse.stats, 0.125, duration), duration };
}

/** Samples whose flag differs between the analyses, ignoring blur verdicts within 0.05 of the threshold (the sharp reference moves a little with the samples). */
function flagDifferences(d: ClipAnalysis, s: ClipAnalysis): string[] {
  const out: string[] = [];
  for (let i = 0; i < Math.min(d.times.length, s.times.length); i++) {
    if (d.black[i] !== s.black[i]) out.push(`black at ${d.times[i]}`);
    if (d.frozen[i] !== s.frozen[i]) out.push(`frozen at ${d.times[i]}`);
    if (d.blurred[i] !== s.blurred[i] && Math.abs(d.sharpness![i]! - 0.5) > 0.05) out.push(`blurred at ${d.times[i]}`);
  }
  return out;
}

/** Every dense scene change has a sparse one within a slot, and no sparse one is extra. */
function sameScenes(d: number[], s: number[]): boolean {
  return d.length === s.length && d.every((t, i) => Math.abs(t - s[i]!) <= 0.126);
}

describe('sparse clip analysis', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'sparse-test-'));
  const p = (n: string) => path.join(root, n);

  beforeAll(() => {
    // 14 s with an event inside every GOP but the first and the third: a cut at 3.4 s and back at
    // 6 s, black 6.5-7.3 s, a freeze 8.6-9.8 s, a blur 10.4-11.6 s, a fade to black from 13 s.
    // 640x360: the sparse path is forced on it (decode: 'sparse'), so its size changes only what
    // the encodes and decodes cost; the heavy clip the default picks the sparse path for is steady.mp4.
    ff([
      '-f',
      'lavfi',
      '-i',
      'testsrc2=s=640x360:r=30:d=14',
      '-f',
      'lavfi',
      '-i',
      'testsrc=s=640x360:r=30:d=14',
      '-filter_complex',
      "[0:v]setpts='if(between(T,8.6,9.8),8.6/TB,PTS)',fps=30[a];[a][1:v]overlay=enable='between(t,3.4,6)'," +
        "drawbox=enable='between(t,6.5,7.3)':x=0:y=0:w=iw:h=ih:color=black:t=fill,gblur=sigma=4:enable='between(t,10.4,11.6)',fade=t=out:st=13:d=0.8[v]",
      '-map',
      '[v]',
      ...X264_GOP2_FAST,
      '-t',
      '14',
      p('events.mp4'),
    ]);
    // 12 s of steady 1080p (six GOPs; a heavy clip from 8 s on): nothing happens between keyframes.
    ff(['-f', 'lavfi', '-i', 'testsrc2=s=1920x1080:r=30:d=12', ...X264_GOP2_FAST, p('steady.mp4')]);
    // HEVC with closed GOPs (IDR keyframes), and x265's default open GOPs.
    const hevc = (gop: string, out: string, seconds = 14) =>
      ff([
        '-i',
        p('events.mp4'),
        '-t',
        String(seconds),
        '-c:v',
        'libx265',
        '-preset',
        'ultrafast',
        '-x265-params',
        `log-level=error:keyint=60:min-keyint=60:scenecut=0${gop}`,
        '-pix_fmt',
        'yuv420p',
        out,
      ]);
    hevc(':open-gop=0', p('events-hevc-closed.mp4'));
    // Open GOPs show from the second keyframe on: 4 s (two GOPs) are enough.
    hevc('', p('events-hevc-open.mp4'), 4);
    // The events clip as a phone stores a portrait video: the same stream, turned by a display matrix.
    ff(['-i', p('events.mp4'), '-c', 'copy', '-metadata:s:v:0', 'rotate=90', p('events-rotated.mp4')]);
    // Real footage as a camera would store it (a keyframe every 2 s, none at the cuts).
    ff(['-i', path.join(MEDIA, 'testvideo.mp4'), ...X264_GOP2, p('testvideo-g60.mp4')]);
  }, 180_000);
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

  it('finds the cuts, black, freeze, blur and fade-out inside GOPs that the dense decode finds, decoding less', async () => {
    const { d, s, sparse } = await both(p('events.mp4'));
    expect(sparse.decoding.mode).toBe('sparse');
    expect(sparse.decoding.decodedShare).toBeLessThan(1);
    // The events themselves are there (dense and sparse alike).
    const at = (a: ClipAnalysis, t: number) => a.times.findIndex((x) => x >= t);
    expect([s.black[at(s, 6.9)], s.frozen[at(s, 9.2)], s.blurred[at(s, 11)], s.black[at(s, 13.85)]]).toEqual([true, true, true, true]);
    expect(s.scenes.some((t) => Math.abs(t - 3.4) < 0.15)).toBe(true);
    expect(flagDifferences(d, s)).toEqual([]);
    expect([d.scenes, sameScenes(d.scenes, s.scenes)]).toEqual([d.scenes, true]);
    // And a plan made from it shows none of them.
    const plan = planEdit({
      clips: [{ durationSec: 14, analysis: s }],
      pacing: 'high-energy',
      beatMapping: false,
      intelligence: true,
      fps: 30,
    });
    const bad = [
      [6.5, 7.3],
      [8.6, 9.8],
      [10.4, 11.6],
      [13, 14],
    ];
    for (const seg of plan.segments)
      expect([seg.in, seg.out, bad.some(([a, b]) => seg.in < b! - 0.13 && seg.out > a! + 0.13)]).toEqual([seg.in, seg.out, false]);
  }, 120_000);

  it('measures exactly the pictures the dense decode measures, at the same times (H.264 with B frames, closed-GOP HEVC)', async () => {
    for (const file of [p('events.mp4'), p('steady.mp4'), p('events-hevc-closed.mp4')]) {
      const { dense, sparse } = await both(file);
      expect([file, sparse.decoding.mode]).toEqual([file, 'sparse']);
      expect(sparse.stats).toHaveLength(dense.stats.length);
      let compared = 0;
      sparse.stats.forEach((x, i) => {
        if (!sparse.measured[i]) return;
        const y = dense.stats[i]!;
        compared++;
        expect([file, i, x.mean, x.sharp, Array.from(x.hist)]).toEqual([file, i, y.mean, y.sharp, Array.from(y.hist)]);
        // Motion too, where the slot before was measured as well (a window's second slot).
        if (sparse.measured[i - 1]) expect([file, i, x.motion]).toEqual([file, i, y.motion]);
      });
      expect(compared).toBeGreaterThan(10);
    }
  }, 120_000);

  it('decodes a fraction of a steady clip, and the analysis is the same', async () => {
    const { d, s, sparse } = await both(p('steady.mp4'));
    expect(sparse.decoding.decodedShare).toBeLessThan(0.3);
    expect(flagDifferences(d, s)).toEqual([]);
    expect([d.scenes, s.scenes]).toEqual([[], []]);
    // The default (auto) picks the sparse path for a heavy clip from its probe.
    const info = await probe(p('steady.mp4'), 'clip');
    const auto = await analyseClip(info.path, info.durationSec, undefined, undefined, { video: info.video, subjects: false });
    expect(auto.decoding?.mode).toBe('sparse');
  }, 120_000);

  it('turns a rotated clip as the dense decode does, and finds the same events in it', async () => {
    const { dense, sparse, d, s } = await both(p('events-rotated.mp4'));
    expect(sparse.decoding.mode).toBe('sparse');
    // Scaled before it is turned (the big picture is never rotated): the fast scaler samples fine
    // patterns a little differently, within two grey levels.
    sparse.stats.forEach((x, i) => {
      if (sparse.measured[i]) expect([i, Math.abs(x.mean - dense.stats[i]!.mean) < 2]).toEqual([i, true]);
    });
    expect(flagDifferences(d, s)).toEqual([]);
    expect(sameScenes(d.scenes, s.scenes)).toBe(true);
  }, 120_000);

  it('finds the scene changes and black of real footage stored with keyframes every 2 s', async () => {
    const { d, s } = await both(p('testvideo-g60.mp4'));
    for (const cut of [6.706, 12.746]) expect([cut, s.scenes.some((t) => Math.abs(t - cut) < 0.25)]).toEqual([cut, true]);
    expect(sameScenes(d.scenes, s.scenes)).toBe(true);
    expect(flagDifferences(d, s)).toEqual([]);
  }, 120_000);

  it('decodes densely what the sparse path is not for: open GOPs, eventful footage, light clips and other codecs', async () => {
    const open = await clipSamples(p('events-hevc-open.mp4'), 4, undefined, undefined, { subjects: false, decode: 'sparse' });
    expect([open.decoding.mode, open.decoding.reason]).toEqual(['dense', 'open GOPs (leading pictures)']);
    // Real footage whose packet sizes change after most windows: the first pass alone would
    // decode most of it, so the default decodes it densely.
    const real = await probe(p('testvideo-g60.mp4'), 'clip');
    const eventful = await clipSamples(real.path, real.durationSec, undefined, undefined, { video: real.video, subjects: false });
    expect([eventful.decoding.mode, eventful.decoding.reason]).toEqual([
      'dense',
      expect.stringMatching(/^eventful: the first pass would decode \d+ %$/),
    ]);
    const small = await probe(path.join(MEDIA, 'car-detection.mp4'), 'clip');
    const light = await clipSamples(small.path, small.durationSec, undefined, undefined, { video: small.video, subjects: false });
    expect([light.decoding.mode, light.decoding.reason]).toEqual(['dense', 'light clip']);
    const mpeg4 = await probe(path.join(MEDIA, 'fades.mp4'), 'clip');
    const other = await clipSamples(mpeg4.path, mpeg4.durationSec, undefined, undefined, {
      video: { ...mpeg4.video!, width: 3840, height: 2160 },
      subjects: false,
    });
    expect([other.decoding.mode, other.decoding.reason]).toEqual(['dense', 'codec mpeg4']);
  }, 120_000);

  it('stops at a cancel, and never leaves a process behind', async () => {
    // Cancelled before it starts: nothing runs at all.
    const before = new AbortController();
    before.abort();
    const started = Date.now();
    await expect(clipSamples(p('steady.mp4'), 12, undefined, before.signal, { subjects: false, decode: 'sparse' })).rejects.toMatchObject({
      code: 'CANCELLED',
    });
    expect(Date.now() - started).toBeLessThan(200);
    const ac = new AbortController();
    const run = clipSamples(p('steady.mp4'), 12, undefined, ac.signal, { subjects: false, decode: 'sparse' });
    setTimeout(() => ac.abort(), 30);
    await expect(run).rejects.toMatchObject({ code: 'CANCELLED' });
    expect(ffmpegChildren()).toEqual([]);
  }, 30_000);
});

/** ffmpeg and ffprobe processes started by this process. */
function ffmpegChildren(): string[] {
  const children = fs.readFileSync(`/proc/${process.pid}/task/${process.pid}/children`, 'utf8').split(' ').filter(Boolean);
  return children.filter((pid) => {
    try {
      return /^(ffmpeg|ffprobe)$/m.test(fs.readFileSync(`/proc/${pid}/comm`, 'utf8'));
    } catch {
      return false;
    }
  });
}

describe('pipelines of ffmpeg processes', () => {
  const nut = ['-v', 'error', '-f', 'lavfi', '-i', 'testsrc2=s=320x240:r=25:d=2', '-c:v', 'rawvideo', '-f', 'nut', 'pipe:1'];

  it('feed one process into the next and hand over its output and stderr lines', async () => {
    let bytes = 0;
    const lines: string[] = [];
    await execPipeline(
      [
        { command: 'ffmpeg', args: nut },
        {
          command: 'ffmpeg',
          args: ['-hide_banner', '-nostats', '-f', 'nut', '-i', 'pipe:0', '-vf', 'showinfo', '-f', 'rawvideo', 'pipe:1'],
        },
      ],
      { timeoutMs: 30_000, onStdout: (c) => (bytes += c.length), onStderrLine: (l) => lines.push(l) },
    );
    expect(bytes).toBe(50 * 320 * 240 * 1.5);
    expect(lines.filter((l) => /Parsed_showinfo.* n:\s*\d+ pts:/.test(l))).toHaveLength(50);
  });

  it('fail, without taking the process down, when a handler throws or a command line is too long', async () => {
    const run = execPipeline([{ command: 'ffmpeg', args: nut }], {
      timeoutMs: 30_000,
      onStdout: () => {
        throw new Error('handler broke');
      },
    });
    await expect(run).rejects.toThrow('handler broke');
    expect(ffmpegChildren()).toEqual([]);
    // One argument longer than the kernel takes (128 KiB): spawn itself fails.
    const huge = execPipeline([{ command: 'ffmpeg', args: ['-v', 'error', '-metadata', `title=${'x'.repeat(200_000)}`, '-version'] }], {
      timeoutMs: 30_000,
    });
    await expect(huge).rejects.toThrow(/could not start/);
  });

  it('name the stage that failed, and stop the others', async () => {
    const run = execPipeline(
      [
        { command: 'ffmpeg', args: ['-v', 'error', '-i', 'file:/nonexistent/clip.mp4', '-f', 'nut', 'pipe:1'] },
        { command: 'ffmpeg', args: ['-v', 'error', '-f', 'nut', '-i', 'pipe:0', '-f', 'null', '-'] },
      ],
      { timeoutMs: 30_000 },
    );
    await expect(run).rejects.toThrow(EngineError);
    await expect(run).rejects.toThrow(/ffmpeg failed \(exit 1\): .*No such file or directory/);
    expect(ffmpegChildren()).toEqual([]);
  });
});
