// Shared by the k6 scripts: where the deployment is, a session, uploads and jobs, in the API's
// own shapes (see /api/v1/docs). Runs inside k6, not Node.
import http from 'k6/http';
import { check, fail, sleep } from 'k6';

export const BASE_URL = (__ENV.BASE_URL || 'http://localhost:8080').replace(/\/$/, '');
export const API = `${BASE_URL}/api/v1`;

export interface Session {
  token: string;
}

/**
 * A session for an existing, verified account: TOKEN (a session token), or EMAIL and PASSWORD.
 * Jobs cost credits: use an account with credits, or the guest pass account (never charged).
 */
export function signIn(): Session {
  if (__ENV.TOKEN) return { token: __ENV.TOKEN };
  if (!__ENV.EMAIL || !__ENV.PASSWORD) fail('set TOKEN, or EMAIL and PASSWORD, of a verified account');
  const res = http.post(`${API}/auth/login`, JSON.stringify({ email: __ENV.EMAIL, password: __ENV.PASSWORD }), {
    headers: { 'content-type': 'application/json' },
    tags: { name: 'login' },
  });
  if (res.status !== 200) fail(`sign-in answered ${res.status}: ${String(res.body)}`);
  return { token: String(res.json('session_token')) };
}

export const authHeaders = (s: Session, extra: Record<string, string> = {}) => ({ authorization: `Bearer ${s.token}`, ...extra });

export interface Clip {
  name: string;
  data: ArrayBuffer;
}

/**
 * Small clips to upload, read at init (k6's open() only works there): CLIPS is a comma-separated
 * list of files (e.g. made with the ffmpeg line in docs/operations.md, "Load tests").
 */
export function loadClips(): Clip[] {
  const list = (__ENV.CLIPS || '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  return list.map((p) => ({ name: p.split('/').pop() || 'clip.mp4', data: open(p, 'b') }));
}

export function upload(s: Session, clip: Clip): string {
  const res = http.post(
    `${API}/uploads/file`,
    { file: http.file(clip.data, clip.name, clip.name.endsWith('.mp3') ? 'audio/mpeg' : 'video/mp4') },
    { headers: authHeaders(s), tags: { name: 'upload' }, timeout: '120s' },
  );
  check(res, { 'upload accepted': (r) => r.status === 201 });
  if (res.status !== 201) fail(`upload answered ${res.status}: ${String(res.body)}`);
  return String(res.json('object_key'));
}

/** A short reel of the given uploads with the spec's defaults; returns the job id. */
export function submitJob(s: Session, objectKeys: string[], key: string): string {
  const body = {
    media_files: objectKeys,
    output_filename: 'load_test.mp4',
    pacing_preset: 'standard',
    enable_beat_mapping: false,
    enable_intelligence: true,
    title_config: { enabled: true, text: 'Load test', font: 'Roboto-Bold.ttf', font_size: 48, position: 'center' },
    enable_fades: true,
    fade_in_duration_sec: 0.5,
    fade_out_duration_sec: 0.5,
    enable_letterbox: false,
  };
  const res = http.post(`${API}/jobs/assemble`, JSON.stringify(body), {
    headers: authHeaders(s, { 'content-type': 'application/json', 'idempotency-key': key }),
    tags: { name: 'assemble' },
  });
  check(res, { 'job accepted': (r) => r.status === 200 });
  if (res.status !== 200) fail(`assemble answered ${res.status}: ${String(res.body)}`);
  return String(res.json('job_id'));
}

export interface JobStatus {
  status: 'queued' | 'processing' | 'completed' | 'failed';
  progress: number;
  download_url: string | null;
}

export function jobStatus(s: Session, jobId: string): JobStatus | undefined {
  const res = http.get(`${API}/jobs/${jobId}/status`, { headers: authHeaders(s), tags: { name: 'status' } });
  return res.status === 200 ? (res.json() as unknown as JobStatus) : undefined;
}

/** Polls the job's status until it ends or `timeoutS` passes; returns the last status seen. */
export function waitForJob(s: Session, jobId: string, timeoutS: number, pollS = 2): JobStatus | undefined {
  const end = Date.now() + timeoutS * 1000;
  let last: JobStatus | undefined;
  while (Date.now() < end) {
    last = jobStatus(s, jobId);
    if (last && (last.status === 'completed' || last.status === 'failed')) return last;
    sleep(pollS);
  }
  return last;
}
