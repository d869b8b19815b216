/**
 * A long reel's crop paths make a filter graph longer than Linux lets one argument be (128 KiB:
 * `spawn E2BIG`). The executor hands such a graph to ffmpeg in a file; ffmpeg then renders it.
 */
import fs from 'node:fs';
import os from 'node:os';
import { execMedia, FILTER_ARG_MAX, spillLongFilters } from '../../src/exec';
import type { Segment } from '../../src/plan';
import { framingFilter } from '../../src/render-framing';

/** One 12-minute segment of a 640x360 clip, framed 9:16 by a path of 8 keys a second that sways. */
const longSegment = (): Segment => {
  const keys = [];
  for (let t = 0; t <= 720; t += 0.125) keys.push({ t, x: 219 + 200 * Math.sin(t / 3), y: 0 });
  return {
    clip: 0,
    in: 0,
    out: 720,
    start: 0,
    end: 720,
    hold: 0,
    framing: { mode: 'subject', width: 202, height: 360, camera: 'track', path: keys },
  } as unknown as Segment;
};
const scripts = () => fs.readdirSync(os.tmpdir()).filter((f) => f.startsWith(`reelsmith-filters-${process.pid}-`));

describe('a filter graph over the command-line limit', () => {
  it('renders: the graph goes to ffmpeg in a file, which is removed afterwards', async () => {
    const filter = `[0:v]${framingFilter(longSegment(), { width: 640, height: 360 }, { width: 1080, height: 1920 }, 'subject', 30)}[v]`;
    // Over Linux's limit for one argument (MAX_ARG_STRLEN): on the command line, spawn fails.
    expect(filter.length).toBeGreaterThan(128 * 1024);
    let frames = 0;
    await execMedia(
      'ffmpeg',
      [
        ...['-hide_banner', '-nostdin', '-f', 'lavfi', '-i', 'testsrc=size=640x360:rate=30:duration=0.5'],
        ...['-filter_complex', filter, '-map', '[v]', '-progress', 'pipe:1', '-f', 'null', '-'],
      ],
      { timeoutMs: 60_000, onProgress: (f) => (frames = Math.max(frames, Number(f['frame'] ?? 0))) },
    );
    expect(frames).toBe(15);
    expect(scripts()).toEqual([]);
  }, 60_000);

  it('keeps a short graph on the command line, and a long one is written whole', () => {
    const short = ['-i', 'x', '-filter_complex', '[0:v]null[v]', '-map', '[v]'];
    expect(spillLongFilters(short)).toEqual({ args: short, files: [] });
    const graph = `[0:v]${'null,'.repeat(FILTER_ARG_MAX / 4)}null[v]`;
    const { args, files } = spillLongFilters(['-i', 'x', '-filter_complex', graph, '-map', '[v]']);
    try {
      expect(args).toEqual(['-i', 'x', '-filter_complex_script', `file:${files[0]}`, '-map', '[v]']);
      expect(fs.readFileSync(files[0]!, 'utf8')).toBe(graph);
    } finally {
      files.forEach((f) => fs.rmSync(f, { force: true }));
    }
  });
});
