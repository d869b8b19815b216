/** The job state machine: the states, and every legal transition, in one place. */
export const JobState = {
  QUEUED: 'queued',
  PROCESSING: 'processing',
  COMPLETED: 'completed',
  FAILED: 'failed',
  CANCELLED: 'cancelled',
  /**
   * The worker's completion is recorded and the job can no longer be cancelled or failed; the
   * charge and the reel's listing are being made. Shown outside as 'processing'.
   */
  FINALIZING: 'finalizing',
} as const;
export type JobState = (typeof JobState)[keyof typeof JobState];

const LEGAL: Record<JobState, readonly JobState[]> = {
  queued: ['processing', 'failed', 'cancelled'],
  // processing -> processing: progress, or a redelivered job taken by another worker.
  // Completion and cancel both leave processing by one conditional update on the job's row:
  // whichever commits first wins, so a job is either charged and completed or released and
  // cancelled, never both.
  processing: ['processing', 'finalizing', 'failed', 'cancelled'],
  finalizing: ['completed'],
  completed: [],
  failed: [],
  cancelled: [],
};

export const canMove = (from: JobState, to: JobState) => LEGAL[from].includes(to);
export const isTerminal = (s: JobState) => LEGAL[s].length === 0;
/** The status others see: finalizing is still 'processing' to the user and the other services. */
export const publicStatus = (s: JobState) => (s === 'finalizing' ? 'processing' : s);
/** States a transition to `to` may start from (for conditional updates in SQL). */
export const sourcesOf = (to: JobState) => (Object.keys(LEGAL) as JobState[]).filter((f) => LEGAL[f].includes(to));

/** A failed job's message when the cause is ours, not the user's input (spec section 8). */
export const FAILED_CARD_TEXT = 'Something went wrong. Please try again or contact support.';

/** Where a worker's render is; the one place that words it for the user (spec's progress steps). */
export type Stage = 'preparing' | 'analysing' | 'rendering' | 'finalizing';
export const STAGE_MESSAGE: Record<Stage, string> = {
  preparing: 'Initializing',
  analysing: 'Initializing',
  rendering: 'Processing',
  finalizing: 'Finalizing',
};
export const QUEUED_MESSAGE = 'Queued';
export const COMPLETE_MESSAGE = 'Complete';
export const CANCELLED_MESSAGE = 'Cancelled';
export const FINISHED_MESSAGE = 'This job has already finished.';
