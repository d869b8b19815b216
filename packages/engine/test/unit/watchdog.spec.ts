import { progressWatch } from '../../src/exec';
import { STALL_MS, renderLimits } from '../../src/watchdog';

/** A -progress block as ffmpeg writes it twice a second. */
const block = (frame: number, outTimeUs: number, size: number, progress = 'continue') => ({
  frame: String(frame),
  out_time_us: String(outTimeUs),
  total_size: String(size),
  progress,
});

describe('the stall watchdog (what counts as progress)', () => {
  it('a block repeating the last frame, time and size is no progress; a grown one is', () => {
    let now = 0;
    const w = progressWatch(10_000, () => now);
    w.block(block(10, 400_000, 1000));
    now = 9_000;
    w.block(block(10, 400_000, 1000)); // ffmpeg stuck: the same values again
    expect(w.idleMs()).toBe(9_000);
    now = 12_000;
    expect(w.idleMs()).toBeGreaterThanOrEqual(10_000);
    w.block(block(11, 433_333, 1000));
    expect(w.idleMs()).toBe(0);
    expect(w.where()).toBe('; last at frame 11, 0.4 s of output');
  });

  it('a slow render is not a stalled one: each new frame restarts the clock, however long it all takes', () => {
    let now = 0;
    const w = progressWatch(10_000, () => now);
    for (let frame = 1; frame <= 100; frame++) {
      now += 9_000; // one frame every 9 s, 900 s in all
      w.block(block(frame, frame * 33_333, frame * 100));
      expect(w.idleMs()).toBe(0);
    }
  });

  it("the output's growth counts (the audio of a video-less pass), and so does the last block (trailer, faststart)", () => {
    let now = 0;
    const w = progressWatch(10_000, () => now);
    w.block({ frame: 'N/A', out_time_us: 'N/A', total_size: '10', progress: 'continue' });
    now = 5_000;
    w.block({ frame: 'N/A', out_time_us: 'N/A', total_size: '20', progress: 'continue' });
    expect(w.idleMs()).toBe(0);
    now = 8_000;
    w.block({ frame: 'N/A', out_time_us: 'N/A', total_size: '20', progress: 'end' });
    expect(w.idleMs()).toBe(0);
  });

  it('raw output (decoded samples) counts when no progress blocks are read', () => {
    let now = 0;
    const w = progressWatch(1000, () => now);
    now = 900;
    w.moved();
    now = 1500;
    expect(w.idleMs()).toBe(600);
  });
});

describe('the overall cap of a render', () => {
  it('grows with the reel, the input and fewer threads, and says so', () => {
    const base = renderLimits({ reelSec: 18, inputBytes: 450e6, threads: 2 });
    expect(base.stallMs).toBe(STALL_MS);
    expect(renderLimits({ reelSec: 36, inputBytes: 450e6, threads: 2 }).capMs).toBeGreaterThan(base.capMs);
    expect(renderLimits({ reelSec: 18, inputBytes: 900e6, threads: 2 }).capMs).toBeGreaterThan(base.capMs);
    expect(renderLimits({ reelSec: 18, inputBytes: 450e6, threads: 1 }).capMs).toBeGreaterThan(base.capMs);
    expect(base.capReason).toBe('from 18 s of reel, 450 MB of input and 2 threads');
  });

  it('is generous where the old 192 s limit stopped a working render (18 s reel, three high-bitrate 1080p clips, busy machine)', () => {
    // ffmpeg had used 96 s of CPU when it was stopped at 192 s; the cap now leaves it several times that.
    const { capMs } = renderLimits({ reelSec: 18, inputBytes: 3 * 150e6, threads: 2 });
    expect(capMs).toBeGreaterThanOrEqual(4 * 192_000 * 0.9);
  });
});
