import { DomainError, ErrorCode, isDomainError, loggableError } from '@reelsmith/kit';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';

/** gRPC/domain code -> HTTP status, in one place. */
const httpStatus: Record<ErrorCode, number> = {
  INVALID_ARGUMENT: 400,
  UNAUTHENTICATED: 401,
  PERMISSION_DENIED: 403,
  NOT_FOUND: 404,
  ALREADY_EXISTS: 409,
  FAILED_PRECONDITION: 409,
  RESOURCE_EXHAUSTED: 429,
  PAYLOAD_TOO_LARGE: 413,
  UNAVAILABLE: 503,
  DEADLINE_EXCEEDED: 504,
  INTERNAL: 500,
};
/** Reasons that deserve a more precise status than their code's. */
const reasonStatus: Record<string, number> = { insufficient_credits: 402, email_not_verified: 403, idempotency_mismatch: 422 };

export interface ErrorBody {
  detail: string;
  code: string;
}

export function toHttp(e: DomainError): { status: number; body: ErrorBody } {
  const status = (e.reason && reasonStatus[e.reason]) || httpStatus[e.code] || 500;
  // 5xx details are not shown: they describe our faults (and addresses), not the caller's.
  if (status === 503 || status === 504) return { status, body: { detail: UNAVAILABLE_DETAIL, code: 'unavailable' } };
  const detail = status >= 500 ? 'Internal server error' : e.message;
  return { status, body: { detail, code: e.reason ?? e.code.toLowerCase() } };
}

export const UNAVAILABLE_DETAIL = 'Service temporarily unavailable, please retry';
/** Seconds a client should wait before retrying a 503/504. */
export const RETRY_AFTER_SECONDS = 5;

/**
 * Validation messages that mirror a service's rule, with the service's reason: when a request
 * breaks one, the answer is the service's own `{detail, code}` (the gateway now refuses it first).
 */
const MIRRORED = new Map<string, string>();
/** `message`, answered with `code` when it is a request's first problem. */
export const mirrored = (message: string, code: string): string => {
  MIRRORED.set(message, code);
  return message;
};

/** Requests whose 5xx the error handler has logged (the response hook logs the others). */
const failureLogged = new WeakSet<object>();
export const isFailureLogged = (req: FastifyRequest) => failureLogged.has(req);

export function errorHandler(error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply): void {
  let domain: DomainError;
  if (isDomainError(error)) domain = error;
  else if ((error as FastifyError).validation) {
    const first = (error as FastifyError).validation![0]?.message;
    const code = first === undefined ? undefined : MIRRORED.get(first);
    domain =
      code && first
        ? new DomainError(ErrorCode.INVALID_ARGUMENT, first, code)
        : new DomainError(ErrorCode.INVALID_ARGUMENT, error.message, 'invalid_request');
  } else if ((error as FastifyError).statusCode === 413)
    domain = new DomainError(ErrorCode.PAYLOAD_TOO_LARGE, 'Request body too large', 'payload_too_large');
  else if ((error as FastifyError).statusCode && (error as FastifyError).statusCode! < 500)
    domain = new DomainError(ErrorCode.INVALID_ARGUMENT, error.message, (error as FastifyError).code?.toLowerCase());
  else domain = new DomainError(ErrorCode.INTERNAL, 'internal');
  const { status, body } = toHttp(domain);
  if (status >= 500) {
    // Every 5xx is logged at error level with its cause (a bug's stack, a peer's address, a
    // timeout) and the request id (the request's logger carries it); the caller never sees it.
    request.log.error(
      { err: loggableError(error), status, code: domain.code, reason: domain.reason, route: request.routeOptions.url ?? 'unmatched' },
      'request failed',
    );
    failureLogged.add(request);
  }
  if (status === 503 || status === 504) void reply.header('retry-after', String(RETRY_AFTER_SECONDS));
  void reply.status(status).send(body);
}

/**
 * Fastify's `clientErrorHandler`: a request Node's HTTP parser refuses before any route sees it
 * (a head over 16 KB, such as a long query string: 431; a malformed request: 400; a client too
 * slow to send its head: 408) answers `{detail, code}` like every other error, then the
 * connection closes.
 */
export function clientErrorHandler(err: NodeJS.ErrnoException, socket: import('node:stream').Duplex): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, text, body]: [number, string, ErrorBody] =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? [
          431,
          'Request Header Fields Too Large',
          { detail: 'The request head (address and headers) is too large.', code: 'header_too_large' },
        ]
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'Request Timeout', { detail: 'The request took too long to arrive.', code: 'request_timeout' }]
        : [400, 'Bad Request', { detail: 'The request is not valid HTTP.', code: 'bad_request' }];
  const json = JSON.stringify(body);
  if (socket.writable)
    socket.write(
      `HTTP/1.1 ${status} ${text}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(json)}\r\nConnection: close\r\n\r\n${json}`,
    );
  socket.destroy(err);
}
