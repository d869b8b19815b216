import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

/** Where ports handed out on this machine are noted, one empty file each (see `freePort`). */
export const PORT_CLAIMS_DIR = path.join(os.tmpdir(), 'reelsmith-ports');
/** A claim older than this is stale: the port may be handed out again. */
export const PORT_CLAIM_TTL_MS = 10 * 60_000;

/** Ports this process has handed out: never twice. */
const handedOut = new Set<number>();

/**
 * Claims `port` for this machine: creates its claim file, or takes over a stale one. False when
 * another process claimed it within PORT_CLAIM_TTL_MS.
 */
function claim(port: number): boolean {
  const file = path.join(PORT_CLAIMS_DIR, String(port));
  try {
    fs.mkdirSync(PORT_CLAIMS_DIR, { recursive: true });
    fs.closeSync(fs.openSync(file, 'wx'));
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') return true; // no claims possible here: probing alone decides
    try {
      if (Date.now() - fs.statSync(file).mtimeMs < PORT_CLAIM_TTL_MS) return false;
      const now = new Date();
      fs.utimesSync(file, now, now);
      return true;
    } catch {
      return false;
    }
  }
}

/** True when nothing listens on 127.0.0.1:`port` now (a probe: listen, then close). */
export function listenable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

/**
 * A loopback port nobody listens on, chosen below the kernel's ephemeral range. A port the OS
 * hands out with listen(0) lies inside that range, where any outgoing connection (to NATS,
 * PostgreSQL...) may take it as its local port before the process meant to listen on it binds it
 * (EADDRINUSE at start-up).
 *
 * A probe alone cannot tell two callers apart that ask before either binds: a supervisor picks
 * eighteen ports before its services start, and a test may start two products at once (on
 * 2026-11-26 an identity service found its port taken that way). So a port is handed out once per
 * process, and claimed for the machine for PORT_CLAIM_TTL_MS by a file in PORT_CLAIMS_DIR
 * (created exclusively), which other processes respect.
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
    if (handedOut.has(port)) continue;
    if (!(await listenable(port)) || !claim(port)) continue;
    handedOut.add(port);
    return port;
  }
  throw new Error('no free port found below the ephemeral range');
}
