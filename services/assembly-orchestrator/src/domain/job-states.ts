/** The job state machine: the states, and every legal transition, in one place. */
export const JobState = {
  QUEUED: 'queued',
  PROCESSING: 'processing',
  COMPLETED: 'completed',
  FAILED: 'failed',
  CANCELLED: 'cancelled',
} as const;
export type JobState = (typeof JobState)[keyof typeof JobState];

const LEGAL: Record<JobState, readonly JobState[]> = {
  queued: ['processing', 'failed', 'cancelled'],
  // processing -> processing: progress, or a redelivered job taken by another worker.
  processing: ['processing', 'completed', 'failed', 'cancelled'],
  completed: [],
  failed: [],
  cancelled: [],
};

export const canMove = (from: JobState, to: JobState) => LEGAL[from].includes(to);
export const isTerminal = (s: JobState) => LEGAL[s].length === 0;
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
