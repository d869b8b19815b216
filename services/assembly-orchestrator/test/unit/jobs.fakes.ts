// In-memory fakes of the jobs service's repository, publisher and peers, and the entitlements and media the jobs specs share.
import { DomainError, ErrorCode, createLogger } from '@reelsmith/kit';
import { sourcesOf } from '../../src/domain/job-states';
import type { Entitlements, JobFact, JobRecord, JobsRepository, MediaInfo, Peers, StatusPublisher } from '../../src/domain/jobs.service';

/** The repository as the SQL does it: a transition happens only from a legal source state. */
export class MemoryJobs implements JobsRepository {
  jobs = new Map<string, JobRecord>();
  queued: string[] = [];
  facts: Array<JobFact & { jobId: string }> = [];
  holds = new Map<string, Date>();
  /** Set to make the next insert fail the way a database error would. */
  insertError: Error | undefined;
  now = () => new Date();
  async hold(jobId: string) {
    this.holds.set(jobId, this.now());
  }
  async settled(jobId: string) {
    this.holds.delete(jobId);
  }
  async holdsBefore(before: Date) {
    return [...this.holds].filter(([, at]) => at < before).map(([jobId]) => ({ jobId, job: this.jobs.get(jobId) ?? null }));
  }
  async stalled(now: Date, ackWaitMs: number, maxDeliver: number, graceMs: number) {
    return [...this.jobs.values()].filter(
      (j) =>
        j.status === 'processing' &&
        j.updatedAt.getTime() < now.getTime() - (ackWaitMs * Math.max(1, maxDeliver - j.attempt + 1) + graceMs),
    );
  }
  async byId(id: string) {
    return this.jobs.get(id) ?? null;
  }
  async list(ownerId: string, activeOnly: boolean, limit: number) {
    return [...this.jobs.values()]
      .filter((j) => j.ownerId === ownerId && (!activeOnly || j.status === 'queued' || j.status === 'processing'))
      .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime())
      .slice(0, limit);
  }
  async byIdempotencyKey(ownerId: string, key: string) {
    return [...this.jobs.values()].find((j) => j.ownerId === ownerId && j.idempotencyKey === key) ?? null;
  }
  async insertQueued(job: JobRecord) {
    if (this.insertError) throw this.insertError;
    if (job.idempotencyKey && (await this.byIdempotencyKey(job.ownerId, job.idempotencyKey))) return false;
    this.jobs.set(job.id, job);
    this.queued.push(job.id);
    return true;
  }
  async transition(id: string, to: JobRecord['status'], fields: Partial<JobRecord>, fact?: JobFact) {
    const j = this.jobs.get(id);
    if (!j || !sourcesOf(to).includes(j.status)) return null;
    const next = { ...j, ...fields, status: to, updatedAt: this.now() };
    this.jobs.set(id, next);
    if (fact) this.facts.push({ ...fact, jobId: id });
    return next;
  }
}

/** What everyone following the job was told, in order. */
export class Published implements StatusPublisher {
  seen: Array<Pick<JobRecord, 'status' | 'progress' | 'message'>> = [];
  /** Jobs whose worker was told to stop. */
  stopped: string[] = [];
  publish(j: JobRecord) {
    this.seen.push({ status: j.status, progress: j.progress, message: j.message });
  }
  stopWork(j: JobRecord) {
    this.stopped.push(j.id);
  }
}

export const ent: Entitlements = {
  uploadCapBytes: 629_145_600,
  musicCapSeconds: 180,
  librarySelectionCap: 20,
  reelCapSeconds: 180,
  messages: {
    upload: 'Total upload size exceeds 600MB limit.',
    music: 'Audio file is too long. Maximum duration for free users is 3 minutes.',
    selection: 'Free plan allows up to 20 video selections.',
    reelLength: 'Free videos can be up to 3 minutes long. Upgrade to make longer reels.',
  },
};
export const paidEnt: Entitlements = {
  uploadCapBytes: 3_221_225_472,
  musicCapSeconds: 7200,
  librarySelectionCap: 1000,
  reelCapSeconds: 3600,
  messages: {
    upload: 'Total upload size exceeds 3GB limit.',
    music: 'Audio file is too long. Maximum duration for paid users is 2 hours.',
    selection: 'Subscriber plan allows up to 1000 video selections.',
    reelLength: 'Reels can be up to 60 minutes long.',
  },
};

export function peers(
  media: MediaInfo[],
  opts: { broke?: boolean; ent?: Entitlements; estimate?: (outputSeconds: number) => number } = {},
) {
  const calls: string[] = [];
  /** What billing was asked to price: the reel's length, in seconds. */
  const estimated: number[] = [];
  const p: Peers = {
    media: async (_owner, keys) =>
      keys.map((k) => {
        const m = media.find((x) => x.objectKey === k);
        if (!m) throw new DomainError(ErrorCode.NOT_FOUND, 'One of the selected files was not found. Please upload it again.');
        return m;
      }),
    entitlements: async () => opts.ent ?? ent,
    estimate: async (_pacing, _music, _bytes, outputSeconds) => {
      estimated.push(outputSeconds);
      return opts.estimate ? opts.estimate(outputSeconds) : 30;
    },
    reserve: async (id) => {
      calls.push(`reserve ${id}`);
      if (opts.broke)
        throw new DomainError(ErrorCode.RESOURCE_EXHAUSTED, 'Insufficient credits or daily limit reached', 'insufficient_credits');
    },
    capture: async (id) => void calls.push(`capture ${id}`),
    release: async (id) => void calls.push(`release ${id}`),
    addReel: async (j) => void calls.push(`reel ${j.id}`),
    markUsed: async (_owner, keys, id) => void calls.push(`used ${id} ${keys.join(',')}`),
  };
  return { p, calls, estimated };
}

export const clip = (k: string, size = 1000, seconds = 10): MediaInfo => ({
  objectKey: k,
  kind: 'video',
  sizeBytes: size,
  durationSec: seconds,
});
export const song = (k: string, seconds = 60): MediaInfo => ({ objectKey: k, kind: 'audio', sizeBytes: 1000, durationSec: seconds });
export const log = createLogger({ service: 'test', level: 'silent' });
