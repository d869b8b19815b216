import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { freePort, listenable, PORT_CLAIMS_DIR, PORT_CLAIM_TTL_MS } from '../../src/ports';

describe('freePort', () => {
  it('gives a port below the ephemeral range that can be listened on', async () => {
    const low = Number(fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    const port = await freePort();
    expect(port).toBeGreaterThanOrEqual(10_000);
    expect(port).toBeLessThan(low);
    const srv = net.createServer();
    await new Promise<void>((resolve, reject) => srv.once('error', reject).listen(port, '127.0.0.1', resolve));
    await new Promise((r) => srv.close(r));
  });
});

describe('freePort, asked many times before anything listens', () => {
  it('never hands out the same port twice, and writes a claim other processes respect', async () => {
    const ports: number[] = [];
    for (let i = 0; i < 300; i++) ports.push(await freePort());
    expect(new Set(ports).size).toBe(ports.length);
    for (const p of ports.slice(0, 5)) expect(fs.existsSync(path.join(PORT_CLAIMS_DIR, String(p)))).toBe(true);
  });

  it('skips a port another process claimed a moment ago, and takes over a stale claim', async () => {
    const real = Math.random;
    try {
      // Two candidates, in turn: the first freshly claimed elsewhere, the second free.
      // Two neighbours nobody has claimed (every port this process handed out has a claim file)
      // and nobody listens on: this machine's own servers listen in the range too (RabbitMQ's
      // 25672), and freePort, fed one port over and over, would never get past such a one.
      const unclaimed = (p: number) => !fs.existsSync(path.join(PORT_CLAIMS_DIR, String(p)));
      let fresh = 0;
      do fresh = 10_000 + Math.floor(real() * 20_000);
      while (!unclaimed(fresh) || !unclaimed(fresh + 1) || !(await listenable(fresh)) || !(await listenable(fresh + 1)));
      const other = fresh + 1;
      fs.mkdirSync(PORT_CLAIMS_DIR, { recursive: true });
      fs.writeFileSync(path.join(PORT_CLAIMS_DIR, String(fresh)), '');
      const seq = [fresh, other];
      let k = 0;
      const span =
        Math.min(Number(fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]), 49_152) - 1 - 10_000;
      Math.random = () => (seq[Math.min(k++, 1)]! - 10_000 + 0.5) / span;
      expect(await freePort()).toBe(other);
      // Made stale (older than the TTL), the first one is handed out again.
      const old = new Date(Date.now() - PORT_CLAIM_TTL_MS - 1000);
      fs.utimesSync(path.join(PORT_CLAIMS_DIR, String(fresh)), old, old);
      k = 0;
      Math.random = () => (fresh - 10_000 + 0.5) / span;
      expect(await freePort()).toBe(fresh);
    } finally {
      Math.random = real;
    }
  });
});
