import type { JobStatusFacts } from './job-status.js';

export interface LiveJobsLimits {
  maxEntries: number;
  /** An active job with no news for this long is asked of the orchestrator again. */
  activeTtlMs: number;
  /** A finished job's status is reused this long. */
  finishedTtlMs: number;
}

export const LIVE_JOBS_DEFAULTS: LiveJobsLimits = { maxEntries: 50_000, activeTtlMs: 10 * 60_000, finishedTtlMs: 5_000 };

interface Entry {
  ownerId: string;
  facts: JobStatusFacts;
  expires: number;
}

const finished = (status: string) => status === 'completed' || status === 'failed' || status === 'cancelled';
/** How far a job has come: queued, then processing, then an end. */
const stage = (status: string) => (finished(status) ? 2 : status === 'queued' ? 0 : 1);

/**
 * The status of jobs as the gateway last heard it: every status message the orchestrator
 * publishes (each replica receives them all) updates it, so a status poll of a live job needs no
 * gRPC call. Only the job's owner gets it; anyone else is sent to the orchestrator (which answers
 * NOT_FOUND).
 */
export class LiveJobs {
  private readonly jobs = new Map<string, Entry>();

  constructor(
    private readonly limits: LiveJobsLimits = LIVE_JOBS_DEFAULTS,
    private readonly now: () => number = Date.now,
  ) {}

  /** A status message from the orchestrator: the newest word on the job. */
  heard(ownerId: string, facts: JobStatusFacts): void {
    // Messages can arrive out of order (the outbox relay may publish 'queued' after the worker's
    // 'processing'): a job never moves back, so an earlier state than the one held is old news.
    const had = this.jobs.get(facts.jobId);
    if (had && had.expires > this.now() && stage(facts.status) < stage(had.facts.status)) return;
    this.put(facts.jobId, ownerId, facts);
  }

  /** An answer from the orchestrator; a status message heard meanwhile is newer and wins. */
  fetched(ownerId: string, facts: JobStatusFacts): void {
    const had = this.jobs.get(facts.jobId);
    if (had && had.expires > this.now()) return;
    this.put(facts.jobId, ownerId, facts);
  }

  get(jobId: string, ownerId: string): JobStatusFacts | undefined {
    const e = this.jobs.get(jobId);
    if (!e || e.ownerId !== ownerId) return undefined;
    if (e.expires <= this.now()) {
      this.jobs.delete(jobId);
      return undefined;
    }
    return e.facts;
  }

  get size() {
    return this.jobs.size;
  }

  private put(jobId: string, ownerId: string, facts: JobStatusFacts) {
    this.jobs.delete(jobId);
    const ttl = finished(facts.status) ? this.limits.finishedTtlMs : this.limits.activeTtlMs;
    this.jobs.set(jobId, { ownerId, facts, expires: this.now() + ttl });
    while (this.jobs.size > this.limits.maxEntries) this.jobs.delete(this.jobs.keys().next().value!);
  }
}
