// The k6 load scripts (deploy/k6/src, typed with @types/k6): they type-check, bundle with esbuild
// into ES modules whose syntax Node accepts, declare thresholds, and call routes the gateway has.
// (k6 itself is not installed here; the scripts run against a deployment, see docs/operations.md.)
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import vm from 'node:vm';
import type { Plugin } from 'esbuild';
import { Server } from 'socket.io';
import WebSocket from 'ws';
import { socketIoClient, socketIoUrl } from '../../deploy/k6/src/lib/socketio';

const root = path.resolve(__dirname, '..', '..');
const K6 = path.join(root, 'deploy', 'k6');
const run = promisify(execFile);
// eslint-disable-next-line @typescript-eslint/no-require-imports
const build = require('../../deploy/k6/build.js') as {
  bundle(outdir: string, extra?: Record<string, unknown>): Promise<string[]>;
  scripts(): string[];
};

/** k6's modules as inert stubs, so a bundle can be evaluated to read its options. */
const k6Stubs: Plugin = {
  name: 'k6-stubs',
  setup(b) {
    b.onResolve({ filter: /^k6(\/.*)?$/ }, (a) => ({ path: a.path, namespace: 'k6' }));
    b.onLoad({ filter: /.*/, namespace: 'k6' }, () => ({
      contents: `const f = () => undefined; class Metric { add() {} }
        module.exports = { default: { get: f, post: f, file: f, connect: f }, check: f, fail: f, sleep: f,
          Counter: Metric, Rate: Metric, Trend: Metric, Gauge: Metric, connect: f, scenario: {} };`,
      loader: 'js',
    }));
  },
};

describe('k6 scripts in deploy/k6', () => {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'rs-k6-'));
  afterAll(() => fs.rmSync(out, { recursive: true, force: true }));

  it('type-check against @types/k6', async () => {
    await run(process.execPath, [path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', K6], { cwd: root });
  }, 60_000);

  it('bundle into ES modules with valid syntax that import only k6 modules', async () => {
    const files = await build.bundle(path.join(out, 'esm'), { outExtension: { '.js': '.mjs' } });
    expect(files.map((f) => path.basename(f, '.mjs')).sort()).toEqual(
      expect.arrayContaining(['api-read', 'socket-progress', 'upload-render']),
    );
    for (const f of files) {
      await run(process.execPath, ['--check', f]);
      const text = fs.readFileSync(f, 'utf8');
      const imports = [...text.matchAll(/^import .* from "([^"]+)";$/gm)].map((m) => m[1]);
      for (const i of imports) expect(i).toMatch(/^k6(\/|$)/);
      expect(text).toMatch(/export\s*{[^}]*\bas default\b/);
    }
  });

  it('declare thresholds on what each scenario is about', async () => {
    const files = await build.bundle(path.join(out, 'cjs'), { format: 'cjs', plugins: [k6Stubs], external: [] });
    const options: Record<string, { thresholds: Record<string, string[]> }> = {};
    for (const f of files) {
      const module = { exports: {} as Record<string, unknown> };
      const context = {
        module,
        exports: module.exports,
        require: () => ({}),
        __ENV: { JOB_ID: 'j', CLIPS: '' },
        __VU: 1,
        open: () => new ArrayBuffer(0),
      };
      vm.runInNewContext(fs.readFileSync(f, 'utf8'), context, { filename: f });
      expect(typeof module.exports.default).toBe('function');
      options[path.basename(f, '.js')] = module.exports.options as { thresholds: Record<string, string[]> };
    }
    for (const [name, o] of Object.entries(options)) expect([name, Object.keys(o.thresholds).length > 0]).toEqual([name, true]);
    expect(options['api-read']!.thresholds).toHaveProperty(['http_req_duration{name:status}']);
    expect(options['upload-render']!.thresholds).toHaveProperty('jobs_completed');
    expect(options['socket-progress']!.thresholds).toHaveProperty('socketio_join_to_status_ms');
  });

  it('call routes and the socket path the gateway serves', () => {
    const http = path.join(root, 'services', 'gateway', 'src', 'transport');
    const gateway = [
      // Every route file, those in folders (transport/http/admin/) too.
      ...fs
        .readdirSync(path.join(http, 'http'), { recursive: true, encoding: 'utf8' })
        .filter((f) => f.endsWith('.ts'))
        .map((f) => fs.readFileSync(path.join(http, 'http', f), 'utf8')),
      fs.readFileSync(path.join(http, 'socket.ts'), 'utf8'),
    ].join('\n');
    const sources = fs
      .readdirSync(path.join(K6, 'src'), { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.ts'))
      .map((f) => fs.readFileSync(path.join(K6, 'src', f), 'utf8'));
    const routes = new Set(sources.flatMap((s) => [...s.matchAll(/\$\{API\}((?:\/[a-z-]+|\/\$\{\w+\})+)/g)].map((m) => m[1]!)));
    expect(routes.size).toBeGreaterThanOrEqual(7);
    for (const r of routes) {
      const declared = r.replace(/\$\{\w+\}/g, ':id');
      expect([r, gateway.includes(`'${declared}'`)]).toEqual([r, true]);
    }
    expect(gateway).toContain("path: '/ws'");
    expect(sources.join('\n')).toContain("path = '/ws'");
    expect(sources.join('\n')).toContain('/?EIO=4&transport=websocket');
    for (const event of ["'join'", "'job_status'", "'job_update'"]) expect(gateway).toContain(event);
  });

  it('speak Socket.IO to a real socket.io server the way the subscribers script does', async () => {
    // A server shaped like the gateway's socket: path /ws, token checked in the handshake, `join`
    // answered with job_status, then a job_update that ends the job.
    const server = http.createServer();
    const io = new Server(server, { path: '/ws', serveClient: false, pingInterval: 200, pingTimeout: 500 });
    io.use((socket, next) => ((socket.handshake.auth as { token?: string }).token === 'good' ? next() : next(new Error('unauthorized'))));
    io.on('connection', (socket) => {
      socket.on('join', (jobId: string) => {
        socket.emit('job_status', { type: 'job_status', data: { job_id: jobId, status: 'processing', progress: 60 } });
        // Later than ping interval + timeout: only a client that answers pings is still there.
        setTimeout(
          () => socket.emit('job_update', { type: 'job_update', data: { job_id: jobId, status: 'completed', progress: 100 } }),
          1500,
        );
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const follow = (token: string) =>
      new Promise<string[]>((resolve, reject) => {
        const seen: string[] = [];
        const socket = new WebSocket(socketIoUrl(base), { headers: { Origin: base } });
        const client = socketIoClient(
          (f) => socket.send(f),
          { token },
          {
            connected: () => (seen.push('connected'), client.emit('join', 'job-1')),
            refused: (m) => (seen.push(`refused: ${m}`), socket.close()),
            event: (name, payload) => {
              seen.push(`${name} ${(payload as { data: { status: string } }).data.status}`);
              if (name === 'job_update') socket.close();
            },
          },
        );
        socket.on('message', (d) => client.receive(String(d)));
        socket.on('close', () => resolve(seen));
        socket.on('error', reject);
      });
    try {
      // Pings (every 200 ms, 500 ms to answer) are answered, or the server drops the socket before the update.
      expect(await follow('good')).toEqual(['connected', 'job_status processing', 'job_update completed']);
      expect(await follow('bad')).toEqual(['refused: unauthorized']);
    } finally {
      io.close();
    }
  });
});
