// API read load: job status, cost estimates, the reels library, the catalogue and health, mixed
// as the web app calls them, at a constant arrival rate.
//   k6 run -e BASE_URL=https://reelsmith.example.com -e EMAIL=... -e PASSWORD=... [-e JOB_ID=...] \
//     [-e CLIPS=clip.mp4] [-e RATE=200] [-e DURATION=2m] deploy/k6/dist/api-read.js
// Without JOB_ID, setup uploads CLIPS[0] and submits one job whose status is read.
import http from 'k6/http';
import { check, fail } from 'k6';
import type { Options } from 'k6/options';
import { API, authHeaders, jobStatus, loadClips, signIn, submitJob, upload, type Session } from './lib/api';

const clips = __ENV.JOB_ID ? [] : loadClips();

export const options: Options = {
  scenarios: {
    reads: {
      executor: 'constant-arrival-rate',
      rate: Number(__ENV.RATE || 100),
      timeUnit: '1s',
      duration: __ENV.DURATION || '1m',
      preAllocatedVUs: Number(__ENV.VUS || 50),
      maxVUs: Number(__ENV.MAX_VUS || 200),
    },
  },
  thresholds: {
    http_req_failed: ['rate<0.01'],
    'http_req_duration{name:status}': ['p(99)<250', 'p(95)<100'],
    'http_req_duration{name:estimate}': ['p(99)<300'],
    'http_req_duration{name:library}': ['p(99)<500'],
    'http_req_duration{name:catalogue}': ['p(99)<300'],
    checks: ['rate>0.99'],
  },
};

interface Setup {
  session: Session;
  jobId: string;
}

export function setup(): Setup {
  const session = signIn();
  if (__ENV.JOB_ID) return { session, jobId: __ENV.JOB_ID };
  if (!clips.length) fail('set JOB_ID, or CLIPS so that setup can submit a job to read');
  const jobId = submitJob(session, [upload(session, clips[0]!)], `k6-read-${Date.now()}`);
  return { session, jobId };
}

export default function (data: Setup): void {
  const r = Math.random();
  const headers = authHeaders(data.session);
  if (r < 0.6) {
    check(jobStatus(data.session, data.jobId), { 'status read': (s) => s !== undefined });
  } else if (r < 0.8) {
    const res = http.post(
      `${API}/billing/estimate`,
      JSON.stringify({ pacing_preset: 'standard', has_music: r < 0.7, total_source_bytes: 250_000_000, output_seconds: 60 }),
      { headers: { ...headers, 'content-type': 'application/json' }, tags: { name: 'estimate' } },
    );
    check(res, { 'estimate answered': (x) => x.status === 200 && Number(x.json('credits')) >= 0 });
  } else if (r < 0.95) {
    const res = http.get(`${API}/library?limit=12&offset=0`, { headers, tags: { name: 'library' } });
    check(res, { 'library answered': (x) => x.status === 200 });
  } else if (r < 0.98) {
    const res = http.get(`${API}/billing/catalogue`, { headers, tags: { name: 'catalogue' } });
    check(res, { 'catalogue answered': (x) => x.status === 200 });
  } else {
    const res = http.get(`${API}/health`, { tags: { name: 'health' } });
    check(res, { healthy: (x) => x.status === 200 });
  }
}
