import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beatAccuracy } from '../../src/beat-measures';
import { analyseClip } from '../../src/clip-analysis';
import { analyseMusic } from '../../src/music-analysis';
import { prepare } from '../../src/render';
import { makeTestMedia } from '../media';

const MEDIA = path.resolve(__dirname, '..', '..', '..', '..', '..', 'shared', 'media');

describe('analysis of real footage and music', () => {
  it('finds the scene changes of testvideo.mp4 at 6.706 s and 12.746 s, and none inside a shot', async () => {
    const a = await analyseClip(path.join(MEDIA, 'testvideo.mp4'), 24, undefined, undefined, { subjects: false });
    // The clip fades through black between shots; the README marks those changes.
    for (const cut of [6.706, 12.746]) expect([cut, a.scenes.some((s) => Math.abs(s - cut) < 0.25)]).toEqual([cut, true]);
    // Inside the three shots (leaf, deer, leaf) there is no boundary.
    for (const s of a.scenes) expect([s, (s > 1.5 && s < 5.5) || (s > 7.6 && s < 11.2) || (s > 13.8 && s < 19.5)]).toEqual([s, false]);
    // The leading and trailing black is seen as black.
    expect(a.black[a.times.findIndex((t) => t >= 0.4)]).toBe(true);
  }, 60_000);

  it('sees the fades to black of fades.mp4 as black stretches, not as cuts inside the fades', async () => {
    const a = await analyseClip(path.join(MEDIA, 'fades.mp4'), 10, undefined, undefined, { subjects: false });
    expect(a.black.some(Boolean)).toBe(true);
    // Every boundary sits at a black stretch (within half a second of a black sample).
    for (const s of a.scenes) expect([s, a.times.some((t, i) => a.black[i] && Math.abs(t - s) <= 0.5)]).toEqual([s, true]);
  }, 60_000);

  it('never plans a segment across a scene change of real footage', async () => {
    const { plan, analyses } = await prepare({
      clips: [path.join(MEDIA, 'testvideo.mp4'), path.join(MEDIA, 'car-detection.mp4')],
      settings: { pacing_preset: 'relaxed' },
    });
    for (const s of plan.segments) {
      const scenes = analyses.clips[s.clip]!.scenes;
      expect([s.clip, s.in, s.out, scenes.some((x) => x > s.in + 0.05 && x < s.out - 0.05)]).toEqual([s.clip, s.in, s.out, false]);
    }
  }, 120_000);

  it('keeps beats on the beat where raw aubio drifts (120 BPM, 3 minutes)', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'beats-'));
    try {
      const file = path.join(dir, 'click.wav');
      makeTestMedia(file, [
        "aevalsrc='0.7*sin(2*PI*55*t)*exp(-25*mod(t\\,0.5))+0.3*sin(2*PI*7000*t)*exp(-60*mod(t+0.25\\,0.5))':s=22050:d=180",
      ]);
      const m = await analyseMusic(file, 180, undefined, undefined, { aubio: true });
      const reference = Array.from({ length: 360 }, (_, i) => i * 0.5);
      expect(Math.abs(m.bpm - 120)).toBeLessThan(0.05);
      expect(beatAccuracy(m.beats, reference)).toBeGreaterThanOrEqual(0.95);
      expect(beatAccuracy(m.beats, reference)).toBeGreaterThan(beatAccuracy(m.rawBeats, reference));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
