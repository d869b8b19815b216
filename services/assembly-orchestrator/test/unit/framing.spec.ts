import { planToWire } from '@reelsmith/proto';
import { JobsService, type MediaInfo } from '../../src/domain/jobs.service';
import { MemoryJobs, Published, clip, log, peers } from './jobs.fakes';

/** A landscape 1920x1080 clip, analysed (no subject track: subject framing centres its crop). */
const landscape = (k: string, seconds = 10): MediaInfo => ({
  ...clip(k, 1000, seconds),
  width: 1920,
  height: 1080,
  analysisStatus: 'done',
});
const opts = { reroll: [], locked: [], seed: 0 };

describe('framing in the plan preview (issue 43)', () => {
  it("frames every segment by the request's framing: subject by default for 9:16, letterbox or centre crop when asked", async () => {
    const svc = new JobsService(new MemoryJobs(), peers([landscape('a'), landscape('b', 8)]).p, new Published(), log);
    const subject = await svc.plan('u1', false, { media_files: ['a', 'b'], aspect: '9:16' }, opts);
    for (const s of subject.plan.segments) expect(s.framing).toMatchObject({ mode: 'subject', width: 606, height: 1080 });
    const old = await svc.plan('u1', false, { media_files: ['a', 'b'], aspect: '9:16', enable_letterbox: true }, opts);
    for (const s of old.plan.segments) expect(s.framing).toMatchObject({ mode: 'letterbox', camera: 'letterbox', width: 1920 });
    const center = await svc.plan('u1', false, { media_files: ['a', 'b'], aspect: '1:1', framing: 'center' }, opts);
    for (const s of center.plan.segments)
      expect(s.framing).toMatchObject({ mode: 'center', width: 1080, height: 1080, path: [{ x: 420, y: 0 }] });
  });

  it('never crops a clip of the output shape: a 16:9 reel of 16:9 clips keeps the whole picture', async () => {
    const svc = new JobsService(new MemoryJobs(), peers([landscape('a')]).p, new Published(), log);
    const r = await svc.plan('u1', false, { media_files: ['a'], framing: 'subject' }, opts);
    for (const s of r.plan.segments) expect([s.framing!.width, s.framing!.height]).toEqual([1920, 1080]);
  });

  it("keeps a sent plan's framings, and refuses one that leaves the clip's picture before anything is reserved", async () => {
    const { p, calls } = peers([landscape('a'), landscape('b', 8)]);
    const svc = new JobsService(new MemoryJobs(), p, new Published(), log);
    const planned = await svc.plan('u1', false, { media_files: ['a', 'b'], aspect: '9:16', framing: 'center' }, opts);
    const plan = planToWire(planned.plan, '9:16');
    const moved = structuredClone(plan);
    moved.segments[0]!.framing!.path = [{ t: moved.segments[0]!.in, x: 0, y: 0 }];
    const again = await svc.plan('u1', false, { media_files: ['a', 'b'], aspect: '9:16', framing: 'center', plan: moved }, opts);
    expect(again.plan.segments[0]!.framing!.path).toEqual([{ t: moved.segments[0]!.in, x: 0, y: 0 }]);
    const bad = structuredClone(plan);
    bad.segments[1]!.framing!.path = [{ t: bad.segments[1]!.in, x: 1500, y: 0 }];
    await expect(svc.create('u1', false, { media_files: ['a', 'b'], aspect: '9:16', plan: bad }, '')).rejects.toThrow(
      /^segment 1: the crop at .* leaves the clip's picture$/,
    );
    expect(calls).toEqual([]);
  });

  it('waits for a clip analysis that subject framing needs, even without Intelligence', async () => {
    const pending = { ...landscape('a'), analysisStatus: 'pending' as const };
    const svc = new JobsService(new MemoryJobs(), peers([pending]).p, new Published(), log);
    await expect(svc.plan('u1', false, { media_files: ['a'], aspect: '9:16', enable_intelligence: false }, opts)).rejects.toMatchObject({
      code: 'FAILED_PRECONDITION',
    });
    const r = await svc.plan('u1', false, { media_files: ['a'], aspect: '9:16', enable_intelligence: false, framing: 'letterbox' }, opts);
    expect(r.plan.segments[0]!.framing!.camera).toBe('letterbox');
  });
});
