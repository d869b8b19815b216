// Socket.IO progress subscribers: many browsers follow a few live jobs on /ws (Engine.IO v4 over a
// WebSocket, the web app's transport), behind every gateway replica.
//   k6 run -e BASE_URL=... -e EMAIL=... -e PASSWORD=... -e CLIPS=a.mp4 [-e JOBS=4] \
//     [-e SUBSCRIBERS=500] [-e HOLD_S=120] deploy/k6/dist/socket-progress.js
// setup submits JOBS reels; each subscriber joins one and listens until it ends (or HOLD_S).
import ws from 'k6/ws';
import { check } from 'k6';
import { Counter, Rate, Trend } from 'k6/metrics';
import type { Options } from 'k6/options';
import { BASE_URL, loadClips, signIn, submitJob, upload, type Session } from './lib/api';
import { socketIoClient, socketIoUrl } from './lib/socketio';

const clips = loadClips();
const joinToStatus = new Trend('socketio_join_to_status_ms', true);
const handshake = new Trend('socketio_handshake_ms', true);
const updates = new Counter('socketio_job_updates');
const sawEnd = new Rate('socketio_saw_job_end');
const errors = new Counter('socketio_errors');

const subscribers = Number(__ENV.SUBSCRIBERS || 200);
export const options: Options = {
  scenarios: {
    subscribers: {
      executor: 'per-vu-iterations',
      vus: subscribers,
      iterations: 1,
      maxDuration: `${Number(__ENV.HOLD_S || 120) + 60}s`,
    },
  },
  thresholds: {
    socketio_handshake_ms: ['p(95)<1000'],
    socketio_join_to_status_ms: ['p(95)<250'],
    socketio_saw_job_end: ['rate>0.99'],
    socketio_errors: ['count<1'],
    ws_connecting: ['p(95)<1000'],
  },
};

interface Setup {
  session: Session;
  jobs: string[];
}

export function setup(): Setup {
  if (!clips.length) throw new Error('set CLIPS to a small video file');
  const session = signIn();
  const key = upload(session, clips[0]!);
  const jobs = Array.from({ length: Number(__ENV.JOBS || 4) }, (_, i) => submitJob(session, [key], `k6-socket-${Date.now()}-${i}`));
  return { session, jobs };
}

export default function (data: Setup): void {
  const jobId = data.jobs[(__VU - 1) % data.jobs.length]!;
  const opened = Date.now();
  let joinedAt = 0;
  let ended = false;
  // A browser on the product's own origin (the gateway accepts it, and clients without an Origin).
  const res = ws.connect(socketIoUrl(BASE_URL), { headers: { Origin: BASE_URL } }, (socket) => {
    const client = socketIoClient(
      (f) => socket.send(f),
      { token: data.session.token },
      {
        connected() {
          handshake.add(Date.now() - opened);
          joinedAt = Date.now();
          client.emit('join', jobId);
        },
        refused() {
          errors.add(1, { kind: 'connect_error' });
          socket.close();
        },
        event(name, payload) {
          if (name === 'job_status' && joinedAt) {
            joinToStatus.add(Date.now() - joinedAt);
            joinedAt = 0;
          } else if (name === 'job_update') updates.add(1);
          else if (name === 'job_error') errors.add(1, { kind: 'job_error' });
          const status = (payload as { data?: { status?: string } } | undefined)?.data?.status;
          if (status === 'completed' || status === 'failed') {
            ended = true;
            socket.close();
          }
        },
      },
    );
    socket.on('message', (frame: string) => client.receive(frame));
    socket.on('error', () => errors.add(1, { kind: 'socket' }));
    socket.setTimeout(() => socket.close(), Number(__ENV.HOLD_S || 120) * 1000);
  });
  check(res, { 'socket upgraded': (r) => r !== null && r.status === 101 });
  sawEnd.add(ended);
}
