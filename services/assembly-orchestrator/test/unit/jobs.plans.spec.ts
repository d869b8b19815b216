import { ErrorCode } from '@reelsmith/kit';
import { JobsService, type MediaInfo } from '../../src/domain/jobs.service';
import { MemoryJobs, Published, peers, clip, log } from './jobs.fakes';

describe('edit plans and cancelling (issue 20)', () => {
  const analysedClip = (k: string, seconds: number): MediaInfo => ({ ...clip(k, 1000, seconds), analysisStatus: 'done' });

  it('plans without reserving, charging or recording anything; the estimate prices the plan by billing', async () => {
    const repo = new MemoryJobs();
    const { p, calls, estimated } = peers([analysedClip('a', 10), analysedClip('b', 8)]);
    const svc = new JobsService(repo, p, new Published(), log);
    const r = await svc.plan('u1', false, { media_files: ['a', 'b'], aspect: '9:16' }, { reroll: [], locked: [], seed: 0 });
    expect(r.plan.aspect).toBe('9:16');
    expect(r.plan.total_sec).toBe(18);
    expect(r.plan.segments.length).toBeGreaterThan(2);
    expect(r.estimate).toBe(30);
    expect(estimated).toEqual([18]);
    expect(r.music).toBeNull();
    expect(calls).toEqual([]);
    expect(repo.jobs.size + repo.holds.size + repo.queued.length).toBe(0);
  });

  it('refuses an invalid plan with the first problem, before anything is reserved; a valid one is charged by its length', async () => {
    const repo = new MemoryJobs();
    const { p, calls, estimated } = peers([analysedClip('a', 10), analysedClip('b', 8)]);
    const svc = new JobsService(repo, p, new Published(), log);
    const { plan } = await svc.plan('u1', false, { media_files: ['a', 'b'] }, { reroll: [], locked: [], seed: 0 });
    const bad = JSON.parse(JSON.stringify(plan)) as typeof plan;
    bad.segments[1]!.out = 9.5;
    bad.segments[1]!.in = 7;
    await expect(svc.create('u1', false, { media_files: ['a', 'b'], plan: bad }, '')).rejects.toThrow(
      'plan.segments[1]: out 9.5 is past the end of clip 1 (8 s)',
    );
    await expect(svc.create('u1', false, { media_files: ['a', 'b'], aspect: '1:1', plan }, '')).rejects.toThrow(
      "plan.aspect 16:9 is not the request's aspect 1:1: ask for a new plan",
    );
    expect(calls).toEqual([]);
    const id = await svc.create('u1', false, { media_files: ['a', 'b'], plan }, '');
    expect(repo.jobs.get(id)!.request.plan).toEqual(plan);
    expect(estimated.at(-1)).toBe(plan.total_sec);
  });

  it('says so while a clip analysis is running, and re-roll needs a plan', async () => {
    const { p } = peers([{ ...clip('a'), analysisStatus: 'pending' }]);
    const svc = new JobsService(new MemoryJobs(), p, new Published(), log);
    await expect(svc.plan('u1', false, { media_files: ['a'] }, { reroll: [], locked: [], seed: 0 })).rejects.toMatchObject({
      code: ErrorCode.FAILED_PRECONDITION,
      message: 'Clip analysis is still running, try again in a moment.',
    });
    await expect(
      svc.plan('u1', false, { media_files: ['a'], enable_intelligence: false }, { reroll: [0], locked: [], seed: 0 }),
    ).rejects.toThrow('reroll needs a plan');
  });

  it('cancels a running job once: status cancelled, worker told, released exactly once; a finished job cannot be cancelled', async () => {
    const repo = new MemoryJobs();
    const { p, calls } = peers([clip('a')]);
    const published = new Published();
    const svc = new JobsService(repo, p, published, log);
    const id = await svc.create('u1', false, { media_files: ['a'] }, '');
    await svc.report(id, 1, { kind: 'started' });
    expect((await svc.list('u1', true, 20)).map((j) => j.id)).toEqual([id]);
    await expect(svc.cancel(id, 'someone-else')).rejects.toMatchObject({ code: ErrorCode.NOT_FOUND });
    const job = await svc.cancel(id, 'u1');
    expect(job.status).toBe('cancelled');
    expect(published.stopped).toEqual([id]);
    expect(published.seen.at(-1)).toMatchObject({ status: 'cancelled', message: 'Cancelled' });
    await expect(svc.cancel(id, 'u1')).rejects.toMatchObject({
      code: ErrorCode.FAILED_PRECONDITION,
      message: 'This job has already finished.',
    });
    // The worker finishing anyway (it missed the stop) is refused: never captured, never listed.
    const late = await svc.report(id, 1, { kind: 'completed', outputKey: 'o', thumbnailKey: 't', durationSec: 1, sizeBytes: 1 });
    expect(late.accepted).toBe(false);
    await svc.report(id, 1, { kind: 'failed', reason: '' });
    expect(calls.filter((c) => c.startsWith('release'))).toEqual([`release ${id}`]);
    expect(calls.some((c) => c.startsWith('capture') || c.startsWith('reel'))).toBe(false);
    expect(repo.holds.has(id)).toBe(false);
    expect(await svc.list('u1', true, 20)).toEqual([]);
    expect((await svc.list('u1', false, 20)).map((j) => j.status)).toEqual(['cancelled']);

    const done = await svc.create('u1', false, { media_files: ['a'] }, '');
    await svc.report(done, 1, { kind: 'started' });
    await svc.report(done, 1, { kind: 'completed', outputKey: 'o', thumbnailKey: 't', durationSec: 1, sizeBytes: 1 });
    await expect(svc.cancel(done, 'u1')).rejects.toThrow('This job has already finished.');
  });
});
