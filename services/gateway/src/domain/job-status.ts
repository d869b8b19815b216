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
    async view(f: JobStatusFacts): Promise<JobStatusView> {
      const status = (STATUSES.has(f.status) ? f.status : 'queued') as JobStatusView['status'];
      return {
        job_id: f.jobId,
        status,
        created_at: new Date(f.createdAtMs || 0).toISOString(),
        message: f.message,
        progress: Math.max(0, Math.min(100, f.progress)),
        // No link to a reel that was deleted since.
        download_url:
          status === 'completed' && f.outputKey && (await signer.stat(f.outputKey))
            ? await signer.signedUrl(f.outputKey, { expiresInSeconds: LINK_SECONDS, downloadName: f.outputFilename })
            : null,
      };
    },
  };
}
export type JobStatusViews = ReturnType<typeof jobStatusViews>;
