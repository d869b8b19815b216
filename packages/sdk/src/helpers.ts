import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { AnswerOf, BodyOf, ReelsmithClient } from './client.js';

export type UploadResult = AnswerOf<'/api/v1/uploads/file', 'post'>;
type FullJobRequest = BodyOf<'/api/v1/jobs/assemble', 'post'>;
/** A job request: the clips, and any settings to change from the defaults the server applies. */
export type JobRequest = Omit<Partial<FullJobRequest>, 'title_config'> & {
  media_files: string[];
  title_config?: Partial<FullJobRequest['title_config']>;
};
export type JobStatus = AnswerOf<'/api/v1/jobs/{id}/status', 'get'>;

const TYPES: Record<string, string> = {
  '.mp4': 'video/mp4',
  '.mov': 'video/quicktime',
  '.webm': 'video/webm',
  '.mp3': 'audio/mpeg',
  '.wav': 'audio/wav',
  '.m4a': 'audio/mp4',
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Uploads a local file (one video or song); retried safely with an Idempotency-Key. */
export async function uploadFile(
  client: ReelsmithClient,
  file: string,
  opts: { idempotencyKey?: string; contentType?: string } = {},
): Promise<UploadResult> {
  const data = await fs.promises.readFile(file);
  const form = new FormData();
  form.append(
    'file',
    new Blob([data], { type: opts.contentType ?? TYPES[path.extname(file).toLowerCase()] ?? 'application/octet-stream' }),
    path.basename(file),
  );
  return client.post('/api/v1/uploads/file', { body: form, idempotencyKey: opts.idempotencyKey ?? crypto.randomUUID() });
}

export interface WaitOptions {
  /** Give up after this long (default 30 minutes). */
  timeoutMs?: number;
  /** First poll after this long, doubling up to `maxIntervalMs` (defaults 1 s and 10 s). */
  intervalMs?: number;
  maxIntervalMs?: number;
  onStatus?: (s: JobStatus) => void;
}

/** Polls a job's status with back-off until it completes, fails or is cancelled. */
export async function waitForJob(client: ReelsmithClient, jobId: string, opts: WaitOptions = {}): Promise<JobStatus> {
  const deadline = Date.now() + (opts.timeoutMs ?? 30 * 60_000);
  let interval = opts.intervalMs ?? 1000;
  for (;;) {
    const s = await client.get('/api/v1/jobs/{id}/status', { path: { id: jobId } });
    opts.onStatus?.(s);
    if (s.status === 'completed' || s.status === 'failed' || s.status === 'cancelled') return s;
    if (Date.now() + interval > deadline) throw new Error(`job ${jobId} still ${s.status} after ${opts.timeoutMs ?? 30 * 60_000} ms`);
    await sleep(interval);
    interval = Math.min(interval * 2, opts.maxIntervalMs ?? 10_000);
  }
}

/**
 * Makes a reel: POST /jobs/assemble with an Idempotency-Key (a retry after a timeout never makes a
 * second job or charge), then, unless `wait` is false, polls until it is done. With a webhook
 * endpoint (or `callback_url` in the request) you can skip the polling and wait for job.completed.
 */
export async function makeReel(
  client: ReelsmithClient,
  request: JobRequest,
  opts: WaitOptions & { idempotencyKey?: string; wait?: boolean } = {},
): Promise<{ jobId: string; status?: JobStatus }> {
  const { job_id } = await client.post('/api/v1/jobs/assemble', {
    body: request as FullJobRequest,
    idempotencyKey: opts.idempotencyKey ?? crypto.randomUUID(),
  });
  if (opts.wait === false) return { jobId: job_id };
  const status = await waitForJob(client, job_id, opts);
  if (status.status !== 'completed') throw new Error(`job ${job_id} ${status.status}: ${status.message}`);
  return { jobId: job_id, status };
}

/** Downloads a finished job's reel to a file; answers its size in bytes. */
export async function downloadReel(client: ReelsmithClient, jobId: string, dest: string): Promise<number> {
  const res = (await client.request('get', '/api/v1/downloads/{id}', { path: { id: jobId }, raw: true })) as unknown as Response;
  if (!res.body) throw new Error('the download has no body');
  await pipeline(Readable.fromWeb(res.body as import('node:stream/web').ReadableStream), fs.createWriteStream(dest));
  return (await fs.promises.stat(dest)).size;
}
