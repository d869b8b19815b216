import { DomainError, ErrorCode, createLogger } from '@reelsmith/kit';
import { canMove, isTerminal, sourcesOf } from '../../src/domain/job-states';
import {
  JobsService,
  type Entitlements,
  type JobFact,
  type JobRecord,
  type JobsRepository,
  type MediaInfo,
  type Peers,
  type StatusPublisher,
} from '../../src/domain/jobs.service';

describe('job state machine', () => {
  it('allows only the legal moves', () => {
    expect(canMove('queued', 'processing')).toBe(true);
    expect(canMove('processing', 'completed')).toBe(true);
    expect(canMove('processing', 'failed')).toBe(true);
    expect(canMove('queued', 'completed')).toBe(false);
    for (const end of ['completed', 'failed'] as const) {
      expect(isTerminal(end)).toBe(true);
      for (const to of ['queued', 'processing', 'completed', 'failed'] as const) expect(canMove(end, to)).toBe(false);
    }
    expect(sourcesOf('completed')).toEqual(['processing']);
  });
});

/** The repository as the SQL does it: a transition happens only from a legal source state. */
class MemoryJobs implements JobsRepository {
  jobs = new Map<string, JobRecord>();
  queued: string[] = [];
  facts: Array<JobFact & { jobId: string }> = [];
  async byId(id: string) {
    return this.jobs.get(id) ?? null;
  }
  async byIdempotencyKey(ownerId: string, key: string) {
    return [...this.jobs.values()].find((j) => j.ownerId === ownerId && j.idempotencyKey === key) ?? null;
  }
  async insertQueued(job: JobRecord) {
    if (job.idempotencyKey && (await this.byIdempotencyKey(job.ownerId, job.idempotencyKey))) return false;
    this.jobs.set(job.id, job);
    this.queued.push(job.id);
    return true;
  }
  async transition(id: string, to: JobRecord['status'], fields: Partial<JobRecord>, fact?: JobFact) {
    const j = this.jobs.get(id);
    if (!j || !sourcesOf(to).includes(j.status)) return null;
    const next = { ...j, ...fields, status: to };
    this.jobs.set(id, next);
    if (fact) this.facts.push({ ...fact, jobId: id });
    return next;
  }
}

/** What everyone following the job was told, in order. */
class Published implements StatusPublisher {
  seen: Array<Pick<JobRecord, 'status' | 'progress' | 'message'>> = [];
  publish(j: JobRecord) {
    this.seen.push({ status: j.status, progress: j.progress, message: j.message });
  }
}

const ent: Entitlements = {
  uploadCapBytes: 629_145_600,
  musicCapSeconds: 180,
  librarySelectionCap: 20,
  messages: {
    upload: 'Total upload size exceeds 600MB limit.',
    music: 'Audio file is too long. Maximum duration for free users is 3 minutes.',
    selection: 'Free plan allows up to 20 video selections.',
  },
};

function peers(media: MediaInfo[], opts: { broke?: boolean } = {}) {
  const calls: string[] = [];
  const p: Peers = {
    media: async (_owner, keys) =>
      keys.map((k) => {
        const m = media.find((x) => x.objectKey === k);
        if (!m) throw new DomainError(ErrorCode.NOT_FOUND, 'One of the selected files was not found. Please upload it again.');
        return m;
      }),
    entitlements: async () => ent,
    estimate: async () => 30,
    reserve: async (id) => {
      calls.push(`reserve ${id}`);
      if (opts.broke)
        throw new DomainError(ErrorCode.RESOURCE_EXHAUSTED, 'Insufficient credits or daily limit reached', 'insufficient_credits');
    },
    capture: async (id) => void calls.push(`capture ${id}`),
    release: async (id) => void calls.push(`release ${id}`),
    addReel: async (j) => void calls.push(`reel ${j.id}`),
  };
  return { p, calls };
}

const clip = (k: string, size = 1000): MediaInfo => ({ objectKey: k, kind: 'video', sizeBytes: size, durationSec: 10 });
const song = (k: string, seconds = 60): MediaInfo => ({ objectKey: k, kind: 'audio', sizeBytes: 1000, durationSec: seconds });
const log = createLogger({ service: 'test', level: 'silent' });

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
    expect(repo.facts).toEqual([expect.objectContaining({ kind: 'completed', jobId: id, attempt: 1 })]);
    // Capture before listing, listing before "completed"; both are idempotent in their services.
    expect(calls.filter((c) => !c.startsWith('reserve'))).toEqual([`capture ${id}`, `reel ${id}`, `capture ${id}`, `reel ${id}`]);
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
    const svc = new JobsService(repo, p, new Published(), log);
    const id = await svc.create('u1', false, { media_files: ['a'] }, '');
    await svc.report(id, 1, { kind: 'started' });
    await svc.report(id, 1, { kind: 'failed', reason: 'clip.mp4: not a video or audio file we can read' });
    expect((await svc.report(id, 1, { ...done, outputKey: 'k' })).accepted).toBe(false);
    expect(repo.jobs.get(id)).toMatchObject({ status: 'failed', message: 'clip.mp4: not a video or audio file we can read' });
    expect(repo.facts.map((f) => f.kind)).toEqual(['failed']);
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
