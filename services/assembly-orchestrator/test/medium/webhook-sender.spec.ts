import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { httpWebhookSender } from '../../src/repositories/webhook-sender';

/** The sender's timeout is a deadline for the whole exchange, not an idle limit. */
describe('httpWebhookSender deadline', () => {
  const sockets = new Set<import('node:net').Socket>();
  let server: http.Server;
  let url: string;
  let trickle: NodeJS.Timeout | undefined;

  beforeAll(async () => {
    // A receiver that answers at once on /ok, and on /slow trickles its answer a byte every 50 ms, forever.
    server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        if (req.url === '/ok') return void res.writeHead(200).end('fine');
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.flushHeaders();
        trickle = setInterval(() => res.write('x'), 50);
      });
    });
    server.on('connection', (s) => {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    clearInterval(trickle);
    for (const s of sockets) s.destroy();
    await new Promise((r) => server.close(r));
  });

  it('a receiver trickling its answer a byte at a time fails the try at the deadline', async () => {
    const sender = httpWebhookSender({ allowPrivate: true, timeoutMs: 400 });
    const t0 = Date.now();
    const result = await Promise.race([
      sender.post(`${url}/slow`, { 'content-type': 'application/json' }, '{}'),
      new Promise((r) => setTimeout(() => r('still waiting'), 3000).unref()),
    ]);
    clearInterval(trickle);
    expect(result).toEqual({ error: expect.stringMatching(/within 400 ms/) });
    expect(Date.now() - t0).toBeLessThan(2000);
  });

  it('a prompt answer is its status', async () => {
    const sender = httpWebhookSender({ allowPrivate: true, timeoutMs: 2000 });
    await expect(sender.post(`${url}/ok`, {}, '{}')).resolves.toEqual({ status: 200 });
  });
});
