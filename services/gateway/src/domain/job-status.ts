import { FINISHED, type CachedStatus, type FinishedJobs } from './finished-jobs.js';
import type { LiveJobs } from './live-jobs.js';

/**
 * The one view of a job's status, served by GET /jobs/{id}/status and pushed to the job's sockets
 * from the orchestrator's status messages, so the two always say the same.
 */
export interface JobStatusFacts {
  jobId: string;
  status: string;
  progress: number;
  message: string;
  /** Set once the reel is stored. */
  outputKey: string;
  /** The name the download is saved under. */
  outputFilename: string;
  /** When the job was submitted (ms since the epoch; 0 when unknown). */
  createdAtMs: number;
}

export interface JobStatusView {
  job_id: string;
  status: 'queued' | 'processing' | 'completed' | 'failed' | 'cancelled';
  created_at: string;
  message: string;
  progress: number;
  download_url: string | null;
}

export interface LinkSigner {
  signedUrl(key: string, opts: { expiresInSeconds: number; downloadName?: string }): Promise<string>;
  /** Null once the object is gone (the reel was deleted). */
  stat(key: string): Promise<unknown>;
}

/** Download links handed to browsers are valid this long. */
export const LINK_SECONDS = 3600;

const STATUSES = new Set(['queued', 'processing', 'completed', 'failed', 'cancelled']);

export function jobStatusViews(signer: LinkSigner) {
  return {
    /** `reelGone`: the reel is known to be deleted (no stat needed: no link). */
    async view(f: JobStatusFacts, reelGone = false): Promise<JobStatusView> {
      const status = (STATUSES.has(f.status) ? f.status : 'queued') as JobStatusView['status'];
      return {
        job_id: f.jobId,
        status,
        created_at: new Date(f.createdAtMs || 0).toISOString(),
        message: f.message,
        progress: Math.max(0, Math.min(100, f.progress)),
        // No link to a reel that was deleted since.
        download_url:
          status === 'completed' && f.outputKey && !reelGone && (await signer.stat(f.outputKey))
            ? await signer.signedUrl(f.outputKey, { expiresInSeconds: LINK_SECONDS, downloadName: f.outputFilename })
            : null,
      };
    },
  };
}
export type JobStatusViews = ReturnType<typeof jobStatusViews>;

/** What GET /jobs/{id}/status answers: the view, and for a finished job its cache validators. */
export type StatusAnswer = { view: JobStatusView; json?: undefined; etag?: undefined; maxAgeSec?: undefined } | CachedStatus;

/**
 * GET /jobs/{id}/status: a finished job from memory (finished-jobs.ts), a live one from the status
 * messages heard (live-jobs.ts), anything else from the orchestrator (`fetch`). The view of a
 * finished job is built once (one stat, one signature) and kept.
 */
export function jobStatuses(d: {
  views: JobStatusViews;
  live: LiveJobs;
  finished: FinishedJobs;
  fetch: (jobId: string, ownerId: string, requestId?: string) => Promise<JobStatusFacts>;
}) {
  return async (jobId: string, ownerId: string, requestId?: string): Promise<StatusAnswer> => {
    const cached = d.finished.get(jobId, ownerId);
    if (cached) return cached;
    const since = d.finished.mark();
    let facts = d.live.get(jobId, ownerId);
    if (!facts) {
      facts = await d.fetch(jobId, ownerId, requestId);
      d.live.fetched(ownerId, facts);
    }
    const view = await d.views.view(facts, d.finished.reelGone(jobId, ownerId));
    return FINISHED.has(view.status) ? d.finished.put(ownerId, view, since) : { view };
  };
}
export type JobStatuses = ReturnType<typeof jobStatuses>;
