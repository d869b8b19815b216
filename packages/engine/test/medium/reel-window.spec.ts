import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { renderReel } from '../../src/render';
import { decodedAudioSeconds, ffprobe, makeTestMedia, TEST_PRESET } from '../media';
import { synthSong, writeSong } from '../song';

/**
 * A reel cut from a window of the song, rendered: it lasts what the plan says, its sound is the
 * window's (the chorus, not the quiet verse before it) and it fades out at the end. The single pass
 * and the batch path (chunks joined with one audio track) alike.
 */
describe('rendering a reel cut from the song', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'engine-window-'));
  const song = synthSong({
    bpm: 120,
    beatsPerBar: 4,
    form: [
      ['verse', 8],
      ['chorus', 8],
      ['outro', 4],
    ],
  });
  const music = writeSong(song, path.join(root, 'song.mp3'));
  const clips = ['0x404040', '0xC0C0C0'].map((c, i) => {
    const file = path.join(root, `clip-${i}.mp4`);
    return makeTestMedia(file, [`color=c=${c}:s=320x180:r=30:d=12`], ['-c:v', 'libx264', '-pix_fmt', 'yuv420p']);
  });
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

  /** RMS level in dB of the reel's sound over [a, b) seconds. */
  function levelDb(file: string, a: number, b: number): number {
    const raw = execFileSync('ffmpeg', ['-v', 'error', '-i', file, '-map', '0:a:0', '-ac', '1', '-ar', '48000', '-f', 'f32le', 'pipe:1'], {
      maxBuffer: 256 << 20,
    });
    const x = new Float32Array(raw.buffer, raw.byteOffset, Math.floor(raw.length / 4));
    let e = 0;
    const i0 = Math.round(a * 48000);
    const i1 = Math.min(x.length, Math.round(b * 48000));
    for (let i = i0; i < i1; i++) e += x[i]! * x[i]!;
    return 10 * Math.log10(e / Math.max(1, i1 - i0) + 1e-12);
  }
  /** The song's own level over [a, b) seconds (its samples as synthesised). */
  function songDb(a: number, b: number): number {
    let e = 0;
    const i0 = Math.round(a * song.sampleRate);
    const i1 = Math.round(b * song.sampleRate);
    for (let i = i0; i < i1; i++) e += song.samples[i]! * song.samples[i]!;
    return 10 * Math.log10(e / (i1 - i0) + 1e-12);
  }

  for (const [name, batch] of [
    ['in one pass', undefined],
    ['in batches', { maxSegments: 2 }],
  ] as const) {
    it(`${name}: lasts the plan's length, plays the chorus, and fades out over the last beat`, async () => {
      const output = path.join(root, `reel-${batch ? 'batch' : 'single'}.mp4`);
      const r = await renderReel({
        preset: TEST_PRESET,
        clips,
        music,
        output,
        tmpRoot: root,
        targetSec: 8,
        batch,
        // No title and no fades of the settings: the fade-out heard is the window's own.
        settings: { enable_fades: false, enable_intelligence: false, pacing_preset: 'high-energy', title_config: { enabled: false } },
      });
      const { plan } = r;
      expect(Math.abs(plan.totalSec - 8)).toBeLessThan(0.07); // four bars of 2 s
      expect(plan.musicStart).toBeGreaterThanOrEqual(16 - 0.07); // the chorus starts at bar 8 (16 s)
      if (batch) expect(plan.segments.length).toBeGreaterThan(2);
      const probed = ffprobe(output);
      expect(Math.abs(probed.duration - plan.totalSec)).toBeLessThanOrEqual(1 / plan.fps + 0.03);
      expect(Math.abs(probed.video.frames / plan.fps - plan.totalSec)).toBeLessThanOrEqual(1 / plan.fps);
      expect(Math.abs(decodedAudioSeconds(output) - plan.totalSec)).toBeLessThanOrEqual(1 / plan.fps);
      // Its middle sounds like the chorus (within 2 dB), not the 10 dB quieter verse.
      const middle = levelDb(output, 3, 5);
      expect(Math.abs(middle - songDb(plan.musicStart + 3, plan.musicStart + 5))).toBeLessThan(2);
      // The last quarter second is at least 6 dB quieter than the middle: it fades out.
      expect(levelDb(output, plan.totalSec - 0.25, plan.totalSec)).toBeLessThanOrEqual(middle - 6);
    }, 300_000);
  }
});
