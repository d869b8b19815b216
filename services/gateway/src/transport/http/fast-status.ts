import { Buffer } from 'node:buffer';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { extractTrace, startSpan } from '@reelsmith/kit';
import { finishedCacheControl, notModified, type FinishedJobs } from '../../domain/finished-jobs.js';
import type { SessionVerifier } from '../../domain/sessions.js';
import { bearer } from './auth.js';
import { API_PREFIX } from './contract.js';

/** The route template a poll of a job's status is counted under (metrics, request counts, spans). */
export const STATUS_ROUTE = `${API_PREFIX}/jobs/:id/status`;
const HEAD = `${API_PREFIX}/jobs/`;
const TAIL = '/status';
/** A job id is a UUID: 36 characters. */
const URL_LENGTH = HEAD.length + 36 + TAIL.length;

export interface FinishedStatusDeps {
  sessions: Pick<SessionVerifier, 'cached' | 'countHit'>;
  finished: Pick<FinishedJobs, 'get' | 'holds'>;
  /** The API's security headers (apiSecurityHeaders), in the order the app sets them. */
  securityHeaders: ReadonlyArray<readonly [string, string]>;
  /** The request id the app gives a request (the caller's X-Request-Id when it is safe). */
  requestId(req: IncomingMessage): string;
  observe(statusCode: number, elapsedMs: number): void;
  /** False once the app is closing: every request then goes through the app (503 while closing). */
  open(): boolean;
}

/**
 * The poll every client repeats, answered before the framework's routing: GET
 * /api/v1/jobs/{id}/status of a finished job whose view this replica holds, by a signed-in user
 * whose session this replica has verified. The answer is the route's own, byte for byte (the same
 * view, ETag, Cache-Control, 304 on a matching If-None-Match, the API's security headers, request
 * and trace ids, the request in the metrics and the dashboard's counts); what it skips is the
 * framework's hook chain, which for this answer did nothing but cost (no body, no rate limit, no
 * call to another service). Anything else (a query string, HEAD, an API key, an unverified or
 * unknown session, a job not in the cache, another owner's job) returns false and goes through the
 * app as before, so every rule of the route still holds there.
 */
export function finishedStatusFastPath(deps: FinishedStatusDeps): (req: IncomingMessage, res: ServerResponse) => boolean {
  return (req, res) => {
    const start = performance.now();
    const url = req.url;
    if (req.method !== 'GET' || url === undefined || url.length !== URL_LENGTH || !url.startsWith(HEAD) || !url.endsWith(TAIL))
      return false;
    const jobId = url.slice(HEAD.length, HEAD.length + 36);
    // A live job's poll (no view held) goes on before the session is even looked up.
    if (!deps.finished.holds(jobId) || !deps.open()) return false;
    const token = bearer(req);
    // Not counted in the session cache's metrics unless answered here: the auth hook looks it up again.
    const caller = token ? deps.sessions.cached(token, false) : undefined;
    // An API key's call goes through the app: its scope and its own rate limit are checked there.
    if (!caller || caller.apiKey) return false;
    const s = deps.finished.get(jobId, caller.id);
    if (!s) return false;
    deps.sessions.countHit();
    const { span } = startSpan(`GET ${STATUS_ROUTE}`, extractTrace(req.headers as Record<string, string>));
    const headers: string[] = ['x-request-id', deps.requestId(req), 'x-trace-id', span.spanContext().traceId];
    for (const [name, value] of deps.securityHeaders) headers.push(name, value);
    headers.push('etag', s.etag, 'cache-control', finishedCacheControl(s));
    let status = 200;
    if (notModified(req.headers['if-none-match'], s.etag)) {
      status = 304;
      res.writeHead(304, headers);
      res.end();
    } else {
      headers.push('content-type', 'application/json; charset=utf-8', 'content-length', String(Buffer.byteLength(s.json)));
      res.writeHead(200, headers);
      res.end(s.json);
    }
    deps.observe(status, performance.now() - start);
    span.end();
    return true;
  };
}
