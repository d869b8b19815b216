import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { tempDir } from '@reelsmith/kit/testing';
import { execMedia } from '../../src/exec';

/** ffmpeg writing `seconds` of a test picture in real time (-re), with -progress on stdout. */
const realTime = (seconds: number) => [
  '-hide_banner',
  '-nostdin',
  '-re',
  '-f',
  'lavfi',
  '-i',
  `testsrc=size=64x36:rate=10:duration=${seconds}`,
  '-progress',
  'pipe:1',
  '-f',
  'null',
  '-',
];

describe('the ffmpeg watchdog, on real ffmpeg processes', () => {
  const dir = tempDir('watchdog');
  afterAll(() => dir.remove());

  it('lets a process run past the stall limit while it makes progress', async () => {
    await expect(
      execMedia('ffmpeg', realTime(2), { timeoutMs: 30_000, stallMs: 1200, onProgress: () => undefined }),
    ).resolves.toBeDefined();
  }, 20_000);

  it('stops a process that makes no progress, and says the stall limit fired', async () => {
    // Reading a pipe no one writes to: ffmpeg waits forever and writes no new frame.
    const fifo = path.join(dir.dir, 'silent.fifo');
    execFileSync('mkfifo', [fifo]);
    const started = Date.now();
    const err = await execMedia(
      'ffmpeg',
      ['-hide_banner', '-nostdin', '-f', 'rawvideo', '-s', '64x36', '-i', fifo, '-progress', 'pipe:1', '-f', 'null', '-'],
      {
        timeoutMs: 30_000,
        stallMs: 800,
        onProgress: () => undefined,
      },
    ).catch((e: unknown) => e);
    expect(err).toMatchObject({
      code: 'TIMEOUT',
      message: expect.stringMatching(/^ffmpeg made no progress for 1 s \(the stall limit is 1 s\)/),
    });
    expect(Date.now() - started).toBeLessThan(5000);
  }, 20_000);

  it('stops a process still making progress at the overall cap, and says the cap fired', async () => {
    const err = await execMedia('ffmpeg', realTime(10), {
      timeoutMs: 1500,
      capReason: 'overall cap 2 s, from a test',
      stallMs: 5000,
      onProgress: () => undefined,
    }).catch((e: unknown) => e);
    expect(err).toMatchObject({
      code: 'TIMEOUT',
      message: 'ffmpeg did not finish within 2 s (overall cap 2 s, from a test), though it was still making progress',
    });
  }, 20_000);
});
