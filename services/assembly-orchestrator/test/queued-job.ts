/**
 * A job as JobsService inserts it when a request is accepted (queued, nothing rendered yet), for the
 * tests that put jobs straight into the table: the orchestrator's repository test and the
 * marketplace and tracing tests in test/medium.
 */
import crypto from 'node:crypto';
import { parseJobRequest } from '@reelsmith/proto';
import type { JobRecord } from '../src/domain/jobs.service';

/** `request` is the client's job request (parsed with every default applied); `over` replaces fields. */
export function queuedJob(over: Partial<JobRecord> = {}, request: unknown = { media_files: ['uploads/u/a.mp4'] }): JobRecord {
  const parsed = parseJobRequest(request);
  if (!parsed.ok) throw new Error(parsed.problems);
  const now = new Date();
  // The same fields as JobsService's new record on purpose: the tests insert what the service would.
  return {
    id: crypto.randomUUID(),
    ownerId: crypto.randomUUID(),
    status: 'queued',
    progress: 0,
    message: 'Queued',
    request: parsed.value,
    idempotencyKey: null,
    estimateCredits: 30,
    attempt: 0,
    outputKey: '',
    thumbnailKey: '',
    durationSec: 0,
    sizeBytes: 0,
    createdAt: now,
    updatedAt: now,
    ...over,
  };
}
