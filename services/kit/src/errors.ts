/**
 * Domain errors carry a code from one closed set. Services raise them; the gRPC layer maps each
 * code to a gRPC status once, and the gateway maps the status to HTTP once.
 */
export const ErrorCode = {
  INVALID_ARGUMENT: 'INVALID_ARGUMENT',
  UNAUTHENTICATED: 'UNAUTHENTICATED',
  PERMISSION_DENIED: 'PERMISSION_DENIED',
  NOT_FOUND: 'NOT_FOUND',
  ALREADY_EXISTS: 'ALREADY_EXISTS',
  FAILED_PRECONDITION: 'FAILED_PRECONDITION',
  RESOURCE_EXHAUSTED: 'RESOURCE_EXHAUSTED',
  PAYLOAD_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  UNAVAILABLE: 'UNAVAILABLE',
  DEADLINE_EXCEEDED: 'DEADLINE_EXCEEDED',
  INTERNAL: 'INTERNAL',
} as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

// The engine's EngineError has this shape too, on purpose: the engine stands alone, without the kit.
export class DomainError extends Error {
  override readonly name = 'DomainError';
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** A stable machine-readable reason for clients to branch on, e.g. `insufficient_credits`. */
    readonly reason?: string,
  ) {
    super(message);
  }
}

export const isDomainError = (e: unknown): e is DomainError => e instanceof DomainError;
