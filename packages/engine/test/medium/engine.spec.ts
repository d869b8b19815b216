import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { analyseClip } from '../../src/clip-analysis';
import { EngineError } from '../../src/errors';
import { prepare, renderReel, type RenderResult } from '../../src/render';
import { thumbnailTime } from '../../src/render-args';
import { parseSettings } from '../../src/settings';
import { decodedAudioSeconds, ffprobe, grayFrame, grayImage, makeCorpus, regionMean, type Corpus, TEST_PRESET } from '../media';

const FRAME = 1 / 30;

// Batched reels and the codecs are in engine-batches.spec.ts (the same describe), so the two halves run on both cores.
describe('render engine on generated media', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'engine-test-'));
  const tmpRoot = path.join(root, 'tmp');
  let c: Corpus;
  let beatReel: RenderResult;
  const progress: Array<{ p: number; at: number; stage: string }> = [];

  beforeAll(async () => {
    fs.mkdirSync(tmpRoot);
    c = makeCorpus(path.join(root, 'media'));
    beatReel = await renderReel({
      preset: TEST_PRESET,
      clips: [c.landscape, c.rotated, c.silent, c.anamorphic],
      music: c.music,
      output: path.join(root, 'beat.mp4'),
      settings: { pacing_preset: 'standard', title_config: { text: 'Top Title', position: 'top' } },
      tmpRoot,
      onProgress: (p, stage) => progress.push({ p, at: Date.now(), stage }),
    });
  }, 180_000);
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

  it('renders H.264 + AAC 1080p30 of the planned length, with audio and video in step', () => {
    const p = ffprobe(beatReel.output);
    expect(p.video).toMatchObject({ codec: 'h264', width: 1920, height: 1080, fps: 30, pixFmt: 'yuv420p' });
    expect(p.audio).toMatchObject({ codec: 'aac', sampleRate: 48000, channels: 2 });
    expect(Math.abs(p.video.duration - beatReel.plan.totalSec)).toBeLessThanOrEqual(FRAME);
    expect(Math.abs(p.video.frames - Math.round(beatReel.plan.totalSec * 30))).toBeLessThanOrEqual(1);
    // A/V drift: the sound a player plays ends within a frame of the picture.
    expect(Math.abs(decodedAudioSeconds(beatReel.output) - p.video.frames / 30)).toBeLessThan(FRAME);
    // The reel is as long as the music.
    expect(Math.abs(beatReel.plan.totalSec - (beatReel.music?.durationSec ?? 0))).toBeLessThan(FRAME);
    // moov before mdat: playback starts before the download ends.
    const head = fs.readFileSync(beatReel.output).subarray(0, 4096).toString('latin1');
    expect(head.indexOf('moov')).toBeGreaterThan(-1);
    expect(head.indexOf('moov')).toBeLessThan(head.indexOf('mdat') === -1 ? Infinity : head.indexOf('mdat'));
  });

  it('cuts within one output frame of a beat of the 120 BPM track', () => {
    expect(beatReel.plan.beatAligned).toBe(true);
    const cuts = beatReel.plan.segments.slice(1).map((s) => s.start);
    expect(cuts.length).toBeGreaterThanOrEqual(4);
    for (const cut of cuts) {
      const nearestTrueBeat = Math.round(cut / 0.5) * 0.5;
      expect([cut, Math.abs(cut - nearestTrueBeat) <= FRAME]).toEqual([cut, true]);
    }
    // Standard pacing: a bar (4 beats, 2 s) per segment where the clips allow.
    expect(cuts.filter((x) => Math.abs(x / 2 - Math.round(x / 2)) < FRAME).length).toBeGreaterThanOrEqual(cuts.length / 2);
  });

  it('uses every clip, and starts and ends dark with fades', () => {
    expect(new Set(beatReel.plan.segments.map((s) => s.clip))).toEqual(new Set([0, 1, 2, 3]));
    const first = grayFrame(beatReel.output, 0, 192, 108);
    const last = grayFrame(beatReel.output, beatReel.durationSec - 0.04, 192, 108);
    expect(regionMean(first, 192, 0, 0, 192, 108)).toBeLessThan(20);
    expect(regionMean(last, 192, 0, 0, 192, 108)).toBeLessThan(20);
    const middle = grayFrame(beatReel.output, beatReel.durationSec / 2, 192, 108);
    expect(regionMean(middle, 192, 0, 0, 192, 108)).toBeGreaterThan(40);
  });

  it('draws the title at the top during the first seconds only', () => {
    // After the 2 s fade-in, before the title leaves at 4 s.
    const withTitle = grayFrame(beatReel.output, 3, 192, 108);
    const bright = (f: Uint8Array, y0: number, y1: number) => {
      let n = 0;
      for (let y = y0; y < y1; y++) for (let x = 40; x < 152; x++) if (f[y * 192 + x]! > 235) n++;
      return n;
    };
    const later = grayFrame(beatReel.output, 7, 192, 108);
    expect(bright(withTitle, 4, 22)).toBeGreaterThan(bright(later, 4, 22) + 20);
    // Not in the centre or at the bottom.
    expect(bright(withTitle, 86, 104)).toBeLessThan(bright(withTitle, 4, 22));
  });

  it('shows the rotated clip upright, undistorted, letterboxed with bars at the sides', () => {
    const seg = beatReel.plan.segments.find((s) => s.clip === 1)!;
    const t = (seg.start + seg.end) / 2;
    const f = grayFrame(beatReel.output, t, 192, 108);
    // Displayed 480x640 fits 1080 high as 810 wide: bars of (1920 - 810) / 2 = 555 px = 55 of 192 columns.
    expect(regionMean(f, 192, 0, 10, 50, 100)).toBeLessThan(12);
    expect(regionMean(f, 192, 142, 10, 192, 100)).toBeLessThan(12);
    // Upright: white half on top, black half below (inside the picture area).
    expect(regionMean(f, 192, 70, 12, 122, 40)).toBeGreaterThan(200);
    expect(regionMean(f, 192, 70, 70, 122, 100)).toBeLessThan(40);
    // Undistorted: the picture is 810/1920 of the width.
    const row = 25;
    let cols = 0;
    for (let x = 0; x < 192; x++) if (f[row * 192 + x]! > 128) cols++;
    expect(Math.abs(cols - (810 / 1920) * 192)).toBeLessThanOrEqual(3);
  });

  it('reports progress from 0 to 100, monotone, at least once a second while rendering', () => {
    const values = progress.map((x) => x.p);
    expect(values[0]).toBe(0);
    expect(values.at(-1)).toBe(100);
    for (let i = 1; i < values.length; i++) expect(values[i]!).toBeGreaterThanOrEqual(values[i - 1]!);
    const rendering = progress.filter((x) => x.stage === 'rendering' || x.stage === 'finalizing');
    for (let i = 1; i < rendering.length; i++) expect(rendering[i]!.at - rendering[i - 1]!.at).toBeLessThan(1500);
    expect(fs.readdirSync(tmpRoot)).toEqual([]); // temporary files removed
    expect(fs.existsSync(beatReel.thumbnail)).toBe(true);
    expect(fs.readFileSync(beatReel.thumbnail).subarray(0, 3)).toEqual(Buffer.from([0xff, 0xd8, 0xff]));
  });

  it('writes a 640x360 JPEG thumbnail of the finished picture after the fade-in', () => {
    const dims = execFileSync('ffprobe', ['-v', 'error', '-show_entries', 'stream=width,height', '-of', 'csv=p=0', beatReel.thumbnail])
      .toString()
      .trim();
    expect(dims).toBe('640,360');
    const at = thumbnailTime(parseSettings({}), beatReel.plan.totalSec);
    const thumb = grayImage(beatReel.thumbnail, 64, 36);
    const diff = (f: Uint8Array) => f.reduce((s, v, i) => s + Math.abs(v - thumb[i]!), 0) / f.length;
    // The same picture as the reel at that moment (JPEG and H.264 losses aside), not a faded one.
    expect(diff(grayFrame(beatReel.output, at, 64, 36))).toBeLessThan(12);
    expect(regionMean(thumb, 64, 0, 0, 64, 36)).toBeGreaterThan(40);
  });

  it('gives the same plan for the same inputs and settings', async () => {
    const req = { clips: [c.landscape, c.rotated, c.blackFrozen], music: c.music, settings: { pacing_preset: 'high-energy' as const } };
    const a = await prepare(req);
    const b = await prepare(req);
    expect(JSON.stringify(b.plan)).toBe(JSON.stringify(a.plan));
  }, 60_000);

  it('fills a 9:16 frame without bars, keeps clip sound without music, and lasts as long as the material', async () => {
    const r = await renderReel({
      preset: TEST_PRESET,
      clips: [c.landscape, c.silent, c.portrait],
      output: path.join(root, 'fill.mp4'),
      settings: {
        aspect: '9:16',
        enable_letterbox: false,
        enable_intelligence: false,
        enable_fades: false,
        title_config: { enabled: false },
      },
      tmpRoot,
    });
    const p = ffprobe(r.output);
    expect(p.video).toMatchObject({ width: 1080, height: 1920, fps: 30 });
    expect(Math.abs(p.video.duration - (6 + 4 + 5))).toBeLessThanOrEqual(FRAME);
    expect(Math.abs(decodedAudioSeconds(r.output) - p.video.frames / 30)).toBeLessThan(FRAME);
    const seg = r.plan.segments.find((s) => s.clip === 1)!; // SMPTE bars, landscape, filled: no black sides
    const f = grayFrame(r.output, (seg.start + seg.end) / 2, 108, 192);
    expect(regionMean(f, 108, 0, 0, 8, 192)).toBeGreaterThan(30);
    expect(regionMean(f, 108, 100, 0, 108, 192)).toBeGreaterThan(15);
    // No fades: the first frame is not dark.
    expect(regionMean(grayFrame(r.output, 0, 108, 192), 108, 0, 0, 108, 192)).toBeGreaterThan(40);
    // Without Intelligence, moments are evenly spaced and in order within each clip.
    const ins = r.plan.segments.filter((s) => s.clip === 0).map((s) => s.in);
    expect([...ins].sort((x, y) => x - y)).toEqual(ins);
  }, 120_000);

  it('finds black and frozen stretches, and Intelligence avoids them', async () => {
    const a = await analyseClip(c.blackFrozen, 8);
    const at = (t: number) => a.times.findIndex((x) => x >= t);
    expect(a.black[at(3)]).toBe(true);
    expect(a.black[at(1)]).toBe(false);
    expect(a.frozen[at(5)]).toBe(true);
    expect(a.frozen[at(7)]).toBe(false);
    // Without music the reel is as long as the usable material (8 s minus 4 s black or frozen),
    // and every moment comes from the good stretches (0-2 s and 6-8 s).
    const { plan } = await prepare({ clips: [c.blackFrozen], settings: { pacing_preset: 'high-energy' } });
    expect(Math.abs(plan.totalSec - 4)).toBeLessThan(0.3);
    for (const s of plan.segments) expect([s.in, s.out, s.out <= 2.13 || s.in >= 5.87]).toEqual([s.in, s.out, true]);
  }, 60_000);

  it('tracks the subjects only of a clip it will reframe: a landscape clip for a 9:16 reel, not for a 16:9 one', async () => {
    const wide = await prepare({ clips: [c.landscape], settings: { aspect: '16:9' } });
    const tall = await prepare({ clips: [c.landscape], settings: { aspect: '9:16' } });
    // Intelligence (on by default) analyses the clip for both; the saliency pass runs only for the crop.
    expect([wide.analyses.clips[0] !== undefined, wide.analyses.clips[0]?.subjects]).toEqual([true, undefined]);
    expect(tall.analyses.clips[0]?.subjects?.samples.length).toBeGreaterThan(0);
  }, 60_000);

  it('fails hostile inputs cleanly, with a typed error and no temporary files left', async () => {
    const bad = path.join(root, 'bad');
    fs.mkdirSync(bad);
    const empty = path.join(bad, 'empty.mp4');
    fs.writeFileSync(empty, '');
    const text = path.join(bad, 'notes.mp4');
    fs.writeFileSync(text, 'this is not a video at all\n'.repeat(100));
    const truncated = path.join(bad, 'truncated.mp4');
    fs.writeFileSync(truncated, fs.readFileSync(c.landscape).subarray(0, 2000));
    const playlist = path.join(bad, 'list.mp4');
    fs.writeFileSync(playlist, `ffconcat version 1.0\nfile '${c.landscape}'\nfile '/etc/passwd'\n`);
    const hls = path.join(bad, 'stream.mp4');
    fs.writeFileSync(hls, '#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:10,\nhttp://127.0.0.1:9/x.ts\n#EXT-X-ENDLIST\n');
    const cases: Array<[string[], string | undefined, string]> = [
      [[empty], undefined, 'INPUT_EMPTY'],
      [[text], undefined, 'NOT_MEDIA'],
      [[truncated], undefined, 'NOT_MEDIA'],
      [[playlist], undefined, 'NOT_MEDIA'],
      [[hls], undefined, 'NOT_MEDIA'],
      [[c.music], undefined, 'NO_VIDEO'],
      [[c.landscape], c.silent, 'NO_AUDIO'],
      [[path.join(bad, 'missing.mp4')], undefined, 'INPUT_NOT_FOUND'],
      [['http://127.0.0.1:9/remote.mp4'], undefined, 'INPUT_NOT_FOUND'],
    ];
    for (const [clips, music, code] of cases) {
      const err = await renderReel({ preset: TEST_PRESET, clips, music, output: path.join(bad, 'out.mp4'), tmpRoot }).catch(
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(EngineError);
      expect([clips[0], (err as EngineError).code]).toEqual([clips[0], code]);
      expect((err as EngineError).message.length).toBeGreaterThan(10);
    }
    expect(fs.existsSync(path.join(bad, 'out.mp4'))).toBe(false);
    expect(fs.readdirSync(bad).filter((f) => f.includes('partial'))).toEqual([]);
    expect(fs.readdirSync(tmpRoot)).toEqual([]);
  }, 60_000);

  it('refuses a render whose stop signal came before it started (a worker shutting down)', async () => {
    const out = path.join(root, 'cancelled.mp4');
    const controller = new AbortController();
    controller.abort();
    const err = await renderReel({ preset: TEST_PRESET, clips: [c.landscape], output: out, tmpRoot, signal: controller.signal }).catch(
      (e: unknown) => e,
    );
    expect((err as EngineError).code).toBe('CANCELLED');
    expect(fs.existsSync(out)).toBe(false);
    expect(fs.readdirSync(tmpRoot)).toEqual([]);
  });

  it('stops a render that runs over its time limit and cleans up', async () => {
    const out = path.join(root, 'slow.mp4');
    const err = await renderReel({
      preset: TEST_PRESET,
      clips: [c.landscape],
      output: out,
      settings: { enable_intelligence: false },
      tmpRoot,
      timeoutMs: 50,
    }).catch((e: unknown) => e);
    expect((err as EngineError).code).toBe('TIMEOUT');
    expect(fs.existsSync(out)).toBe(false);
    expect(fs.readdirSync(root).filter((f) => f.includes('partial'))).toEqual([]);
    expect(fs.readdirSync(tmpRoot)).toEqual([]);
  });
});
