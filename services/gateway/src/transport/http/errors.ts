import { DomainError, ErrorCode, isDomainError } from '@reelsmith/kit';
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

export function errorHandler(error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply): void {
  let domain: DomainError;
  if (isDomainError(error)) domain = error;
  else if ((error as FastifyError).validation) domain = new DomainError(ErrorCode.INVALID_ARGUMENT, error.message, 'invalid_request');
  else if ((error as FastifyError).statusCode === 413)
    domain = new DomainError(ErrorCode.PAYLOAD_TOO_LARGE, 'Request body too large', 'payload_too_large');
  else if ((error as FastifyError).statusCode && (error as FastifyError).statusCode! < 500)
    domain = new DomainError(ErrorCode.INVALID_ARGUMENT, error.message, (error as FastifyError).code?.toLowerCase());
  else {
    request.log.error({ err: error }, 'request failed');
    domain = new DomainError(ErrorCode.INTERNAL, 'internal');
  }
  const { status, body } = toHttp(domain);
  if (status === 503 || status === 504) {
    // The cause (a peer's address, a timeout) goes to the log, never to the caller.
    request.log.warn({ err: domain, code: domain.code }, 'a service the request needs did not answer');
    void reply.header('retry-after', String(RETRY_AFTER_SECONDS));
  }
  void reply.status(status).send(body);
}
