import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { freePort } from '@reelsmith/kit';
import { tempDir } from '@reelsmith/kit/testing';
import { natsServerConfig } from '../../src/nats-conf';

const NATS_BIN =
  ['/usr/sbin/nats-server', '/usr/bin/nats-server', '/usr/local/bin/nats-server'].find((p) => fs.existsSync(p)) ?? 'nats-server';

/** A raw client: reads INFO, waits `delayMs` (a busy process), then sends CONNECT + PING; resolves with what came back. */
function slowClient(port: number, token: string, delayMs: number): Promise<string> {
  return new Promise((resolve) => {
    const sock = net.connect(port, '127.0.0.1');
    let got = '';
    let sent = false;
    sock.on('data', (d) => {
      got += d.toString();
      if (!sent && got.includes('INFO')) {
        sent = true;
        setTimeout(() => {
          sock.write(`CONNECT ${JSON.stringify({ verbose: false, pedantic: false, auth_token: token, protocol: 1 })}\r\nPING\r\n`);
        }, delayMs);
      }
      if (got.includes('PONG') || got.includes('-ERR')) sock.end();
    });
    sock.on('error', () => undefined);
    sock.on('close', () => resolve(got));
  });
}

describe("npm start's nats-server", () => {
  const t = tempDir('nats-conf');
  let server: ChildProcess;
  let port: number;

  beforeAll(async () => {
    port = await freePort();
    const conf = path.join(t.dir, 'nats-server.conf');
    fs.writeFileSync(conf, natsServerConfig({ port, storeDir: path.join(t.dir, 'js'), token: 's3cret-token' }));
    server = spawn(NATS_BIN, ['-c', conf], { stdio: 'ignore' });
    for (let i = 0; i < 100; i++) {
      const up = await new Promise<boolean>((r) => {
        const s = net.connect(port, '127.0.0.1', () => (s.end(), r(true)));
        s.on('error', () => r(false));
      });
      if (up) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error('nats-server did not start');
  });
  afterAll(async () => {
    server.kill();
    await new Promise((r) => server.once('exit', r));
    t.remove();
  });

  it('lets a client that reads the greeting late (a loaded start-up) finish its handshake', async () => {
    // nats-server's default would close this connection after 2 s ("Authentication Timeout").
    expect(await slowClient(port, 's3cret-token', 3500)).toContain('PONG');
  }, 15_000);

  it('refuses a client without the token, and keeps the token off the command line', async () => {
    expect(await slowClient(port, 'wrong', 0)).toContain('-ERR');
    expect(fs.readFileSync(`/proc/${server.pid}/cmdline`, 'utf8')).not.toContain('s3cret-token');
  });
});
