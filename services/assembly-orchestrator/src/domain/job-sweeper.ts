import { isDomainError, type Logger } from '@reelsmith/kit';
import type { JobsRepository, JobsService, Peers } from './jobs.service.js';

export interface SweeperOptions {
  /** The render work queue's ack wait: how long a silent delivery lasts before it is redelivered. */
  ackWaitMs: number;
  /** Deliveries of a work message before JetStream gives up on it. */
  maxDeliver: number;
  /** Slack on top of the deliveries left, for a worker's heartbeat in flight. */
  graceMs: number;
  /** Age after which a hold without a live job is settled (longer than any gRPC deadline). */
  holdAgeMs: number;
}

export interface SweepResult {
  /** Jobs failed (and refunded) because their worker stopped reporting for good. */
  stalled: number;
  /** Holds settled: reservations released or captured whose job never appeared or had ended. */
  settled: number;
}

/**
 * Money is never left held. Two cases the job flow alone cannot close:
 * - a worker that dies on the last delivery of a job leaves nobody to fail it: a job whose worker
 *   has been silent for longer than the deliveries left to it could take is failed here, which
 *   refunds it (exactly once: the failure is a conditional transition);
 * - a reservation made for a job that was never recorded (an error or crash between reserving
 *   and inserting), or whose capture or refund failed, is settled from its hold.
 * Several replicas may sweep at once: every step is conditional or idempotent.
 */
export class JobSweeper {
  constructor(
    private readonly repo: JobsRepository,
    private readonly jobs: JobsService,
    private readonly peers: Peers,
    private readonly opts: SweeperOptions,
    private readonly log: Logger,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  async sweep(): Promise<SweepResult> {
    const now = this.clock();
    const result: SweepResult = { stalled: 0, settled: 0 };
    for (const job of await this.repo.stalled(now, this.opts.ackWaitMs, this.opts.maxDeliver, this.opts.graceMs)) {
      try {
        // No reason given: the cause is ours, and the job flow words that for the user.
        const { accepted } = await this.jobs.report(job.id, job.attempt, { kind: 'failed', reason: '' });
        if (accepted) {
          result.stalled += 1;
          this.log.warn({ job_id: job.id, attempt: job.attempt, silent_since: job.updatedAt }, 'worker stopped reporting; job failed');
        }
      } catch (e) {
        this.log.error({ err: e, job_id: job.id }, 'could not fail a stalled job; next sweep retries');
      }
    }
    for (const { jobId, job } of await this.repo.holdsBefore(new Date(now.getTime() - this.opts.holdAgeMs))) {
      try {
        if (job?.status === 'finalizing') {
          // The completion was recorded but its charge or listing did not finish: finish it
          // (capture, list, complete, then the hold goes).
          await this.jobs.finalize(jobId);
          result.settled += 1;
          this.log.warn({ job_id: jobId }, 'completion finished by the sweeper');
          continue;
        }
        if (!job || job.status === 'failed' || job.status === 'cancelled') await this.settleWith(jobId, 'release');
        else if (job.status === 'completed') await this.settleWith(jobId, 'capture');
        else continue; // queued or processing: the job flow settles it
        await this.repo.settled(jobId);
        result.settled += 1;
        this.log.warn({ job_id: jobId, job_status: job?.status ?? 'missing' }, 'reservation settled by the sweeper');
      } catch (e) {
        this.log.error({ err: e, job_id: jobId }, 'could not settle a reservation; next sweep retries');
      }
    }
    return result;
  }

  /**
   * Releases or captures a hold's reservation. Billing answers for good when the reservation was
   * already settled the other way (captured when we release, released when we capture): no retry
   * can change that, so the hold is settled rather than retried forever, and the mismatch logged
   * as an error for a person to look at (the job flow never makes one: see JobsService.completed).
   */
  private async settleWith(jobId: string, op: 'release' | 'capture'): Promise<void> {
    try {
      await this.peers[op](jobId);
    } catch (e) {
      const final = op === 'release' ? 'reservation_captured' : 'reservation_released';
      if (!isDomainError(e) || e.reason !== final) throw e;
      this.log.error({ err: e, job_id: jobId, wanted: op }, 'reservation was already settled the other way; hold settled as it is');
    }
  }
}
