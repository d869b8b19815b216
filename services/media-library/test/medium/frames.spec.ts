import path from 'node:path';
import { makeTestMedia, tempDir } from '@reelsmith/kit/testing';
import { engineTools } from '../../src/repositories/media-tools';

// A long plan's timeline asks for hundreds of frames: several are cut by one ffmpeg process. They
// must be exactly the frames cut one at a time (the same moment, the same JPEG).
describe('timeline frames, several per ffmpeg process', () => {
  const work = tempDir('frames');
  afterAll(() => work.remove());

  it('cuts the same JPEGs as one process per frame, in the order asked', async () => {
    const clip = path.join(work.dir, 'clip.mp4');
    makeTestMedia(clip, ['testsrc2=s=640x360:r=30:d=6'], ['-c:v', 'libx264', '-preset', 'ultrafast', '-g', '60', '-pix_fmt', 'yuv420p']);
    const at = [4.5, 0.5, 2.1, 5.9];
    const batch = await engineTools.framesOf!(clip, at);
    expect(batch).toHaveLength(at.length);
    for (const [i, t] of at.entries()) {
      const one = await engineTools.frame(clip, t);
      expect(batch[i]!.subarray(0, 2).toString('hex')).toBe('ffd8'); // a JPEG
      expect(batch[i]!.equals(one)).toBe(true);
    }
    // Different moments, different pictures.
    expect(batch[0]!.equals(batch[1]!)).toBe(false);
  }, 60_000);
});
