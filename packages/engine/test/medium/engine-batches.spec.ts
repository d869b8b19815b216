/**
 * The render engine on generated media, the second half of engine.spec.ts (split so that the two
 * halves run on both cores): long reels rendered in batches, and every container and codec we read.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { prepare, renderReel } from '../../src/render';
import { renderAudioTrack } from '../../src/render-chunks';
import { parseSettings } from '../../src/settings';
import { decodedAudioSeconds, ffprobe, grayFrame, makeCorpus, regionMean, type Corpus, TEST_PRESET } from '../media';

const FRAME = 1 / 30;

/** The first sound stream decoded to mono 48 kHz float samples. */
const decodedSamples = (file: string) => {
  const out = execFileSync('ffmpeg', ['-v', 'error', '-i', file, '-map', '0:a:0', '-ac', '1', '-ar', '48000', '-f', 'f32le', 'pipe:1'], {
    maxBuffer: 256 * 1024 * 1024,
  });
  return new Float32Array(out.buffer, out.byteOffset, out.length / 4);
};

/** What ffmpeg complains about while decoding the whole file (nothing, for a sound file). */
const noDecodeErrors = (file: string) =>
  spawnSync('ffmpeg', ['-v', 'error', '-i', file, '-f', 'null', '-'], { encoding: 'utf8' }).stderr.trim();

// The same describe as engine.spec.ts: the tests keep their full names.
describe('render engine on generated media', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'engine-batches-test-'));
  const tmpRoot = path.join(root, 'tmp');
  let c: Corpus;

  beforeAll(() => {
    fs.mkdirSync(tmpRoot);
    c = makeCorpus(path.join(root, 'media'));
  }, 60_000);
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

  it('renders a reel with more segments than a batch holds in batches: planned length, one continuous sound track, fades only at its ends, no decode errors', async () => {
    const progress: number[] = [];
    const r = await renderReel({
      preset: TEST_PRESET,
      clips: [c.landscape, c.silent, c.portrait],
      output: path.join(root, 'batched.mp4'),
      settings: { enable_intelligence: false, title_config: { text: 'Batched', position: 'top' } },
      batch: { maxSegments: 2 },
      tmpRoot,
      onProgress: (p) => progress.push(p),
    });
    // 15 s of material in 2.5 s segments, two per batch: three chunks or more.
    expect(r.plan.segments.length).toBeGreaterThanOrEqual(5);
    const p = ffprobe(r.output);
    expect(p.video).toMatchObject({ codec: 'h264', width: 1920, height: 1080, fps: 30 });
    // Exactly the planned frames, and exactly their samples of sound (1600 a frame at 30 fps).
    expect(p.video.frames).toBe(Math.round(r.plan.totalSec * 30));
    expect(Math.abs(p.video.duration - r.plan.totalSec)).toBeLessThanOrEqual(2 * FRAME);
    const streams = execFileSync('ffprobe', ['-v', 'error', '-show_entries', 'stream=codec_type', '-of', 'csv=p=0', r.output]).toString();
    expect(streams.trim().split('\n').sort()).toEqual(['audio', 'video']);
    // AAC codes whole frames of 1024 samples: what a player decodes ends within one of them.
    expect(decodedSamples(r.output).length - p.video.frames * 1600).toBeGreaterThanOrEqual(0);
    expect(decodedSamples(r.output).length - p.video.frames * 1600).toBeLessThan(1024);
    expect(noDecodeErrors(r.output)).toBe('');
    // The fades and the title are the reel's, not each chunk's: dark at both ends, bright where
    // the second chunk starts, title only during the first seconds.
    expect(regionMean(grayFrame(r.output, 0, 192, 108), 192, 0, 0, 192, 108)).toBeLessThan(20);
    expect(regionMean(grayFrame(r.output, r.durationSec - 0.04, 192, 108), 192, 0, 0, 192, 108)).toBeLessThan(20);
    const secondChunk = r.plan.segments[2]!.start;
    expect(regionMean(grayFrame(r.output, secondChunk + 0.02, 192, 108), 192, 0, 0, 192, 108)).toBeGreaterThan(40);
    expect(fs.existsSync(r.thumbnail)).toBe(true);
    for (let i = 1; i < progress.length; i++) expect(progress[i]!).toBeGreaterThanOrEqual(progress[i - 1]!);
    expect(progress.at(-1)).toBe(100);
    expect(fs.readdirSync(tmpRoot)).toEqual([]);
  }, 180_000);

  it('renders a batched reel with music: as long as the music, the music as its one track', async () => {
    const r = await renderReel({
      preset: TEST_PRESET,
      clips: [c.landscape, c.rotated],
      music: c.music,
      output: path.join(root, 'batched-music.mp4'),
      settings: { aspect: '1:1', enable_intelligence: false, title_config: { enabled: false } },
      batch: { maxSegments: 2 },
      tmpRoot,
    });
    expect(r.plan.segments.length).toBeGreaterThanOrEqual(3);
    const p = ffprobe(r.output);
    expect(p.video).toMatchObject({ width: 1080, height: 1080, fps: 30 });
    // Exactly the planned frames, and exactly their samples of sound (1600 a frame at 30 fps).
    const frames = Math.round(r.plan.totalSec * 30);
    expect(p.video.frames).toBe(frames);
    expect(decodedSamples(r.output).length - frames * 1600).toBeGreaterThanOrEqual(0);
    expect(decodedSamples(r.output).length - frames * 1600).toBeLessThan(1024);
    // The track muxed in is made once for the whole reel, sample-exact, before AAC: every sample.
    const wav = path.join(root, 'track.wav');
    const settings = parseSettings({ aspect: '1:1', enable_intelligence: false, title_config: { enabled: false } });
    await renderAudioTrack(
      { clips: r.clips, music: r.music, plan: r.plan, settings, totalFrames: frames, output: wav, dir: root },
      { timeoutMs: 60_000 },
    );
    expect(decodedSamples(wav).length).toBe(frames * 1600);
    expect(Math.abs(r.plan.totalSec - (r.music?.durationSec ?? 0))).toBeLessThan(FRAME);
    expect(noDecodeErrors(r.output)).toBe('');
    // The sound is the music itself, sample for sample in time, across every chunk join: the
    // reel's sound minus the song (both decoded) stays near silence in 40 ms around each join.
    const reel = decodedSamples(r.output);
    const song = decodedSamples(c.music);
    let starts = 0;
    for (const seg of r.plan.segments.slice(2).filter((_, i) => i % 2 === 0)) {
      const at = Math.round(seg.start * 48000);
      let diff = 0;
      let level = 0;
      for (let i = at - 960; i < at + 960; i++) {
        diff += (reel[i]! - song[i]!) ** 2;
        level += song[i]! ** 2;
      }
      expect(diff / level).toBeLessThan(0.01);
      starts++;
    }
    expect(starts).toBeGreaterThanOrEqual(1);
  }, 180_000);

  it('reads HEVC in MOV, VP9 in MKV, VP8 in WebM and MPEG-4 part 2 in AVI, with AAC, M4A or WAV music, into a square reel of constant frame rate', async () => {
    const dir = path.join(root, 'codecs');
    fs.mkdirSync(dir);
    const src = (rate: number) => ['-f', 'lavfi', '-i', `testsrc2=size=320x240:rate=${rate}:duration=3`];
    const tone = ['-f', 'lavfi', '-i', 'sine=frequency=500:sample_rate=44100:duration=3', '-shortest'];
    const ff = (args: string[]) => execFileSync('ffmpeg', ['-v', 'error', '-y', ...args], { stdio: 'pipe' });
    const clips = {
      hevc: path.join(dir, 'hevc.mov'),
      vp9: path.join(dir, 'vp9.mkv'),
      vp8: path.join(dir, 'vp8.webm'),
      mpeg4: path.join(dir, 'mpeg4.avi'),
    };
    ff([...src(30), ...tone, '-c:v', 'libx265', '-preset', 'ultrafast', '-x265-params', 'log-level=error', '-c:a', 'aac', clips.hevc]);
    ff([...src(25), '-c:v', 'libvpx-vp9', '-deadline', 'realtime', '-cpu-used', '8', '-b:v', '500k', clips.vp9]);
    // The WebM clip has a variable frame rate (frames dropped at random, timestamps kept).
    ff([
      ...src(24),
      '-vf',
      "select='gt(random(0),0.4)'",
      '-fps_mode',
      'vfr',
      '-c:v',
      'libvpx',
      '-deadline',
      'realtime',
      '-cpu-used',
      '8',
      '-b:v',
      '500k',
      clips.vp8,
    ]);
    ff([...src(30), ...tone, '-c:v', 'mpeg4', '-q:v', '4', '-c:a', 'libmp3lame', clips.mpeg4]);
    const m4a = path.join(dir, 'music.m4a');
    const wav = path.join(dir, 'music.wav');
    ff(['-f', 'lavfi', '-i', 'sine=frequency=220:sample_rate=44100:duration=8', '-c:a', 'aac', m4a]);
    ff(['-f', 'lavfi', '-i', 'sine=frequency=220:sample_rate=44100:duration=8', '-c:a', 'pcm_s16le', wav]);
    const adts = path.join(dir, 'music.aac');
    ff(['-f', 'lavfi', '-i', 'sine=frequency=220:sample_rate=44100:duration=8', '-c:a', 'aac', '-f', 'adts', adts]);

    const order = [clips.hevc, clips.vp9, clips.vp8, clips.mpeg4];
    const r = await renderReel({
      preset: TEST_PRESET,
      clips: order,
      music: m4a,
      output: path.join(dir, 'square.mp4'),
      // Letterbox (square reels follow the subject by default): the whole 4:3 picture, bars above and below.
      // A steady tone has no beat, so the reel is paced by time: high energy's 1.2 s segments show
      // all four clips in 8 s.
      settings: {
        aspect: '1:1',
        framing: 'letterbox',
        pacing_preset: 'high-energy',
        enable_fades: false,
        title_config: { enabled: false },
      },
      tmpRoot,
    });
    const p = ffprobe(r.output);
    expect(p.video).toMatchObject({ codec: 'h264', width: 1080, height: 1080, fps: 30 });
    expect(Math.abs(p.video.duration - 8)).toBeLessThanOrEqual(FRAME);
    // Constant frame rate out of a variable one: exactly 30 frames a second.
    const sourceFrames = Number(
      execFileSync('ffprobe', ['-v', 'error', '-count_frames', '-show_entries', 'stream=nb_read_frames', '-of', 'csv=p=0', clips.vp8]),
    );
    expect(sourceFrames).toBeLessThan(60); // 3 s at 24 fps would be 72 frames
    expect(Math.abs(p.video.frames - 240)).toBeLessThanOrEqual(1);
    expect(r.clips.map((i) => i.video?.codec)).toEqual(['hevc', 'vp9', 'vp8', 'mpeg4']);
    // Every clip is used and its picture arrives: the middle of each segment shows the test
    // pattern (bright) inside the 4:3 picture area, with bars above and below.
    expect(new Set(r.plan.segments.map((s) => s.clip))).toEqual(new Set([0, 1, 2, 3]));
    for (const seg of r.plan.segments) {
      const f = grayFrame(r.output, (seg.start + seg.end) / 2, 108, 108);
      expect([order[seg.clip], regionMean(f, 108, 10, 30, 98, 78) > 40]).toEqual([order[seg.clip], true]);
      expect(regionMean(f, 108, 0, 0, 108, 10)).toBeLessThan(12);
    }
    // WAV and raw AAC (no index: ffprobe only estimates its length) plan as long as they play.
    // (Without Intelligence and subject framing: what the music's length makes of the plan needs
    // no clip analysed.)
    for (const music of [wav, adts]) {
      const planned = await prepare({ clips: order, music, settings: { aspect: '1:1', framing: 'letterbox', enable_intelligence: false } });
      expect([music, Math.abs(planned.plan.totalSec - decodedAudioSeconds(music)) <= FRAME]).toEqual([music, true]);
    }
  }, 120_000);
});
