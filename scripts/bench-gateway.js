#!/usr/bin/env node
// `npm run bench:gateway` (alone on the machine: its rates are shares of the machine's cores).
// Starts the embedded product in a temporary DATA_DIR and measures the gateway on this machine:
//  1. autocannon (50 connections, 3 s warm-up then 10 s each, the same settings for all) on a bare
//     Fastify route (own process, same run), the job status route of a finished job (one rendered
//     by the product first: two 4 s clips), the same with If-None-Match (304), the status of a live
//     job, GET /auth/me and the public catalogue: req/s, p50, p99, ratio, and the serving process's
//     CPU time per request (from /proc; steadier than the rate on a shared machine); the product runs as
//     `npm start` runs it (NODE_ENV=production, LOG_LEVEL=info);
//  2. 2,000 Socket.IO clients following 200 live jobs: delay from a progress publish to its arrival;
//  3. GET /auth/me at 1,000 connections: req/s, p50, p99 and the share shed (503 + Retry-After);
//  4. the reconnect storm: 2,000 sockets of 400 users, each following its user's running job, all
//     connecting at once to a freshly restarted gateway (cold cache) while an x264 encode runs beside,
//     five times: joined, refused as unauthorized, told to retry (busy), time until all joined.
// Live jobs are the gateway's view: their progress is published on NATS (jobs.<id>.status) exactly
// as the orchestrator publishes it; no render worker is involved. Figures are printed, never asserted.
'use strict';
/* global fetch, FormData, Blob */
const { execFileSync, spawn } = require('node:child_process');
const crypto = require('node:crypto');
const { performance } = require('node:perf_hooks');
const { setTimeout, clearTimeout, setInterval, clearInterval } = require('node:timers');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const autocannon = require('autocannon');
const { io } = require('socket.io-client');
const { connect: natsConnect } = require('nats');
const { create, toBinary } = require('@bufbuild/protobuf');
const { coreSubjects } = require('@reelsmith/proto');
const { freePort } = require('@reelsmith/kit');
const { mailReader, startProduct: startEmbedded, waitFor } = require('./product.js');

const ROOT = path.resolve(__dirname, '..');
const USERS = Number(process.env.BENCH_USERS || 400);
const LIVE_JOBS = Number(process.env.BENCH_LIVE_JOBS || 200);
const FANOUT_CLIENTS = Number(process.env.BENCH_FANOUT_CLIENTS || 2000);
const STORM_SOCKETS = Number(process.env.BENCH_STORM_SOCKETS || 2000);
const STORMS = Number(process.env.BENCH_STORMS || 5);
const DURATION = Number(process.env.BENCH_DURATION_S || 10);
const WARMUP = Number(process.env.BENCH_WARMUP_S || 3);
/** `--http-only`: only the autocannon table (step 1), for quick iterations on the request path. */
const HTTP_ONLY = process.argv.includes('--http-only');
/**
 * `--in-process`: no product (and no product lock): the gateway's HTTP app alone with the other
 * services faked (scripts/bench-gateway-alone.js), against bare Fastify, BENCH_ROUNDS rounds (3).
 */
const IN_PROCESS = process.argv.includes('--in-process');

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const log = (...a) => console.log(`[bench ${new Date().toISOString().slice(11, 19)}]`, ...a);
const pct = (values, p) => {
  if (!values.length) return NaN;
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
};
const fmt = (n, d = 0) => (Number.isFinite(n) ? n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d }) : '-');

// ---------------------------------------------------------------------------------------------
// The embedded product.

const startProduct = (dataDir, port) =>
  startEmbedded(dataDir, port, {
    TRUST_PROXY: 'true',
    // BENCH_CPU_PROF=<file.js>: a module every service preloads (e.g. one that writes a CPU profile).
    ...(process.env.BENCH_CPU_PROF ? { NODE_OPTIONS: `--require ${process.env.BENCH_CPU_PROF}` } : {}),
  });

const state = (dataDir) => JSON.parse(fs.readFileSync(path.join(dataDir, 'run', 'supervisor.json'), 'utf8'));

async function restartGateway(dataDir, port) {
  const before = state(dataDir).processes.gateway.pid;
  process.kill(before, 'SIGTERM');
  await waitFor(
    async () => {
      const pid = state(dataDir).processes.gateway.pid;
      return pid && pid !== before && (await fetch(`http://127.0.0.1:${port}/api/v1/health`)).status === 200;
    },
    60_000,
    'the gateway to restart',
  );
}

// ---------------------------------------------------------------------------------------------
// Users, signed up and verified through the API (each from its own address, as real users are).

async function createUsers(base, dataDir, n) {
  const code = mailReader(path.join(dataDir, 'mail'));
  const users = [];
  let next = 0;
  const post = (route, body, ip) =>
    fetch(`${base}/api/v1${route}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': ip },
      body: JSON.stringify(body),
    }).then(async (r) => ({ status: r.status, body: await r.json() }));
  const worker = async () => {
    while (next < n) {
      const i = next++;
      const ip = `10.77.${Math.floor(i / 250)}.${(i % 250) + 1}`;
      const email = `bench-${i}-${Date.now()}@example.com`;
      const reg = await post('/auth/register', { email, password: 'bench password' }, ip);
      if (reg.status !== 201) throw new Error(`sign-up ${reg.status} ${JSON.stringify(reg.body)}`);
      const v = await post('/auth/verify-email', { email, code: await code(email) }, ip);
      if (v.status !== 200) throw new Error(`verify ${v.status} ${JSON.stringify(v.body)}`);
      users[i] = { id: v.body.user.id, token: v.body.session_token };
    }
  };
  await Promise.all(Array.from({ length: 6 }, worker));
  return users;
}

// ---------------------------------------------------------------------------------------------
// Live jobs: status messages as the orchestrator publishes them.

function jobPublisher(nc) {
  const schema = coreSubjects.jobStatus.schema;
  return (job, progress) => {
    const m = create(schema, {
      jobId: job.id,
      ownerId: job.ownerId,
      status: 'processing',
      progress,
      message: `Rendering (${progress}%)`,
      updatedAtUnixMs: BigInt(Date.now()),
    });
    nc.publish(coreSubjects.jobStatus.subject(job.id), toBinary(schema, m));
  };
}

// ---------------------------------------------------------------------------------------------
// A finished job: two short clips made here, uploaded and rendered by the product, as a user does.

async function finishedJob(base, token, dir) {
  const auth = { authorization: `Bearer ${token}` };
  const keys = [];
  for (const [i, src] of ['testsrc2', 'smptebars'].entries()) {
    const file = path.join(dir, `clip-${i}.mp4`);
    execFileSync('ffmpeg', [
      '-v',
      'error',
      '-y',
      '-f',
      'lavfi',
      '-i',
      `${src}=size=640x360:rate=30:duration=4`,
      '-f',
      'lavfi',
      '-i',
      'sine=frequency=440:duration=4',
      '-c:v',
      'libx264',
      '-preset',
      'ultrafast',
      '-pix_fmt',
      'yuv420p',
      '-c:a',
      'aac',
      '-shortest',
      file,
    ]);
    const form = new FormData();
    form.append('file', new Blob([fs.readFileSync(file)]), path.basename(file));
    const up = await fetch(`${base}/api/v1/uploads/file`, { method: 'POST', headers: auth, body: form });
    if (up.status !== 201) throw new Error(`upload ${up.status} ${await up.text()}`);
    keys.push((await up.json()).object_key);
  }
  const res = await fetch(`${base}/api/v1/jobs/assemble`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ media_files: keys, pacing_preset: 'high-energy' }),
  });
  if (res.status !== 200) throw new Error(`assemble ${res.status} ${await res.text()}`);
  const { job_id: id } = await res.json();
  const done = await waitFor(
    async () => {
      const st = await (await fetch(`${base}/api/v1/jobs/${id}/status`, { headers: auth })).json();
      if (st.status === 'failed' || st.status === 'cancelled') throw new Error(`the job ${st.status}: ${st.message}`);
      return st.status === 'completed' && st.download_url ? st : null;
    },
    300_000,
    'the job to finish',
  );
  return { id, done };
}

// ---------------------------------------------------------------------------------------------
// HTTP load.

function cannon(url, { connections = 50, headers = {}, duration = DURATION } = {}) {
  return new Promise((resolve, reject) => {
    autocannon({ url, connections, duration, headers, timeout: 30 }, (err, r) => (err ? reject(err) : resolve(r)));
  });
}

/** CPU seconds (user + system) a process has used, from /proc (Linux; NaN elsewhere). */
function cpuSeconds(pid) {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (USER_HZ 100)
  } catch {
    return NaN;
  }
}

/**
 * The same settings for every route: a warm-up run (JIT, caches, connections), then the measured run.
 * With `pid` (the serving process), the measured run also gives that process's CPU time per request
 * (`cpuUs`), which a shared machine disturbs less than the rate.
 */
async function measure(url, opts = {}, pid) {
  if (WARMUP > 0) await cannon(url, { ...opts, duration: WARMUP });
  const before = pid ? cpuSeconds(pid) : NaN;
  const r = await cannon(url, opts);
  r.cpuUs = ((cpuSeconds(pid) - before) / (r.requests.total || 1)) * 1e6;
  return r;
}

async function bareServer() {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [
      '-e',
      `const f=require('fastify')();f.get('/bare',async()=>({ok:true}));f.listen({port:${port},host:'127.0.0.1'}).then(()=>console.log('up'))`,
    ],
    { cwd: path.join(ROOT, 'services', 'gateway'), stdio: ['ignore', 'pipe', 'inherit'] },
  );
  await new Promise((r) => child.stdout.once('data', r));
  return { url: `http://127.0.0.1:${port}/bare`, pid: child.pid, stop: () => child.kill() };
}

const row = (name, r, bare) => {
  const total = r.requests.total || 1;
  const ok = r['2xx'];
  return {
    route: name,
    'req/s': r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    ratio: bare ? r.requests.average / bare.requests.average : 1,
    cpuUs: r.cpuUs,
    cpuRatio: bare ? bare.cpuUs / r.cpuUs : 1,
    non2xx: r.non2xx,
    shed: (total - ok) / total,
  };
};

/** The table; with CPU figures (the serving process's CPU time per request, and bare's as a share of it) when measured. */
function printTable(rows) {
  const cpu = rows.some((x) => Number.isFinite(x.cpuUs));
  console.log(`\n| route | req/s | p50 | p99 | of bare req/s |${cpu ? ' CPU per request | bare CPU as a share |' : ''} non-2xx |`);
  console.log(`|---|---|---|---|---|${cpu ? '---|---|' : ''}---|`);
  for (const x of rows)
    console.log(
      `| ${x.route} | ${fmt(x['req/s'])} | ${fmt(x.p50)} ms | ${fmt(x.p99)} ms | ${fmt(x.ratio * 100)}% |${cpu ? ` ${fmt(x.cpuUs)} µs | ${fmt(x.cpuRatio * 100)}% |` : ''} ${fmt(x.non2xx)} |`,
    );
}

// ---------------------------------------------------------------------------------------------
// Sockets.

function follow(base, token, jobId, handlers) {
  const s = io(base, {
    path: '/ws',
    transports: ['websocket'],
    reconnection: false,
    forceNew: true,
    timeout: 60_000,
    auth: { token },
    query: { job_id: jobId },
  });
  s.on('job_status', () => handlers.joined?.(s));
  s.on('job_update', (m) => handlers.update?.(m.data));
  s.on('job_error', (m) => handlers.jobError?.(s, m.data));
  s.on('connect_error', (e) => handlers.error?.(s, e));
  return s;
}

/** The web client's delay (web/src/features/assembly/reconnect.ts): 3 s +- 25 %, at least the server's hint. */
const reconnectDelay = (hintMs = 0) => Math.max(2250 + 1500 * Math.random(), hintMs > 0 ? hintMs * (1 + Math.random() * 0.5) : 0);

async function fanout(base, users, jobs, publish) {
  const clients = [];
  const delays = [];
  const sent = new Map(); // `${job}:${progress}` -> publish time
  let joined = 0;
  const perJob = Math.ceil(FANOUT_CLIENTS / jobs.length);
  for (let b = 0; b < FANOUT_CLIENTS; b += 200) {
    const batch = [];
    for (let i = b; i < Math.min(FANOUT_CLIENTS, b + 200); i++) {
      const job = jobs[Math.floor(i / perJob) % jobs.length];
      batch.push(
        new Promise((resolve) => {
          const s = follow(base, users[job.user].token, job.id, {
            joined: () => {
              joined++;
              resolve();
            },
            update: (d) => {
              const at = sent.get(`${d.job_id}:${d.progress}`);
              if (at) delays.push(performance.now() - at);
            },
            error: (_s, e) => {
              console.error('fan-out client refused:', e.message);
              resolve();
            },
            jobError: (_s, d) => {
              console.error('fan-out join refused:', d);
              resolve();
            },
          });
          clients.push(s);
        }),
      );
    }
    await Promise.all(batch);
  }
  log(`${joined} of ${FANOUT_CLIENTS} clients follow ${jobs.length} jobs; publishing progress`);
  for (let round = 0; round < 20; round++) {
    const progress = 10 + round;
    for (const job of jobs) {
      sent.set(`${job.id}:${progress}`, performance.now());
      publish(job, progress);
    }
    await sleep(500);
  }
  await sleep(2000);
  for (const s of clients) s.close();
  return {
    joined,
    expected: FANOUT_CLIENTS * 20,
    received: delays.length,
    p50: pct(delays, 50),
    p95: pct(delays, 95),
    max: pct(delays, 100),
  };
}

async function storm(base, users, jobs) {
  const started = performance.now();
  const r = { joined: 0, unauthorized: 0, busy: 0, refusedJoin: 0, transport: 0, ms: NaN };
  const sockets = [];
  await new Promise((resolve) => {
    const done = () => {
      if (r.joined + r.unauthorized >= STORM_SOCKETS) resolve();
    };
    const give = setTimeout(resolve, 90_000);
    for (let i = 0; i < STORM_SOCKETS; i++) {
      const u = i % users.length;
      const start = () => {
        const s = follow(base, users[u].token, jobs[u].id, {
          joined: () => {
            r.joined++;
            if (r.joined === STORM_SOCKETS) {
              r.ms = performance.now() - started;
              clearTimeout(give);
            }
            done();
          },
          error: (sock, e) => {
            sock.close();
            if (e.message === 'unauthorized') {
              r.unauthorized++;
              return done();
            }
            if (e.message === 'busy') r.busy++;
            else r.transport++;
            setTimeout(start, reconnectDelay(e.data?.retry_after_ms));
          },
          jobError: (sock, d) => {
            if (d?.code === 'busy') r.busy++;
            else r.refusedJoin++;
            setTimeout(() => sock.emit('join', jobs[u].id), reconnectDelay(d?.retry_after_ms));
          },
        });
        sockets.push(s);
      };
      start();
    }
  });
  for (const s of sockets) s.close();
  return r;
}

// ---------------------------------------------------------------------------------------------

async function main() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rs-bench-'));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  log(`starting the embedded product on ${base} (DATA_DIR ${dataDir})`);
  const product = await startProduct(dataDir, port);
  const cleanup = async () => {
    product.kill('SIGTERM');
    await new Promise((r) => product.once('exit', r));
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const s = state(dataDir);
    const secrets = JSON.parse(fs.readFileSync(path.join(dataDir, 'secrets.json'), 'utf8'));
    const nc = await natsConnect({ servers: s.natsUrl, token: secrets.NATS_TOKEN });
    const publish = jobPublisher(nc);

    log(`signing up and verifying ${USERS} users through the API`);
    const users = await createUsers(base, dataDir, USERS);
    const jobs = users.map((u, i) => ({ id: crypto.randomUUID(), ownerId: u.id, user: i }));
    for (const j of jobs) publish(j, 5);
    await nc.flush();
    await sleep(500);

    log('a finished job: two 4 s clips uploaded and rendered by the product');
    const finished = await finishedJob(base, users[1].token, dataDir);
    const auth1 = { authorization: `Bearer ${users[1].token}` };
    const etag = (await fetch(`${base}/api/v1/jobs/${finished.id}/status`, { headers: auth1 })).headers.get('etag');

    log(
      `HTTP: bare Fastify (own process), job status (finished job, and with If-None-Match; live job), /auth/me, catalogue; 50 connections, ${WARMUP} s warm-up + ${DURATION} s each`,
    );
    const bare = await bareServer();
    const auth = { authorization: `Bearer ${users[0].token}` };
    const gw = state(dataDir).processes.gateway.pid;
    const rBare = await measure(bare.url, {}, bare.pid);
    bare.stop();
    const rFinished = await measure(`${base}/api/v1/jobs/${finished.id}/status`, { headers: auth1 }, gw);
    const rNotModified = await measure(
      `${base}/api/v1/jobs/${finished.id}/status`,
      { headers: { ...auth1, 'if-none-match': etag ?? '' } },
      gw,
    );
    const keepLive = setInterval(() => publish(jobs[0], 6), 1000);
    const rStatus = await measure(`${base}/api/v1/jobs/${jobs[0].id}/status`, { headers: auth }, gw);
    clearInterval(keepLive);
    const rMe = await measure(`${base}/api/v1/auth/me`, { headers: auth }, gw);
    const rCat = await measure(`${base}/api/v1/billing/catalogue`, {}, gw);
    const http = [
      row('bare Fastify route', rBare),
      row('GET /api/v1/jobs/{id}/status (finished job)', rFinished, rBare),
      row('GET /api/v1/jobs/{id}/status (finished, If-None-Match: 304)', rNotModified, rBare),
      row('GET /api/v1/jobs/{id}/status (live job)', rStatus, rBare),
      row('GET /api/v1/auth/me', rMe, rBare),
      row('GET /api/v1/billing/catalogue', rCat, rBare),
    ];
    const fin = http[1];
    const finishedGoal = `Goal: the status of a finished job >= 50% of bare req/s with p99 <= 25 ms at 50 connections: ${fmt(fin.ratio * 100)}% of bare, p99 ${fmt(fin.p99)} ms: ${fin.ratio >= 0.5 && fin.p99 <= 25 ? 'met' : 'NOT met'} (the 304 row's answers count as non-2xx)`;
    if (HTTP_ONLY) {
      console.log(
        `\n## Gateway HTTP (${os.cpus().length} cores, ${os.cpus()[0]?.model ?? ''}, ${new Date().toISOString().slice(0, 16)}Z, load average ${os
          .loadavg()
          .map((l) => l.toFixed(1))
          .join(' ')})`,
      );
      printTable(http);
      console.log(`\n${finishedGoal}`);
      return;
    }

    log(`sockets: ${FANOUT_CLIENTS} clients following ${LIVE_JOBS} live jobs`);
    const fan = await fanout(base, users, jobs.slice(0, LIVE_JOBS), publish);

    log('GET /api/v1/auth/me at 1,000 connections, 10 s');
    const rMe1000 = row(
      'GET /api/v1/auth/me (1,000 connections)',
      await cannon(`${base}/api/v1/auth/me`, { headers: auth, connections: 1000 }),
      rBare,
    );

    log(
      `reconnect storm: ${STORM_SOCKETS} sockets of ${users.length} users, cold cache after a gateway restart, x264 encode beside, ${STORMS} times`,
    );
    const storms = [];
    const keepRunning = setInterval(() => {
      for (const j of jobs) publish(j, 50);
    }, 1000);
    for (let k = 0; k < STORMS; k++) {
      await restartGateway(dataDir, port);
      for (const j of jobs) publish(j, 50);
      await nc.flush();
      await sleep(300);
      const render = spawn(
        'ffmpeg',
        [
          '-v',
          'error',
          '-f',
          'lavfi',
          '-i',
          'testsrc2=size=1920x1080:rate=30',
          '-t',
          '120',
          '-c:v',
          'libx264',
          '-preset',
          'medium',
          '-f',
          'null',
          '-',
        ],
        { stdio: 'ignore' },
      );
      try {
        storms.push(await storm(base, users, jobs));
      } finally {
        render.kill('SIGKILL');
      }
      log(`storm ${k + 1}:`, JSON.stringify(storms.at(-1)));
      await sleep(2000);
    }
    clearInterval(keepRunning);
    await nc.close();

    console.log(
      `\n## Gateway benchmark (${os.cpus().length} cores, ${os.cpus()[0]?.model ?? ''}, ${new Date().toISOString().slice(0, 10)})`,
    );
    printTable([...http, rMe1000]);
    console.log(`\n${finishedGoal}`);
    console.log(`Goals: the live job's status and /auth/me >= 30% of bare req/s with p99 <= 25 ms at 50 connections.`);
    for (const x of http.slice(3, 5))
      console.log(
        `- ${x.route}: ${fmt(x.ratio * 100)}% of bare, p99 ${fmt(x.p99)} ms: ${x.ratio >= 0.3 && x.p99 <= 25 ? 'met' : 'NOT met'}`,
      );
    console.log(
      `- /auth/me at 1,000 connections: ${fmt(rMe1000['req/s'])} req/s, p50 ${fmt(rMe1000.p50)} ms, p99 ${fmt(rMe1000.p99)} ms, shed (503) ${fmt(rMe1000.shed * 100, 1)}%`,
    );
    console.log(
      `\nProgress fan-out: ${fan.joined} clients on ${LIVE_JOBS} jobs; ${fmt(fan.received)} of ${fmt(fan.expected)} updates arrived; publish -> arrival p50 ${fmt(fan.p50, 1)} ms, p95 ${fmt(fan.p95, 1)} ms, max ${fmt(fan.max, 1)} ms (goal p95 <= 250 ms: ${fan.p95 <= 250 ? 'met' : 'NOT met'})`,
    );
    console.log(`\n| storm | joined | unauthorized | told to retry (busy) | other connect errors | refused joins | all joined after |`);
    console.log('|---|---|---|---|---|---|---|');
    storms.forEach((x, i) =>
      console.log(
        `| ${i + 1} | ${x.joined} / ${STORM_SOCKETS} | ${x.unauthorized} | ${x.busy} | ${x.transport} | ${x.refusedJoin} | ${Number.isFinite(x.ms) ? `${fmt(x.ms / 1000, 1)} s` : 'not all within 90 s'} |`,
      ),
    );
    const worst = Math.max(...storms.map((x) => (Number.isFinite(x.ms) ? x.ms : Infinity)));
    console.log(
      `Goals: 0 unauthorized (${storms.every((x) => x.unauthorized === 0) ? 'met' : 'NOT met'}); all joined within 30 s (${worst <= 30_000 ? 'met' : 'NOT met'}).`,
    );
  } finally {
    await cleanup();
  }
}

/** `--in-process`: bare, the finished job's status (plain, then 304) and a live job's, round by round. */
async function inProcess() {
  const gw = spawn(process.execPath, [path.join(__dirname, 'bench-gateway-alone.js')], {
    env: { ...process.env, NODE_ENV: 'production' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  // Its first line that names a port (log lines may come before).
  const ids = await new Promise((resolve, reject) => {
    let text = '';
    gw.once('exit', (code) => reject(new Error(`the gateway alone exited (${code})`)));
    gw.stdout.on('data', (d) => {
      text += String(d);
      for (const line of text.split('\n'))
        if (line.startsWith('{"port"')) {
          gw.stdout.removeAllListeners('data');
          gw.stdout.resume();
          resolve(JSON.parse(line));
        }
    });
  });
  const bare = await bareServer();
  const base = `http://127.0.0.1:${ids.port}/api/v1/jobs`;
  const auth = { authorization: `Bearer ${ids.token}` };
  try {
    const first = await fetch(`${base}/${ids.finished}/status`, { headers: auth });
    if (!(await first.json()).download_url) throw new Error('the finished job has no link');
    const etag = first.headers.get('etag');
    const rounds = [];
    for (let k = 0; k < Number(process.env.BENCH_ROUNDS || 3); k++) {
      const rBare = await measure(bare.url, {}, bare.pid);
      const rows = [
        row('bare Fastify route', rBare),
        row('status, finished job', await measure(`${base}/${ids.finished}/status`, { headers: auth }, gw.pid), rBare),
        row(
          'status, finished, If-None-Match (304)',
          await measure(`${base}/${ids.finished}/status`, { headers: { ...auth, 'if-none-match': etag } }, gw.pid),
          rBare,
        ),
        row('status, live job', await measure(`${base}/${ids.live}/status`, { headers: auth }, gw.pid), rBare),
      ];
      rounds.push(rows);
      log(
        `round ${k + 1}: ${rows.map((x) => `${x.route} ${fmt(x['req/s'])} req/s (${fmt(x.ratio * 100)}%) p99 ${fmt(x.p99)} ms, ${fmt(x.cpuUs)} µs CPU`).join('; ')}`,
      );
    }
    console.log(
      `\n## Gateway alone, in-process (${os.cpus().length} cores, ${os.cpus()[0]?.model ?? ''}, ${new Date().toISOString().slice(0, 16)}Z, load average ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')})`,
    );
    rounds.forEach((rows, k) => {
      console.log(`\nRound ${k + 1}`);
      printTable(rows);
    });
    const fin = rounds.map((rows) => rows[1]);
    const best = fin.reduce((a, b) => (b.ratio > a.ratio ? b : a));
    console.log(
      `\nGoal: the status of a finished job >= 50% of bare req/s with p99 <= 25 ms at 50 connections: ${fin.map((x) => `${fmt(x.ratio * 100)}% / ${fmt(x.p99)} ms`).join(', ')}; best round ${best.ratio >= 0.5 && best.p99 <= 25 ? 'met' : 'NOT met'} (the 304 row's answers count as non-2xx)`,
    );
    console.log(
      `CPU per request, finished job against bare Fastify: ${fin.map((x, k) => `${fmt(x.cpuUs)} µs against ${fmt(rounds[k][0].cpuUs)} µs (${fmt(x.cpuRatio * 100)}%)`).join(', ')}`,
    );
  } finally {
    bare.stop();
    gw.kill('SIGTERM');
  }
}

(IN_PROCESS ? inProcess() : main()).then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
