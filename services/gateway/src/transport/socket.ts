import type { Server as HttpServer } from 'node:http';
import { Server, type Socket } from 'socket.io';
import type { Bus, Logger, ObjectStore } from '@reelsmith/kit';
import type { Peers } from '../repositories/clients.js';

export interface SocketDeps {
  log: Logger;
  /** Origins allowed to connect; anything else is refused at the handshake. */
  allowedOrigins: string[];
  peers?: Peers;
  bus?: Bus;
  store?: ObjectStore;
}

interface JobData {
  status: string;
  progress: number;
  message: string;
  download_url: string | null;
}

/**
 * Socket.IO on the gateway, path /ws. A client connects with its session token
 * (`auth: { token }`) and the job it follows (`query: { job_id }`): the spec's /ws/jobs/{id}.
 * Only the job's owner joins its room. Progress arrives from NATS (jobs.<id>.progress) on every
 * gateway replica and goes to that replica's sockets as `job_update`; `job_status` carries the
 * full status (with the download link when complete). Messages are { type, data }.
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

  const status = async (jobId: string, ownerId: string): Promise<JobData> => {
    const job = await deps.peers!.jobs.getJob({ jobId, ownerId });
    const name = (JSON.parse(job.requestJson) as { output_filename?: string }).output_filename ?? 'reel_output.mp4';
    return {
      status: job.status,
      progress: job.progress,
      message: job.message,
      download_url:
        job.status === 'completed' && job.outputKey && deps.store
          ? await deps.store.signedUrl(job.outputKey, { expiresInSeconds: 3600, downloadName: name })
          : null,
    };
  };

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

  const join = async (socket: Socket, jobId: unknown) => {
    const userId = socket.data.userId as string | undefined;
    if (typeof jobId !== 'string' || !/^[0-9a-f-]{36}$/i.test(jobId) || !userId || !deps.peers) {
      socket.emit('job_error', { type: 'job_error', data: { detail: 'Not allowed to follow this job.' } });
      return;
    }
    try {
      const data = await status(jobId, userId); // NOT_FOUND for someone else's job
      await socket.join(`job:${jobId}`);
      socket.data.jobs = { ...(socket.data.jobs as Record<string, string> | undefined), [jobId]: userId };
      socket.emit('job_status', { type: 'job_status', data: { job_id: jobId, ...data } });
    } catch {
      socket.emit('job_error', { type: 'job_error', data: { detail: 'Not allowed to follow this job.' } });
    }
  };

  io.on('connection', (socket) => {
    socket.on('ping', (ack?: (m: string) => void) => (typeof ack === 'function' ? ack('pong') : socket.emit('pong')));
    socket.on('join', (jobId: unknown) => void join(socket, jobId));
    const q = socket.handshake.query.job_id;
    if (q) void join(socket, q);
  });

  deps.bus?.subscribeProgress((m) => {
    const room = `job:${m.jobId}`;
    if (!io.sockets.adapter.rooms.has(room)) return;
    io.to(room).emit('job_update', {
      type: 'job_update',
      data: { job_id: m.jobId, status: m.status, progress: m.progress, message: m.message },
    });
    if (m.status === 'completed' || m.status === 'failed') {
      // The final word, with the download link, once the orchestrator has recorded it.
      const owner = [...(io.sockets.adapter.rooms.get(room) ?? [])]
        .map((id) => (io.sockets.sockets.get(id)?.data.jobs as Record<string, string> | undefined)?.[m.jobId])
        .find(Boolean);
      if (!owner) return;
      const send = async (tries: number): Promise<void> => {
        const data = await status(m.jobId, owner);
        if (data.status === 'processing' && tries > 0) {
          await new Promise((r) => setTimeout(r, 300));
          return send(tries - 1);
        }
        io.to(room).emit('job_status', { type: 'job_status', data: { job_id: m.jobId, ...data } });
      };
      send(20).catch((e: unknown) => deps.log.warn({ err: e, job_id: m.jobId }, 'final status not sent'));
    }
  });
  return io;
}
