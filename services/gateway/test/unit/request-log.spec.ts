import { Writable } from 'node:stream';
import { createLogger, type Logger } from '@reelsmith/kit';
import { RequestLogger } from '../../src/transport/http/request-log';

function capture(level = 'info') {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(JSON.parse(String(chunk)) as Record<string, unknown>);
      done();
    },
  });
  const root = createLogger({ service: 'test', level, destination: stream });
  let children = 0;
  const child = root.child.bind(root);
  root.child = ((...a: Parameters<Logger['child']>) => {
    children += 1;
    return child(...a);
  }) as Logger['child'];
  return { root, lines, children: () => children };
}

const flush = () => new Promise((r) => setImmediate(r));

describe("a request's logger", () => {
  it('makes no pino child while the request writes no line', () => {
    const c = capture();
    const log = new RequestLogger(c.root, { request_id: 'r1' });
    log.setBindings({ user_id: 'u1' });
    log.debug('not at this level');
    expect(c.children()).toBe(0);
  });

  it("writes its first line through a child with the request id and what was bound before, then the same child's", async () => {
    const c = capture();
    const log = new RequestLogger(c.root, { request_id: 'r2' });
    log.setBindings({ user_id: 'u2' });
    log.error({ status: 500 }, 'request failed');
    log.setBindings({ job_id: 'j2' });
    log.info('again');
    await flush();
    expect(c.children()).toBe(1);
    expect(c.lines).toEqual([
      expect.objectContaining({ level: 'error', request_id: 'r2', user_id: 'u2', status: 500, msg: 'request failed' }),
      expect.objectContaining({ level: 'info', request_id: 'r2', user_id: 'u2', job_id: 'j2', msg: 'again' }),
    ]);
  });

  it("answers the parent's level until it has a child, and its child's after", () => {
    const c = capture('warn');
    const log = new RequestLogger(c.root, { request_id: 'r3' });
    expect(log.level).toBe('warn');
    expect(log.isLevelEnabled('info')).toBe(false);
    log.level = 'debug';
    expect(log.isLevelEnabled('debug')).toBe(true);
    expect(c.root.isLevelEnabled('debug')).toBe(false);
  });
});
