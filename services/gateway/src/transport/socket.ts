import type { Server as HttpServer } from 'node:http';
import { Server, type Socket } from 'socket.io';
import type { Bus, Logger } from '@reelsmith/kit';
import type { JobStatusViews } from '../domain/job-status.js';
import type { Peers } from '../repositories/clients.js';
import { jobStatusFacts } from '../repositories/jobs.js';

export interface SocketDeps {
  log: Logger;
  /** Origins allowed to connect; anything else is refused at the handshake. */
  allowedOrigins: string[];
  peers?: Peers;
  bus?: Bus;
  views?: JobStatusViews;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Socket.IO on the gateway, path /ws. A client connects with its session token
 * (`auth: { token }`) and the job it follows (`query: { job_id }`): the spec's /ws/jobs/{id}.
 * Only the job's owner joins its room; on joining it gets `job_status` with the job's status.
 * Every status change the orchestrator records arrives from NATS (jobs.<id>.status) on every
 * gateway replica and goes to that replica's sockets in the job's room as `job_update`, through
 * the same view as GET /jobs/{id}/status. Messages are { type, data }.
 */
export function mountSocket(server: HttpServer, deps: SocketDeps): Server {
  const io = new Server(server, {
    path: '/ws',
    serveClient: false,
    allowRequest: (req, cb) => {
      const origin = req.headers.origin;
      // Non-browser clients send no Origin; browsers must come from an allowed one.
      cb(null, !origin || deps.allowedOrigins.includes(origin));
    },
  });

  if (deps.peers) {
    io.use((socket, next) => {
      const token = (socket.handshake.auth as { token?: string } | undefined)?.token;
      if (!token) return next(); // anonymous sockets may ping but join nothing
      deps.peers!.identity.authenticate({ sessionToken: token }).then(
        ({ user }) => {
          socket.data.userId = user?.id;
          next();
        },
        () => next(new Error('unauthorized')),
      );
    });
  }

  const refuse = (socket: Socket) => socket.emit('job_error', { type: 'job_error', data: { detail: 'Not allowed to follow this job.' } });

  const join = async (socket: Socket, jobId: unknown) => {
    const userId = socket.data.userId as string | undefined;
    if (typeof jobId !== 'string' || !UUID.test(jobId) || !userId || !deps.peers || !deps.views) return refuse(socket);
    try {
      const job = await deps.peers.jobs.getJob({ jobId, ownerId: userId }); // NOT_FOUND for someone else's job
      await socket.join(`job:${jobId}`);
      socket.emit('job_status', { type: 'job_status', data: await deps.views.view(jobStatusFacts(job)) });
    } catch {
      refuse(socket);
    }
  };

  io.on('connection', (socket) => {
    socket.on('ping', (ack?: (m: string) => void) => (typeof ack === 'function' ? ack('pong') : socket.emit('pong')));
    socket.on('join', (jobId: unknown) => void join(socket, jobId));
    const q = socket.handshake.query.job_id;
    if (q) void join(socket, q);
  });

  deps.bus?.subscribeJobStatus((m) => {
    const room = `job:${m.jobId}`;
    if (!deps.views || !io.sockets.adapter.rooms.has(room)) return;
    deps.views.view(jobStatusFacts(m)).then(
      (data) => io.to(room).emit('job_update', { type: 'job_update', data }),
      (e: unknown) => deps.log.warn({ err: e, job_id: m.jobId }, 'job status not forwarded'),
    );
  });
  return io;
}
