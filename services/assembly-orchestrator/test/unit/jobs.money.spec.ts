import { JobSweeper } from '../../src/domain/job-sweeper';
import { JobsService } from '../../src/domain/jobs.service';
import { MemoryJobs, Published, peers, clip, log } from './jobs.fakes';

describe('money is never left held', () => {
  const sweepOpts = { ackWaitMs: 30_000, maxDeliver: 3, graceMs: 15_000, holdAgeMs: 60_000 };
  const at = (ms: number) => new Date(Date.UTC(2026, 10, 23, 12, 0, 0) + ms);

  it('gives the reservation back when the job cannot be recorded after reserving', async () => {
    const repo = new MemoryJobs();
    const { p, calls } = peers([clip('a')]);
    const svc = new JobsService(repo, p, new Published(), log);
    repo.insertError = new Error('insert failed: invalid byte sequence');
    await expect(svc.create('u1', false, { media_files: ['a'] }, '')).rejects.toThrow('insert failed');
    const reserved = calls.find((c) => c.startsWith('reserve '))!.slice('reserve '.length);
    expect(calls).toEqual([`reserve ${reserved}`, `release ${reserved}`]);
    expect(repo.jobs.size).toBe(0);
    expect(repo.holds.size).toBe(0);
  });

  it('settles a hold left by a crash between reserving and recording, and leaves live jobs alone', async () => {
    let now = at(0);
    const repo = new MemoryJobs();
    repo.now = () => now;
    const { p, calls } = peers([clip('a')]);
    const svc = new JobsService(repo, p, new Published(), log, () => now);
    const sweeper = new JobSweeper(repo, svc, p, sweepOpts, log, () => now);
    // The orchestrator died after billing reserved: a hold, a reservation, no job.
    await repo.hold('lost-job');
    await p.reserve('lost-job', 'u1', 30, false);
    const queued = await svc.create('u1', false, { media_files: ['a'] }, '');
    now = at(59_000);
    expect(await sweeper.sweep()).toEqual({ stalled: 0, settled: 0 }); // too young: a reserve may be in flight
    now = at(61_000);
    expect(await sweeper.sweep()).toEqual({ stalled: 0, settled: 1 });
    expect(calls.filter((c) => c.startsWith('release'))).toEqual(['release lost-job']);
    expect([...repo.holds.keys()]).toEqual([queued]); // the queued job still holds its credits
    expect(await sweeper.sweep()).toEqual({ stalled: 0, settled: 0 });
  });

  it('forgets the hold once the job is charged or refunded', async () => {
    const repo = new MemoryJobs();
    const svc = new JobsService(repo, peers([clip('a')]).p, new Published(), log);
    const ok = await svc.create('u1', false, { media_files: ['a'] }, '');
    const bad = await svc.create('u1', false, { media_files: ['a'] }, '');
    await svc.report(ok, 1, { kind: 'started' });
    await svc.report(ok, 1, { kind: 'completed', outputKey: 'k', thumbnailKey: 't', durationSec: 1, sizeBytes: 1 });
    await svc.report(bad, 1, { kind: 'started' });
    expect([...repo.holds.keys()]).toEqual([bad]);
    await svc.report(bad, 1, { kind: 'failed', reason: '' });
    expect(repo.holds.size).toBe(0);
  });

  it('fails and refunds, once, a job whose worker died on its last delivery', async () => {
    let now = at(0);
    const repo = new MemoryJobs();
    repo.now = () => now;
    const published = new Published();
    const { p, calls } = peers([clip('a')]);
    const svc = new JobsService(repo, p, published, log, () => now);
    const sweeper = new JobSweeper(repo, svc, p, sweepOpts, log, () => now);
    const early = await svc.create('u1', false, { media_files: ['a'] }, '');
    const last = await svc.create('u1', false, { media_files: ['a'] }, '');
    await svc.report(early, 1, { kind: 'started' }); // two more deliveries may still come
    await svc.report(last, 3, { kind: 'started' }); // the last delivery
    await svc.report(last, 3, { kind: 'progress', stage: 'rendering', percent: 44 });
    // Both workers are killed now. 30 s ack wait + 15 s slack later, the last one cannot come back.
    now = at(44_000);
    expect(await sweeper.sweep()).toEqual({ stalled: 0, settled: 0 });
    now = at(46_000);
    expect(await sweeper.sweep()).toEqual({ stalled: 1, settled: 0 });
    expect(repo.jobs.get(last)).toMatchObject({ status: 'failed', message: 'Something went wrong. Please try again or contact support.' });
    expect(published.seen.at(-1)).toEqual({
      status: 'failed',
      progress: 44,
      message: 'Something went wrong. Please try again or contact support.',
    });
    expect(published.stopped).toEqual([last]); // its chunks stop, its scratch goes
    expect(repo.jobs.get(early)!.status).toBe('processing'); // redelivery may still take it
    now = at(200_000);
    expect(await sweeper.sweep()).toEqual({ stalled: 1, settled: 0 });
    expect(await sweeper.sweep()).toEqual({ stalled: 0, settled: 0 });
    expect(calls.filter((c) => c.startsWith('release')).sort()).toEqual([`release ${early}`, `release ${last}`].sort());
    expect(repo.facts.filter((f) => f.kind !== 'started').map((f) => f.kind)).toEqual(['failed', 'failed']);
  });
});
