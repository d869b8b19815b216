import { Writable } from 'node:stream';
import { createLogger } from '../../src/logger';

function capture() {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _enc, cb) {
      lines.push(chunk.toString());
      cb();
    },
  });
  return { lines, destination: destination as unknown as import('pino').DestinationStream };
}

describe('logger', () => {
  it('never writes a nested password or token, at any depth', () => {
    const { lines, destination } = capture();
    const log = createLogger({ service: 'test', destination });
    log.info(
      {
        user: { email: 'a@b.c', password: 'hunter2', profile: { deep: [{ session_token: 'abc123secret' }] } },
        headers: { authorization: 'Bearer xyz789' },
      },
      'hello',
    );
    const out = lines.join('');
    expect(out).toContain('a@b.c');
    expect(out).not.toContain('hunter2');
    expect(out).not.toContain('abc123secret');
    expect(out).not.toContain('xyz789');
    expect(out).toContain('[redacted]');
  });

  it('redacts child bindings and error properties too', () => {
    const { lines, destination } = capture();
    const log = createLogger({ service: 'test', destination }).child({ request_id: 'r1', auth: { token: 'tok-42-secret' } });
    const err = Object.assign(new Error('boom'), { config: { apiKey: 'k-777-secret' } });
    log.error({ err }, 'failed');
    const out = lines.join('');
    expect(out).toContain('r1');
    expect(out).toContain('boom');
    expect(out).not.toContain('tok-42-secret');
    expect(out).not.toContain('k-777-secret');
  });

  it('redacts the bindings of grandchildren (a request logger of a component logger)', () => {
    const { lines, destination } = capture();
    const log = createLogger({ service: 'test', destination }).child({ component: 'http' }).child({ request_id: 'r2' });
    log.child({ user_id: 'u1', session_token: 'sess-99-secret', nested: { password: 'pw-55-secret' } }).info('x');
    const out = lines.join('');
    expect(JSON.parse(lines[0]!)).toMatchObject({ component: 'http', request_id: 'r2', user_id: 'u1', session_token: '[redacted]' });
    expect(out).not.toContain('sess-99-secret');
    expect(out).not.toContain('pw-55-secret');
  });

  it('carries the service name and child fields as JSON fields', () => {
    const { lines, destination } = capture();
    createLogger({ service: 'billing', destination }).child({ job_id: 'j1' }).info('x');
    const rec = JSON.parse(lines[0]!);
    expect(rec).toMatchObject({ service: 'billing', job_id: 'j1', level: 'info', msg: 'x' });
  });
});
