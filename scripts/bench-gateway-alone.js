#!/usr/bin/env node
// The gateway's HTTP app alone, for `npm run bench:gateway -- --in-process`: the same
// buildHttpApp (every hook, the session cache, the finished-job cache, the real object store's
// signing) with the other services faked in memory: identity knows one session, the orchestrator
// one completed job (its reel stored) and one processing job. As in the product: tracing started
// (the async-context manager), request counts, the Idempotency-Key hooks (keys kept in memory) and
// Socket.IO on the same server. Prints one JSON line: the port, the token and the job ids. Runs as
// `npm start` runs the gateway (NODE_ENV=production, info logs).
'use strict';
const { Buffer } = require('node:buffer');
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { LocalObjectStore, createLogger, createMetrics, startTracing } = require('@reelsmith/kit');
const { Server: SocketServer } = require('socket.io');
const { buildHttpApp } = require('../services/gateway/dist/transport/http/server.js');
const { FinishedJobs, finishedJobsLimits } = require('../services/gateway/dist/domain/finished-jobs.js');
const { Idempotency } = require('../services/gateway/dist/domain/idempotency.js');
const { RequestCounter } = require('../services/gateway/dist/domain/request-counter.js');

/** Idempotency keys in memory (the bench's routes are GETs: only the hooks' cost is measured). */
class MemoryKeys {
  rows = new Map();
  async claim(owner, key, fingerprint, claim, now) {
    const id = `${owner}:${key}`;
    if (this.rows.has(id)) return false;
    this.rows.set(id, { fingerprint, status: null, body: null, createdAt: now, claim });
    return true;
  }
  async read(owner, key) {
    return this.rows.get(`${owner}:${key}`) ?? null;
  }
  async complete(owner, key, claim, status, body) {
    const r = this.rows.get(`${owner}:${key}`);
    if (r?.claim === claim) Object.assign(r, { status, body });
  }
  async release(owner, key, claim) {
    if (this.rows.get(`${owner}:${key}`)?.claim === claim) this.rows.delete(`${owner}:${key}`);
  }
  async sweep() {
    return 0;
  }
}

async function main() {
  startTracing('gateway');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rs-gateway-alone-'));
  const secret = crypto.randomBytes(32).toString('hex');
  const store = new LocalObjectStore({ root: dir, signingSecret: secret, publicUrl: 'http://localhost:8080' });
  const ids = {
    token: crypto.randomBytes(24).toString('base64url'),
    userId: crypto.randomUUID(),
    finished: crypto.randomUUID(),
    live: crypto.randomUUID(),
  };
  await store.put(`outputs/${ids.finished}.mp4`, Buffer.from('mp4'));
  const peers = {
    identity: {
      authenticate: async ({ sessionToken }) => {
        if (sessionToken !== ids.token) throw Object.assign(new Error('expired'), { code: 'UNAUTHENTICATED' });
        return { user: { id: ids.userId, email: 'bench@example.com', isAdmin: false, isGuest: false, unlimited: false } };
      },
    },
    jobs: {
      getJob: async ({ jobId }) => ({
        $typeName: 'reelsmith.assembly.v1.Job',
        id: jobId,
        status: jobId === ids.finished ? 'completed' : 'processing',
        progress: jobId === ids.finished ? 100 : 40,
        message: jobId === ids.finished ? 'Complete' : 'Rendering (40%)',
        outputKey: jobId === ids.finished ? `outputs/${ids.finished}.mp4` : '',
        createdAtUnixMs: BigInt(Date.now()),
        request: { outputFilename: 'reel.mp4' },
      }),
    },
    close: () => undefined,
  };
  const app = await buildHttpApp({
    log: createLogger({ service: 'gateway', level: 'info' }),
    metrics: createMetrics('gateway'),
    webDist: dir,
    health: { report: async () => ({ status: 'healthy', services: {}, unavailable: [], instance: 'bench' }) },
    peers,
    store,
    finished: new FinishedJobs(finishedJobsLimits(20_000)),
    files: { store, signingSecret: secret },
    requestCounts: new RequestCounter(),
    idempotency: new Idempotency(new MemoryKeys()),
  });
  new SocketServer(app.server, { path: '/ws' });
  await app.listen({ port: 0, host: '127.0.0.1' });
  console.log(JSON.stringify({ port: app.server.address().port, ...ids }));
  process.on('SIGTERM', () =>
    app
      .close()
      .then(() => fs.rmSync(dir, { recursive: true, force: true }))
      .finally(() => process.exit(0)),
  );
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
