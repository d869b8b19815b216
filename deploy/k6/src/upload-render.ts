// Upload and render: each iteration uploads small clips, submits a reel and follows it to the
// end over REST, as a user with the job card open would.
//   k6 run -e BASE_URL=... -e EMAIL=... -e PASSWORD=... -e CLIPS=a.mp4,b.mp4,c.mp4 \
//     [-e VUS=5] [-e ITERATIONS=20] [-e RENDER_TIMEOUT_S=300] deploy/k6/dist/upload-render.js
// Jobs cost credits: use the guest pass account or one with enough credits.
import exec from 'k6/execution';
import { Counter, Rate, Trend } from 'k6/metrics';
import type { Options } from 'k6/options';
import { loadClips, signIn, submitJob, upload, waitForJob, type Session } from './lib/api';

const clips = loadClips();
const uploadSeconds = new Trend('upload_seconds');
const jobSeconds = new Trend('job_seconds');
const jobsCompleted = new Rate('jobs_completed');
const jobsFailed = new Counter('jobs_failed');

export const options: Options = {
  scenarios: {
    makers: {
      executor: 'shared-iterations',
      vus: Number(__ENV.VUS || 3),
      iterations: Number(__ENV.ITERATIONS || 9),
      maxDuration: __ENV.MAX_DURATION || '20m',
    },
  },
  thresholds: {
    jobs_completed: ['rate>0.95'],
    job_seconds: ['p(95)<180'],
    upload_seconds: ['p(95)<10'],
    'http_req_failed{name:upload}': ['rate<0.01'],
    'http_req_failed{name:assemble}': ['rate<0.01'],
    'http_req_duration{name:status}': ['p(99)<250'],
  },
};

export function setup(): Session {
  if (!clips.length) throw new Error('set CLIPS to a few small video files');
  return signIn();
}

export default function (session: Session): void {
  const started = Date.now();
  const keys = clips.slice(0, 3).map((c) => upload(session, c));
  uploadSeconds.add((Date.now() - started) / 1000);
  const submitted = Date.now();
  const jobId = submitJob(session, keys, `k6-render-${exec.scenario.iterationInTest}-${started}`);
  const end = waitForJob(session, jobId, Number(__ENV.RENDER_TIMEOUT_S || 300));
  const ok = end?.status === 'completed' && !!end.download_url;
  jobsCompleted.add(ok);
  if (ok) jobSeconds.add((Date.now() - submitted) / 1000);
  else jobsFailed.add(1, { last_status: end?.status ?? 'unknown' });
}
