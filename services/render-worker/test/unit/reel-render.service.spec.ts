import { quietLogger } from '@reelsmith/kit/testing';
import { parseJobRequest } from '@reelsmith/proto';
import type { Batch } from '@reelsmith/engine';
import { ReelRenderService, renderRoute } from '../../src/domain/reel-render.service';
import { HeavySlot, type EngineCalls } from '../../src/domain/render.ports';

const batch = (first: number): Batch => ({ first, end: first + 1, startFrame: first * 30, frames: 30 });

describe('renderRoute: the one place that decides how a plan renders', () => {
  it('renders one batch whole, more batches as chunks over the workers, and everything whole without fan-out', () => {
    expect(renderRoute([batch(0)], true)).toBe('whole');
    expect(renderRoute([batch(0), batch(1)], true)).toBe('chunks');
    expect(renderRoute([batch(0), batch(1)], false)).toBe('whole');
  });
});

describe('ReelRenderService.render', () => {
  it('prepares once and hands that preparation, the preset and the threads to the whole render (fan-out off: a long reel too)', async () => {
    const request = parseJobRequest({ media_files: ['uploads/u/a.mp4', 'uploads/u/b.mp4'] });
    if (!request.ok) throw new Error(request.problems);
    const prepared = { plan: { totalSec: 4, fps: 30 }, clips: [], settings: {} };
    const calls: string[] = [];
    // The engine as the service sees it: only the calls this path makes answer.
    const engine = {
      prepare: async () => (calls.push('prepare'), prepared),
      planBatches: () => [batch(0), batch(1), batch(2)],
      planOf: () => undefined,
      renderReel: async (req: { prepared?: unknown; output: string; thumbnail?: string; preset?: string; threads?: number }) => {
        calls.push(req.prepared === prepared ? 'renderReel(prepared)' : 'renderReel(again)', `${req.preset} x${req.threads}`);
        return { output: req.output, thumbnail: req.thumbnail!, durationSec: 4 };
      },
    } as unknown as EngineCalls;
    const service = new ReelRenderService({ engine, heavy: new HeavySlot(), log: quietLogger(), preset: 'faster', threads: 3 });
    const files = await service.render({
      job: { id: 'job-1', ownerId: 'u', request: request.value },
      attempt: 1,
      clips: ['/tmp/a.mp4', '/tmp/b.mp4'],
      request: request.value,
      analyses: { clips: [undefined, undefined] },
      dir: '/scratch/job-1',
      signal: new AbortController().signal,
      onProgress: () => undefined,
    });
    // RENDER_PRESET and RENDER_THREADS reach the encode.
    expect(calls).toEqual(['prepare', 'renderReel(prepared)', 'faster x3']);
    expect(files).toEqual({ output: '/scratch/job-1/reel.mp4', thumbnail: '/scratch/job-1/reel.jpg', durationSec: 4 });
  });
});
