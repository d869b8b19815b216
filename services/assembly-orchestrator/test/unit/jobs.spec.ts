import { ErrorCode } from '@reelsmith/kit';
import { canMove, isTerminal, sourcesOf } from '../../src/domain/job-states';
import { parseJobRequest, planToWire } from '@reelsmith/proto';
import { MUSIC_ANALYSIS_VERSION, SAME_BEATS_SINCE } from '@reelsmith/engine/plan';
import { JobsService, footageOptIns, type MediaInfo } from '../../src/domain/jobs.service';
import { MemoryJobs, Published, paidEnt, peers, clip, song, log } from './jobs.fakes';

describe('job state machine', () => {
  it('allows only the legal moves', () => {
    expect(canMove('queued', 'processing')).toBe(true);
    // A completion is recorded (finalizing) before it is charged; from there only completed.
    expect(canMove('processing', 'finalizing')).toBe(true);
    expect(canMove('processing', 'completed')).toBe(false);
    expect(canMove('processing', 'failed')).toBe(true);
    expect(canMove('queued', 'completed')).toBe(false);
    for (const to of ['cancelled', 'failed', 'processing'] as const) expect(canMove('finalizing', to)).toBe(false);
    for (const end of ['completed', 'failed', 'cancelled'] as const) {
      expect(isTerminal(end)).toBe(true);
      for (const to of ['queued', 'processing', 'finalizing', 'completed', 'failed', 'cancelled'] as const)
        expect(canMove(end, to)).toBe(false);
    }
    expect(sourcesOf('completed')).toEqual(['finalizing']);
    expect(sourcesOf('cancelled')).toEqual(['queued', 'processing']);
  });
});

describe('jobs service', () => {
  it('queues a job once per Idempotency-Key and reserves once', async () => {
    const repo = new MemoryJobs();
    const { p, calls } = peers([clip('a'), song('m')]);
    const svc = new JobsService(repo, p, new Published(), log);
    const id = await svc.create('u1', false, { media_files: ['a'], music_file: 'm' }, 'key-1');
    expect(await svc.create('u1', false, { media_files: ['a'], music_file: 'm' }, 'key-1')).toBe(id);
    expect(calls.filter((c) => c.startsWith('reserve'))).toHaveLength(1);
    expect(repo.queued).toEqual([id]);
    expect(repo.jobs.get(id)).toMatchObject({ status: 'queued', estimateCredits: 30 });
  });

  it('refuses an Idempotency-Key reused with a different request instead of answering with the old job', async () => {
    const repo = new MemoryJobs();
    const { p, calls } = peers([clip('a'), clip('b')]);
    const svc = new JobsService(repo, p, new Published(), log);
    const id = await svc.create('u1', false, { media_files: ['a'], title_config: { text: 'Trip' } }, 'key-1');
    // The same request again (keys in another order, as stored JSON comes back) is the same job.
    expect(await svc.create('u1', false, { title_config: { text: 'Trip' }, media_files: ['a'] }, 'key-1')).toBe(id);
    await expect(svc.create('u1', false, { media_files: ['b'], title_config: { text: 'Trip' } }, 'key-1')).rejects.toMatchObject({
      reason: 'idempotency_mismatch',
    });
    expect(calls.filter((c) => c.startsWith('reserve'))).toHaveLength(1);
  });

  it('turns beat mapping off without music, and applies the limits with the spec messages', async () => {
    const repo = new MemoryJobs();
    const svc = new JobsService(
      repo,
      peers([clip('a'), clip('big', 700 * 1024 * 1024), song('long', 600), clip('b')]).p,
      new Published(),
      log,
    );
    const id = await svc.create('u1', false, { media_files: ['a'], enable_beat_mapping: true }, '');
    expect(repo.jobs.get(id)!.request.enable_beat_mapping).toBe(false);
    await expect(svc.create('u1', false, { media_files: [] }, '')).rejects.toMatchObject({
      message: 'Please add at least one video file or select from library.',
    });
    await expect(svc.create('u1', false, { media_files: ['big'] }, '')).rejects.toMatchObject({
      code: 'PAYLOAD_TOO_LARGE',
      message: 'Total upload size exceeds 600MB limit.',
    });
    await expect(svc.create('u1', false, { media_files: ['a'], music_file: 'long' }, '')).rejects.toMatchObject({
      message: 'Audio file is too long. Maximum duration for free users is 3 minutes.',
    });
    await expect(svc.create('u1', false, { media_files: ['long'] }, '')).rejects.toMatchObject({
      message: 'Only video files can be used as clips.',
    });
    await expect(svc.create('u1', false, { media_files: ['nope'] }, '')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(svc.create('u1', false, { media_files: ['a'], pacing_preset: 'frantic' }, '')).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
    });
  });

  describe('the reel length, capped by plan and priced', () => {
    // Issue 12: a 12-minute clip without music makes a 12-minute reel.
    const twelveMinutes = clip('long-clip', 50 * 1024 * 1024, 720);

    it("refuses a free user's 12-minute reel before anything is reserved, with the plan's message", async () => {
      const repo = new MemoryJobs();
      const { p, calls, estimated } = peers([twelveMinutes]);
      const svc = new JobsService(repo, p, new Published(), log);
      await expect(svc.create('u1', false, { media_files: ['long-clip'] }, 'k')).rejects.toMatchObject({
        code: 'INVALID_ARGUMENT',
        reason: 'reel_too_long',
        message: 'Free videos can be up to 3 minutes long. Upgrade to make longer reels.',
      });
      expect(calls).toEqual([]);
      expect(estimated).toEqual([]);
      expect(repo.queued).toEqual([]);
      expect(repo.holds.size).toBe(0);
    });

    it('lets a free user make exactly 3 minutes from clips, and the music sets the length when there is some', async () => {
      const repo = new MemoryJobs();
      const clips = [clip('a', 1000, 60.1), clip('b', 1000, 59.9), clip('c', 1000, 60)];
      const { p, estimated } = peers([...clips, twelveMinutes, song('m', 90)]);
      const svc = new JobsService(repo, p, new Published(), log);
      await svc.create('u1', false, { media_files: ['a', 'b', 'c'] }, '');
      // 12 minutes of footage cut to a 90 s song is a 90 s reel.
      await svc.create('u1', false, { media_files: ['long-clip'], music_file: 'm' }, '');
      expect(estimated).toEqual([expect.closeTo(180, 6), 90]);
      expect(repo.queued).toHaveLength(2);
    });

    it('prices a reel by its target length (at most the song), and refuses bad target lengths and music starts clearly', async () => {
      const repo = new MemoryJobs();
      const bars = Array.from({ length: 45 }, (_, i) => i * 2); // 120 BPM, 4/4: a bar every 2 s
      const analysed: MediaInfo = {
        ...song('m', 90),
        analysisStatus: 'done',
        analysis: { version: 3, durationSec: 90, bars, beats: [], bpm: 120, beatPeriodSec: 0.5, confidence: 1 },
      };
      const { p, estimated } = peers([clip('a', 1000, 600), analysed, song('fresh', 90)]);
      const svc = new JobsService(repo, p, new Published(), log);
      await svc.create('u1', false, { media_files: ['a'], music_file: 'm', target_duration_sec: 30 }, '');
      await svc.create('u1', false, { media_files: ['a'], music_file: 'm', target_duration_sec: 300 }, ''); // clamped to the song
      await svc.create('u1', false, { media_files: ['a'], target_duration_sec: 45 }, ''); // no music: the clips, cut to 45 s
      await svc.create('u1', false, { media_files: ['a'], music_file: 'm', target_duration_sec: 30, music_start_sec: 24 }, '');
      expect(estimated).toEqual([30, 90, 45, 30]);
      const bad = (request: object, message: string) =>
        expect(svc.create('u1', false, { media_files: ['a'], music_file: 'm', ...request }, '')).rejects.toMatchObject({
          code: 'INVALID_ARGUMENT',
          message,
        });
      await bad({ target_duration_sec: 4 }, 'Invalid job request: target_duration_sec: The target length must be at least 5 seconds');
      await bad({ target_duration_sec: 601 }, 'Invalid job request: target_duration_sec: The target length must be at most 600 seconds');
      await bad({ target_duration_sec: '30' }, expect.stringMatching(/^Invalid job request: target_duration_sec: /));
      await bad({ music_start_sec: -1 }, 'Invalid job request: music_start_sec: The music start must be at least 0 seconds');
      await bad({ music_start_sec: 25 }, 'music_start_sec: 25 s is not on a bar line of the song (the nearest is 24 s)');
      await bad({ music_start_sec: 90 }, 'music_start_sec: 90 s is past the end of the song (90 s)');
      await bad({ music_file: 'fresh', music_start_sec: 4 }, expect.stringMatching(/^music_start_sec: the song has no bar lines yet/));
      await bad({ music_file: null, music_start_sec: 4 }, 'music_start_sec: there is no music file to start in');
      expect(repo.queued).toHaveLength(4);
    });

    it("prices a paid user's 12-minute reel by its length and reserves that", async () => {
      const repo = new MemoryJobs();
      const reserved: number[] = [];
      const { p, estimated } = peers([twelveMinutes], { ent: paidEnt, estimate: (s) => (s > 180 ? 120 : 30) });
      const svc = new JobsService(
        repo,
        {
          ...p,
          reserve: async (jobId, owner, credits, unlimited) => (reserved.push(credits), p.reserve(jobId, owner, credits, unlimited)),
        },
        new Published(),
        log,
      );
      const id = await svc.create('u1', false, { media_files: ['long-clip'] }, '');
      expect(estimated).toEqual([720]);
      expect(reserved).toEqual([120]);
      expect(repo.jobs.get(id)).toMatchObject({ status: 'queued', estimateCredits: 120 });
    });

    it('refuses a paid reel over 60 minutes', async () => {
      const repo = new MemoryJobs();
      const { p, calls } = peers([clip('a', 1000, 1800), clip('b', 1000, 1801)], { ent: paidEnt });
      const svc = new JobsService(repo, p, new Published(), log);
      await expect(svc.create('u1', false, { media_files: ['a', 'b'] }, '')).rejects.toMatchObject({
        reason: 'reel_too_long',
        message: 'Reels can be up to 60 minutes long.',
      });
      expect(calls).toEqual([]);
    });
  });

  it('queues nothing when the reservation is refused', async () => {
    const repo = new MemoryJobs();
    const svc = new JobsService(repo, peers([clip('a')], { broke: true }).p, new Published(), log);
    await expect(svc.create('u1', false, { media_files: ['a'] }, 'k')).rejects.toMatchObject({
      message: 'Insufficient credits or daily limit reached',
    });
    expect(repo.queued).toEqual([]);
  });

  const done = { kind: 'completed' as const, outputKey: 'reels/u1/x.mp4', thumbnailKey: 'reels/u1/x.jpg', durationSec: 12, sizeBytes: 99 };

  it('completes once: the fact is recorded once, and a repeated report only repeats the idempotent capture and listing', async () => {
    const repo = new MemoryJobs();
    const { p, calls } = peers([clip('a')]);
    const svc = new JobsService(repo, p, new Published(), log);
    const id = await svc.create('u1', false, { media_files: ['a'] }, '');
    expect((await svc.report(id, 1, { kind: 'started' })).accepted).toBe(true);
    expect((await svc.report(id, 1, done)).accepted).toBe(true);
    expect((await svc.report(id, 1, done)).accepted).toBe(true);
    expect(repo.jobs.get(id)).toMatchObject({ status: 'completed', progress: 100, message: 'Complete', outputKey: 'reels/u1/x.mp4' });
    expect(repo.facts).toEqual([
      expect.objectContaining({ kind: 'started', jobId: id, attempt: 1 }),
      expect.objectContaining({ kind: 'completed', jobId: id, attempt: 1 }),
    ]);
    // The recorded job marks its upload used once; capture before listing, listing before
    // "completed"; both are idempotent in their services.
    expect(calls.filter((c) => !c.startsWith('reserve'))).toEqual([
      `used ${id} a`,
      `capture ${id}`,
      `reel ${id}`,
      `capture ${id}`,
      `reel ${id}`,
    ]);
  });

  it('does not let a stale worker overwrite a finished job', async () => {
    const repo = new MemoryJobs();
    const { p, calls } = peers([clip('a')]);
    const svc = new JobsService(repo, p, new Published(), log);
    const id = await svc.create('u1', false, { media_files: ['a'] }, '');
    await svc.report(id, 1, { kind: 'started' });
    await svc.report(id, 1, { ...done, outputKey: 'k' });
    // A worker that missed the news takes the job again, reports progress, then fails.
    expect((await svc.report(id, 2, { kind: 'started' })).accepted).toBe(false);
    expect((await svc.report(id, 2, { kind: 'progress', stage: 'rendering', percent: 40 })).accepted).toBe(false);
    expect((await svc.report(id, 2, { kind: 'failed', reason: 'late failure' })).accepted).toBe(false);
    expect(repo.jobs.get(id)!.status).toBe('completed');
    expect(calls).not.toContain(`release ${id}`);
  });

  it('ignores progress from an older delivery once a later one has taken the job', async () => {
    const repo = new MemoryJobs();
    const svc = new JobsService(repo, peers([clip('a')]).p, new Published(), log);
    const id = await svc.create('u1', false, { media_files: ['a'] }, '');
    await svc.report(id, 1, { kind: 'started' });
    await svc.report(id, 2, { kind: 'started' }); // redelivered after the first worker went quiet
    expect((await svc.report(id, 1, { kind: 'progress', stage: 'rendering', percent: 70 })).accepted).toBe(false);
    expect((await svc.report(id, 1, { kind: 'started' })).accepted).toBe(false);
    expect((await svc.report(id, 2, { kind: 'progress', stage: 'rendering', percent: 30 })).accepted).toBe(true);
    expect(repo.jobs.get(id)).toMatchObject({ progress: 30, attempt: 2 });
  });

  it('fails once with a refund, and ignores a completion that comes after', async () => {
    const repo = new MemoryJobs();
    const { p, calls } = peers([clip('a')]);
    const published = new Published();
    const svc = new JobsService(repo, p, published, log);
    const id = await svc.create('u1', false, { media_files: ['a'] }, '');
    await svc.report(id, 1, { kind: 'started' });
    await svc.report(id, 1, { kind: 'failed', reason: 'clip.mp4: not a video or audio file we can read' });
    // Every worker is told to stop what it runs for the job (a long reel's other chunks), once.
    expect(published.stopped).toEqual([id]);
    expect((await svc.report(id, 1, { ...done, outputKey: 'k' })).accepted).toBe(false);
    expect(repo.jobs.get(id)).toMatchObject({ status: 'failed', message: 'clip.mp4: not a video or audio file we can read' });
    expect(repo.facts.map((f) => f.kind)).toEqual(['started', 'failed']);
    expect(calls.filter((c) => c.startsWith('release'))).toEqual([`release ${id}`]);
    expect(calls).not.toContain(`capture ${id}`);
  });

  it("words a failure without a reason (a dead-lettered job) with the spec's failure text", async () => {
    const repo = new MemoryJobs();
    const svc = new JobsService(repo, peers([clip('a')]).p, new Published(), log);
    const id = await svc.create('u1', false, { media_files: ['a'] }, '');
    await svc.report(id, 1, { kind: 'started' });
    await svc.report(id, 1, { kind: 'failed', reason: '' });
    expect(repo.jobs.get(id)!.message).toBe('Something went wrong. Please try again or contact support.');
  });

  it('keeps progress monotone for the user, words the stages once, and publishes every recorded change', async () => {
    const repo = new MemoryJobs();
    const published = new Published();
    const svc = new JobsService(repo, peers([clip('a')]).p, published, log);
    const id = await svc.create('u1', false, { media_files: ['a'] }, '');
    await svc.report(id, 1, { kind: 'started' });
    await svc.report(id, 1, { kind: 'progress', stage: 'analysing', percent: 5 });
    await svc.report(id, 1, { kind: 'progress', stage: 'rendering', percent: 50 });
    await svc.report(id, 1, { kind: 'progress', stage: 'rendering', percent: 20 }); // a redelivered render starting over
    await svc.report(id, 1, { kind: 'progress', stage: 'finalizing', percent: 100 });
    await svc.report(id, 1, done);
    expect(published.seen).toEqual([
      { status: 'queued', progress: 0, message: 'Queued' },
      { status: 'processing', progress: 0, message: 'Initializing' },
      { status: 'processing', progress: 5, message: 'Initializing' },
      { status: 'processing', progress: 50, message: 'Processing' },
      { status: 'processing', progress: 50, message: 'Processing' },
      { status: 'processing', progress: 99, message: 'Finalizing' },
      { status: 'completed', progress: 100, message: 'Complete' },
    ]);
  });
});

describe('footageOptIns (consent to footage offers)', () => {
  const clip = (key: string, kind: 'video' | 'audio' = 'video') => ({
    objectKey: key,
    kind,
    sizeBytes: 10,
    durationSec: 1,
    displayName: `${key}.name`,
  });
  const a = 'uploads/me/2026-11-23/a.mp4';
  const b = 'uploads/me/2026-11-23/b.mp4';
  it('nothing without consent; with it each uploaded video of the owner once, never another user or stock clip', () => {
    const off = parseJobRequest({ media_files: [a] });
    const on = parseJobRequest({ media_files: [a, a, b], get_footage_offers: true });
    if (!off.ok || !on.ok) throw new Error('bad request');
    expect(footageOptIns(off.value, 'me', [clip(a)])).toEqual([]);
    const clips = [clip(a), clip(a), clip(b), clip('uploads/me/m.mp3', 'audio'), clip('uploads/other/c.mp4'), clip('library/stock/d.mp4')];
    expect(footageOptIns(on.value, 'me', clips)).toEqual([
      { uploadKey: a, filename: `${a}.name`, sizeBytes: 10, thumbnailKey: '' },
      { uploadKey: b, filename: `${b}.name`, sizeBytes: 10, thumbnailKey: '' },
    ]);
  });
});

describe('edit plans and cancelling (issue 20)', () => {
  const analysedClip = (k: string, seconds: number): MediaInfo => ({ ...clip(k, 1000, seconds), analysisStatus: 'done' });

  it('plans without reserving, charging or recording anything; the estimate prices the plan by billing', async () => {
    const repo = new MemoryJobs();
    const { p, calls, estimated } = peers([analysedClip('a', 10), analysedClip('b', 8)]);
    const svc = new JobsService(repo, p, new Published(), log);
    const r = await svc.plan('u1', false, { media_files: ['a', 'b'], aspect: '9:16' }, { reroll: [], locked: [], seed: 0 });
    expect(r.plan.aspect).toBe('9:16');
    expect(r.plan.totalSec).toBe(18);
    expect(r.plan.segments.length).toBeGreaterThan(2);
    expect(r.estimate).toBe(30);
    expect(estimated).toEqual([18]);
    expect(r.music).toBeNull();
    expect(calls).toEqual([]);
    expect(repo.jobs.size + repo.holds.size + repo.queued.length).toBe(0);
  });

  it("plans on a stored analysis with this version's beats (SAME_BEATS_SINCE on), not on an older tracker's", async () => {
    const beats = Array.from({ length: 40 }, (_, i) => 0.2 + i * 0.5);
    const analysedSong = (version: number): MediaInfo => ({
      ...song(`m${version}`, 20),
      analysisStatus: 'done',
      analysis: { version, durationSec: 20, bpm: 120, beatPeriodSec: 0.5, beats, bars: beats.filter((_, i) => i % 4 === 0), confidence: 1 },
    });
    const svc = new JobsService(
      new MemoryJobs(),
      peers([analysedClip('a', 30), ...[...new Set([SAME_BEATS_SINCE - 1, SAME_BEATS_SINCE, MUSIC_ANALYSIS_VERSION])].map(analysedSong)]).p,
      new Published(),
      log,
    );
    const planned = (version: number) =>
      svc.plan('u1', false, { media_files: ['a'], music_file: `m${version}` }, { reroll: [], locked: [], seed: 0 });
    expect((await planned(MUSIC_ANALYSIS_VERSION)).plan.beatAligned).toBe(true);
    expect((await planned(SAME_BEATS_SINCE)).plan.beatAligned).toBe(true);
    expect((await planned(SAME_BEATS_SINCE - 1)).plan.beatAligned).toBe(false);
  });

  it('refuses an invalid plan with the first problem, before anything is reserved; a valid one is charged by its length', async () => {
    const repo = new MemoryJobs();
    const { p, calls, estimated } = peers([analysedClip('a', 10), analysedClip('b', 8)]);
    const svc = new JobsService(repo, p, new Published(), log);
    const planned = await svc.plan('u1', false, { media_files: ['a', 'b'] }, { reroll: [], locked: [], seed: 0 });
    // The plan as POST /jobs/plan shows it and a client sends it back.
    const plan = planToWire(planned.plan, '9:16');
    expect(plan.aspect).toBe('16:9');
    const bad = structuredClone(plan);
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
