// What a request leaves in the logs and headers: its trace (continued from the caller's
// traceparent, or a new one), the signed-in user on its own lines only, and no secrets.
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { DomainError, ErrorCode, createMetrics, startTracing } from '@reelsmith/kit';
import { capturingLogger } from '@reelsmith/kit/testing';
import { SessionVerifier } from '../../src/domain/sessions';
import { buildHttpApp } from '../../src/transport/http/server';

describe('gateway request logs and trace headers', () => {
  const { log, lines } = capturingLogger('gateway');
  let app: FastifyInstance;
  let base: string;

  beforeAll(async () => {
    startTracing('gateway-test');
    const sessions = new SessionVerifier(
      async (token) => ({
        id: `u-${token.split('-')[0]}`,
        email: `${token.split('-')[0]}@example.com`,
        isAdmin: false,
        isGuest: false,
        unlimited: false,
      }),
      { maxEntries: 10, ttlMs: 60_000 },
    );
    app = await buildHttpApp({
      log,
      metrics: createMetrics('gw_request_logs'),
      webDist: '/nonexistent',
      health: { report: async () => ({ status: 'healthy', services: {}, unavailable: [], instance: 'x' }) },
      sessions,
    });
    app.get('/api/v1/log-test', { config: { access: 'user' } }, async (req) => {
      req.log.info({ step: 'inside' }, 'handler ran');
      return { ok: true };
    });
    app.get('/api/v1/fail-test', { config: { access: 'user' } }, async () => {
      throw new Error('boom');
    });
    // What the gateway's gRPC client makes of a message it cannot encode (an int32 field given 2^31).
    app.get('/api/v1/internal-test', async () => {
      throw new DomainError(ErrorCode.INTERNAL, 'value out of range: 2147483648');
    });
    app.get('/api/v1/unavailable-test', async () => {
      throw new DomainError(ErrorCode.UNAVAILABLE, 'connect ECONNREFUSED 127.0.0.1:50051');
    });
    app.get('/api/v1/sent-503-test', async (_req, reply) => reply.status(503).send({ detail: 'Not serving', code: 'unavailable' }));
    await app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await app.close();
  });

  const records = () => lines.map((l) => JSON.parse(l) as Record<string, unknown>);

  it("continues the caller's trace and writes it on the request's lines with the signed-in user", async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const res = await fetch(`${base}/api/v1/log-test`, {
      headers: {
        authorization: 'Bearer alice-secret-token',
        traceparent: `00-${traceId}-00f067aa0ba902b7-01`,
        'x-request-id': 'req-alice',
      },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-trace-id')).toBe(traceId);
    const line = records().find((r) => r.request_id === 'req-alice' && r.step === 'inside');
    expect(line).toMatchObject({ user_id: 'u-alice', trace_id: traceId, msg: 'handler ran' });
    expect(lines.join('')).not.toContain('secret-token');
  });

  it('starts a new trace per request without a traceparent, and keeps each user on their own lines', async () => {
    const a = await fetch(`${base}/api/v1/log-test`, { headers: { authorization: 'Bearer bob-secret-token', 'x-request-id': 'req-bob' } });
    const b = await fetch(`${base}/api/v1/log-test`, {
      headers: { authorization: 'Bearer carol-secret-token', 'x-request-id': 'req-carol' },
    });
    const ta = a.headers.get('x-trace-id');
    const tb = b.headers.get('x-trace-id');
    expect(ta).toMatch(/^[0-9a-f]{32}$/);
    expect(tb).toMatch(/^[0-9a-f]{32}$/);
    expect(ta).not.toBe(tb);
    const bob = records().find((r) => r.request_id === 'req-bob' && r.step === 'inside');
    const carol = records().find((r) => r.request_id === 'req-carol' && r.step === 'inside');
    expect(bob).toMatchObject({ user_id: 'u-bob', trace_id: ta });
    expect(carol).toMatchObject({ user_id: 'u-carol', trace_id: tb });
    // A later request's line never carries an earlier caller.
    expect(JSON.stringify(carol)).not.toContain('bob');
    expect(lines.join('')).not.toContain('secret-token');
  });

  it('logs a failed request once, at error level, with its cause, route, user, request id and trace', async () => {
    const res = await fetch(`${base}/api/v1/fail-test`, {
      headers: { authorization: 'Bearer dave-secret-token', 'x-request-id': 'req-dave' },
    });
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({ detail: 'Internal server error', code: 'internal' });
    const failed = records().filter((r) => r.request_id === 'req-dave' && r.msg === 'request failed');
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({
      level: 'error',
      route: '/api/v1/fail-test',
      status: 500,
      user_id: 'u-dave',
      trace_id: res.headers.get('x-trace-id'),
      err: { type: 'Error', message: 'boom' },
    });
    expect((failed[0]!.err as { stack: string }).stack).toContain('request-logs.spec');
  });

  it.each([
    ['/api/v1/internal-test', 500, 'value out of range: 2147483648', 'INTERNAL'],
    ['/api/v1/unavailable-test', 503, 'connect ECONNREFUSED 127.0.0.1:50051', 'UNAVAILABLE'],
  ])('logs %s (a peer failing) at error level with the cause the caller never sees', async (url, status, cause, code) => {
    const id = `req-${status}`;
    const res = await fetch(`${base}${url}`, { headers: { 'x-request-id': id } });
    expect(res.status).toBe(status);
    expect(JSON.stringify(await res.json())).not.toContain(cause);
    const failed = records().filter((r) => r.request_id === id && r.msg === 'request failed');
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ level: 'error', status, code, route: url, err: { message: cause } });
  });

  it('logs a 5xx a route sends itself at error level too', async () => {
    const res = await fetch(`${base}/api/v1/sent-503-test`, { headers: { 'x-request-id': 'req-sent' } });
    expect(res.status).toBe(503);
    const failed = records().filter((r) => r.request_id === 'req-sent' && r.msg === 'request failed');
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ level: 'error', status: 503, route: '/api/v1/sent-503-test' });
  });
});
