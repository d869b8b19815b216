import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { analyseClip } from '../../src/clip-analysis';
import { renderReel } from '../../src/render';
import { grayFrame, H264, makeTestMedia, regionMean, TEST_PRESET } from '../media';

/** Intelligence seen in a rendered reel: what it shows of a clip whose quarters are black, frozen, blurred and good. */
describe('render engine on generated media: Intelligence in the pictures', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'engine-intelligence-'));
  const tmpRoot = path.join(root, 'tmp');
  beforeAll(() => fs.mkdirSync(tmpRoot));
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

  it('Intelligence on a clip of black, frozen, blurred and good quarters: the reel shows only the good quarter, repeats it spread out and never back to back', async () => {
    const dir = path.join(root, 'quarters');
    fs.mkdirSync(dir);
    const clip = path.join(dir, 'quarters.mp4');
    // 0-2 s black, 2-4 s frozen, 4-6 s blurred (the same moving picture), 6-8 s good.
    makeTestMedia(
      clip,
      ['testsrc2=size=640x360:rate=30:duration=8'],
      [
        '-vf',
        "drawbox=enable='lt(t,2)':x=0:y=0:w=iw:h=ih:color=black:t=fill,gblur=sigma=3:enable='between(t,4,6)',setpts='if(between(T,2,4),2/TB,PTS)',fps=30",
        ...H264,
        '-t',
        '8',
      ],
    );
    const music = path.join(dir, 'music.wav');
    makeTestMedia(music, ["aevalsrc='0.7*sin(2*PI*55*t)*exp(-25*mod(t\\,0.5))':s=22050:d=6"]);
    const a = await analyseClip(clip, 8);
    const at = (t: number) => a.times.findIndex((x) => x >= t);
    expect([a.black[at(1)], a.frozen[at(3)], a.blurred[at(5)], a.blurred[at(7)]]).toEqual([true, true, true, false]);
    // A 6 s reel of 1 s segments from 2 s of good material.
    const r = await renderReel({
      preset: TEST_PRESET,
      clips: [clip],
      music,
      output: path.join(dir, 'reel.mp4'),
      settings: { pacing_preset: 'high-energy', enable_fades: false, title_config: { enabled: false } },
      tmpRoot,
    });
    expect(r.plan.segments.length).toBeGreaterThanOrEqual(5);
    // Measured on the rendered reel (320x180 grey): what the good and the blurred quarters look like.
    const W = 320,
      H = 180;
    const lap = (f: Uint8Array) => {
      let s = 0;
      for (let y = 1; y < H - 1; y++)
        for (let x = 1; x < W - 1; x++) {
          const i = y * W + x;
          s += Math.abs(4 * f[i]! - f[i - 1]! - f[i + 1]! - f[i - W]! - f[i + W]!);
        }
      return s / ((W - 2) * (H - 2));
    };
    const diff = (x: Uint8Array, y: Uint8Array) => x.reduce((s, v, i) => s + Math.abs(v - y[i]!), 0) / x.length;
    // The source's own frames, scaled as the reel scales them (640x360 -> 1920x1080 -> 320x180).
    const srcFrame = (t: number) =>
      new Uint8Array(
        execFileSync('ffmpeg', [
          '-v',
          'error',
          '-ss',
          String(t),
          '-i',
          clip,
          '-frames:v',
          '1',
          '-vf',
          'scale=1920:1080,scale=320:180,format=gray',
          '-f',
          'rawvideo',
          'pipe:1',
        ]),
      );
    const sharpRef = lap(srcFrame(7));
    const blurRef = lap(srcFrame(5));
    expect(blurRef).toBeLessThan(sharpRef * 0.6);
    const mids: Uint8Array[] = [];
    for (const s of r.plan.segments) {
      const t = (s.start + s.end) / 2;
      const f = grayFrame(r.output, t, W, H);
      const later = grayFrame(r.output, Math.min(s.end - 0.05, t + 0.2), W, H);
      mids.push(f);
      expect([t, regionMean(f, W, 0, 0, W, H) > 40]).toEqual([t, true]); // not black
      expect([t, lap(f) > (sharpRef + blurRef) / 2]).toEqual([t, true]); // sharp, not blurred
      expect([t, diff(f, later) > 2]).toEqual([t, true]); // moving, not frozen
    }
    // Never the same moment back to back: neighbouring segments show different pictures.
    for (let i = 1; i < mids.length; i++) expect([i, diff(mids[i]!, mids[i - 1]!) > 2]).toEqual([i, true]);
    // The plan says why: clean material, shown again as far apart as the material allows.
    for (const s of r.plan.segments) {
      expect(s.in).toBeGreaterThanOrEqual(6 - 0.13);
      expect(s.why?.tier).toBeLessThanOrEqual(1);
      expect(s.score).toBeGreaterThan(0);
    }
  }, 120_000);
});
