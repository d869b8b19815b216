import { DomainError, ErrorCode } from '@reelsmith/kit';
import { toHttp } from '../../src/transport/http/errors';
import { rollUp } from '../../src/domain/health';

describe('error mapping to HTTP', () => {
  it.each([
    [ErrorCode.INVALID_ARGUMENT, 400],
    [ErrorCode.UNAUTHENTICATED, 401],
    [ErrorCode.PERMISSION_DENIED, 403],
    [ErrorCode.NOT_FOUND, 404],
    [ErrorCode.ALREADY_EXISTS, 409],
    [ErrorCode.RESOURCE_EXHAUSTED, 429],
    [ErrorCode.PAYLOAD_TOO_LARGE, 413],
  ])('%s -> %i with the detail shown', (code, status) => {
    expect(toHttp(new DomainError(code, 'what went wrong'))).toEqual({
      status,
      body: { detail: 'what went wrong', code: code.toLowerCase() },
    });
  });

  it('uses the reason as the code and 402 for insufficient credits', () => {
    expect(
      toHttp(new DomainError(ErrorCode.RESOURCE_EXHAUSTED, 'Insufficient credits or daily limit reached', 'insufficient_credits')),
    ).toEqual({
      status: 402,
      body: { detail: 'Insufficient credits or daily limit reached', code: 'insufficient_credits' },
    });
  });

  it('answers an outage with a plain retry message, never the peer address the cause names', () => {
    for (const [code, status] of [
      [ErrorCode.UNAVAILABLE, 503],
      [ErrorCode.DEADLINE_EXCEEDED, 504],
    ] as const)
      expect(toHttp(new DomainError(code, 'connect ECONNREFUSED 127.0.0.1:37821'))).toEqual({
        status,
        body: { detail: 'Service temporarily unavailable, please retry', code: 'unavailable' },
      });
  });

  it('answers 422 to an Idempotency-Key reused with another request', () => {
    expect(toHttp(new DomainError(ErrorCode.FAILED_PRECONDITION, 'used for a different request', 'idempotency_mismatch')).status).toBe(422);
  });

  it('never shows the detail of an internal error', () => {
    expect(toHttp(new DomainError(ErrorCode.INTERNAL, 'db password wrong at 10.0.0.3'))).toEqual({
      status: 500,
      body: { detail: 'Internal server error', code: 'internal' },
    });
  });
});

describe('health roll-up', () => {
  it('is healthy only when every service is SERVING and names the others', () => {
    expect(rollUp({ gateway: 'SERVING', identity: 'SERVING' })).toEqual({
      status: 'healthy',
      services: { gateway: 'SERVING', identity: 'SERVING' },
      unavailable: [],
    });
    expect(rollUp({ gateway: 'SERVING', identity: 'NOT_SERVING', billing: 'UNKNOWN' }).unavailable).toEqual(['identity', 'billing']);
  });
});
