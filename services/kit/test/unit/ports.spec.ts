import fs from 'node:fs';
import net from 'node:net';
import { freePort } from '../../src/ports';

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
