import type { Server as HttpServer } from 'node:http';
import { Server, type Socket } from 'socket.io';
import { ErrorCode, isDomainError, type Bus, type Logger } from '@reelsmith/kit';
import { checkApiKeyAccess } from '../domain/api-access.js';
import type { JobStatusViews } from '../domain/job-status.js';
import type { LiveJobs } from '../domain/live-jobs.js';
import { SESSION_CACHE_DEFAULTS, SessionVerifier, tokenHash } from '../domain/sessions.js';
import { verifyWithIdentity } from '../repositories/sessions.js';
import type { Peers } from '../repositories/clients.js';
import { jobStatusFacts } from '../repositories/jobs.js';

export interface SocketDeps {
  log: Logger;
  /** Origins allowed to connect besides the gateway's own (as the browser reached it); anything else is refused at the handshake. */
  allowedOrigins: string[];
  peers?: Peers;
  /** The session cache shared with the HTTP routes; required with `peers`. */
  sessions?: SessionVerifier;
  /** Status of live jobs heard from the orchestrator: a join needs no gRPC call when the job is there. */
  live?: LiveJobs;
  bus?: Bus;
  views?: JobStatusViews;
  /** How often every socket's session is checked again, so a session ended elsewhere drops its sockets. */
  revalidateMs?: number;
}

/** A socket of an ended session is dropped within this long on replicas that did not end it. */
export const REVALIDATE_MS = 60_000;

/** Each HTTP server's socket layer, so a route on that server can end a session's sockets. */
const sessionEnders = new WeakMap<HttpServer, (token: string) => number>();
const revokers = new WeakMap<HttpServer, (tokenHashes: readonly string[], userId?: string) => number>();

/** Disconnects this replica's sockets of revoked sessions (a `sessions.revoked` message); returns how many. */
export function revokeSessionSockets(server: HttpServer, tokenHashes: readonly string[], userId?: string): number {
  return revokers.get(server)?.(tokenHashes, userId) ?? 0;
}

/** How long a client told `busy` should wait before trying again, spread so retries do not arrive together. */
export const BUSY_RETRY_MS = 2000;

/**
 * Whether a browser at `origin` may open the socket: the listed origins, or the gateway's own host
 * as the browser reached it (same-origin: http://127.0.0.1:8080 as well as http://localhost:8080).
 */
export function originAllowed(origin: string | undefined, host: string | undefined, allowed: readonly string[]): boolean {
  if (!origin) return true; // non-browser clients send no Origin
  if (allowed.includes(origin)) return true;
  try {
    const u = new URL(origin);
    return (u.protocol === 'http:' || u.protocol === 'https:') && !!host && u.host === host.toLowerCase();
  } catch {
    return false;
  }
}

/**
 * Disconnects the sockets this replica holds for `token` (the HTTP route that ended the session
 * runs on the same server); returns how many. Other replicas drop theirs at their next check.
 */
export function endSessionSockets(server: HttpServer, token: string): number {
  return token ? (sessionEnders.get(server)?.(token) ?? 0) : 0;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Socket.IO on the gateway, path /ws. A client connects with its session token
 * (`auth: { token }`) and the job it follows (`query: { job_id }`): the spec's /ws/jobs/{id}.
 * Only the job's owner joins its room; on joining it gets `job_status` with the job's status.
 * Every status change the orchestrator records arrives from NATS (jobs.<id>.status) on every
 * gateway replica and goes to that replica's sockets in the job's room as `job_update`, through
 * the same view as GET /jobs/{id}/status. Messages are { type, data }.
 * A socket lives no longer than its session: logout on this replica disconnects it at once
 * (endSessionSockets), and every `revalidateMs` each session is checked again with identity, so
 * a logout, expiry or revocation seen by any replica drops the socket here too.
 */
export function mountSocket(server: HttpServer, deps: SocketDeps): Server {
  const io = new Server(server, {
    path: '/ws',
    serveClient: false,
    allowRequest: (req, cb) => cb(null, originAllowed(req.headers.origin, req.headers.host, deps.allowedOrigins)),
  });

  /** Signed-in sockets by session token, and the token of each hash. */
  const bySession = new Map<string, Set<Socket>>();
  const tokenOfHash = new Map<string, string>();
  const track = (token: string, socket: Socket) => {
    const set = bySession.get(token) ?? new Set<Socket>();
    if (!set.size) tokenOfHash.set(tokenHash(token), token);
    bySession.set(token, set.add(socket));
    socket.once('disconnect', () => {
      set.delete(socket);
      if (!set.size && bySession.get(token) === set) {
        bySession.delete(token);
        tokenOfHash.delete(tokenHash(token));
      }
    });
  };
  const end = (token: string): number => {
    const sockets = [...(bySession.get(token) ?? [])];
    bySession.delete(token);
    for (const socket of sockets) socket.disconnect(true);
    return sockets.length;
  };
  sessionEnders.set(server, end);
  revokers.set(server, (hashes, userId) => {
    let n = 0;
    for (const h of hashes) {
      const token = tokenOfHash.get(h);
      if (token) n += end(token);
    }
    if (userId) for (const [token, sockets] of [...bySession]) if ([...sockets].some((s) => s.data.userId === userId)) n += end(token);
    return n;
  });

  if (deps.peers) {
    const identity = deps.peers.identity;
    const sessions = deps.sessions ?? new SessionVerifier(verifyWithIdentity(deps.peers), SESSION_CACHE_DEFAULTS);
    // 'unauthorized' only when identity said the token is invalid; when it is slow, overloaded
    // or unreachable the client hears 'busy' with a retry hint and keeps its session.
    io.use((socket, next) => {
      const token = (socket.handshake.auth as { token?: string } | undefined)?.token;
      if (!token || typeof token !== 'string') return next(); // anonymous sockets may ping but join nothing
      sessions.verify(token).then(
        (caller) => {
          if (!caller) return next(new Error('unauthorized'));
          // An API key follows jobs only as GET /jobs/{id}/status allows it: jobs:read, on a plan with API access.
          if (caller.apiKey)
            try {
              checkApiKeyAccess(caller.apiKey, 'GET', '/jobs/:id/status', 'user');
            } catch (e) {
              const forbidden = new Error('forbidden') as Error & { data?: unknown };
              if (isDomainError(e)) forbidden.data = { code: e.reason, detail: e.message };
              return next(forbidden);
            }
          socket.data.userId = caller.id;
          track(token, socket);
          next();
        },
        () => {
          const busy = new Error('busy') as Error & { data?: unknown };
          busy.data = { retry_after_ms: Math.round(BUSY_RETRY_MS * (1 + Math.random())) };
          next(busy);
        },
      );
    });

    // One check per session, not per socket. Only a refused session drops sockets: an identity outage keeps them.
    let checking = false;
    const revalidate = async () => {
      if (checking) return;
      checking = true;
      try {
        for (const token of [...bySession.keys()]) {
          try {
            await identity.authenticate({ sessionToken: token });
          } catch (e) {
            if (!isDomainError(e) || e.code !== ErrorCode.UNAUTHENTICATED) {
              deps.log.warn({ err: e }, 'could not re-check socket sessions; trying again at the next check');
              return;
            }
            deps.log.info({ sockets: end(token) }, 'sockets of an ended session disconnected');
          }
        }
      } finally {
        checking = false;
      }
    };
    const timer = setInterval(() => void revalidate(), deps.revalidateMs ?? REVALIDATE_MS);
    timer.unref();
    server.once('close', () => clearInterval(timer));
  }

  const refuse = (socket: Socket) => socket.emit('job_error', { type: 'job_error', data: { detail: 'Not allowed to follow this job.' } });

  const join = async (socket: Socket, jobId: unknown) => {
    const userId = socket.data.userId as string | undefined;
    if (typeof jobId !== 'string' || !UUID.test(jobId) || !userId || !deps.peers || !deps.views) return refuse(socket);
    try {
      // A live job the gateway has heard of is known with its owner; otherwise the orchestrator
      // answers (NOT_FOUND for someone else's job).
      let facts = deps.live?.get(jobId, userId);
      if (!facts) {
        facts = jobStatusFacts(await deps.peers.jobs.getJob({ jobId, ownerId: userId }));
        deps.live?.fetched(userId, facts);
      }
      await socket.join(`job:${jobId}`);
      socket.emit('job_status', { type: 'job_status', data: await deps.views.view(facts) });
    } catch (e) {
      if (isDomainError(e) && (e.code === ErrorCode.UNAVAILABLE || e.code === ErrorCode.DEADLINE_EXCEEDED))
        // Not a refusal: the orchestrator was busy. The client asks to join again after the hint.
        return socket.emit('job_error', {
          type: 'job_error',
          data: {
            detail: 'Service temporarily unavailable, please retry',
            code: 'busy',
            retry_after_ms: Math.round(BUSY_RETRY_MS * (1 + Math.random())),
          },
        });
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
