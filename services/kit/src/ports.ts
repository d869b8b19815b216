import fs from 'node:fs';
import net from 'node:net';

/**
 * A loopback port nobody listens on, chosen below the kernel's ephemeral range. A port the OS
 * hands out with listen(0) lies inside that range, where any outgoing connection (to NATS,
 * PostgreSQL...) may take it as its local port before the process meant to listen on it binds it
 * (EADDRINUSE at start-up).
 */
export async function freePort(): Promise<number> {
  let low = 32768;
  try {
    low = Number(fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || low;
  } catch {
    // not Linux: keep the IANA default
  }
  const from = 10_000;
  const to = Math.max(from + 1000, Math.min(low, 49_152)) - 1;
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = from + Math.floor(Math.random() * (to - from));
    const free = await new Promise<boolean>((resolve) => {
      const srv = net.createServer();
      srv.once('error', () => resolve(false));
      srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
    });
    if (free) return port;
  }
  throw new Error('no free port found below the ephemeral range');
}
