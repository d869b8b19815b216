#!/usr/bin/env node
// `npm run bench:idle` (wrap it in `flock /tmp/reelsmith-product.lock`: it starts the product).
// Starts the embedded product as `npm start` runs it (NODE_ENV=production, LOG_LEVEL=info) in a
// temporary DATA_DIR, waits until start-up has settled (the starter library imported and the
// whole product under 25 % of one core over 5 s, at most BENCH_IDLE_SETTLE_S), then measures the
// CPU time of every process of the product (the supervisor, the services, nats-server, anything
// they spawn) over BENCH_IDLE_SECONDS (60 s) with nobody using it. Prints the total as a share of
// one core against the target (2 %), and each process' share, every time, met or not.
'use strict';
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { freePort } = require('@reelsmith/kit');
const { sleep, startProduct, stopProduct } = require('./product.js');

const SECONDS = Number(process.env.BENCH_IDLE_SECONDS || 60);
const SETTLE_MAX_S = Number(process.env.BENCH_IDLE_SETTLE_S || 300);
const TARGET = 2; // % of one core
const TICK = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;

/** pid -> { ppid, ticks (user + system), name } for every process on the machine. */
function processTable() {
  const table = new Map();
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
      // The command name is in parentheses and may hold spaces: split after its closing one.
      const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const cmd = fs.readFileSync(`/proc/${d}/cmdline`, 'utf8').split('\0').filter(Boolean);
      table.set(Number(d), { ppid: Number(rest[1]), ticks: Number(rest[11]) + Number(rest[12]), name: describe(cmd) });
    } catch {
      // gone meanwhile
    }
  }
  return table;
}

/** A short name: the service a Node process runs, or the program. */
function describe(cmd) {
  const script = cmd.find((a) => /services\/[^/]+\/dist|scripts\/|supervisor/.test(a));
  if (script) {
    const svc = /services\/([^/]+)\//.exec(script);
    return svc ? svc[1] : path.basename(script);
  }
  return path.basename(cmd[0] ?? '?');
}

/** The product's processes: `root` and all its descendants. */
function tree(table, root) {
  const pids = new Set([root]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const [pid, p] of table)
      if (!pids.has(pid) && pids.has(p.ppid)) {
        pids.add(pid);
        grew = true;
      }
  }
  return new Map([...pids].filter((pid) => table.has(pid)).map((pid) => [pid, table.get(pid)]));
}

/** CPU ticks the product used between two tables (a process started meanwhile counts whole). */
function used(before, after) {
  const rows = [];
  for (const [pid, p] of after) rows.push({ pid, name: p.name, ticks: p.ticks - (before.get(pid)?.ticks ?? 0) });
  return rows;
}

async function main() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'reelsmith-bench-idle-'));
  const port = await freePort();
  const started = Date.now();
  const product = await startProduct(dataDir, port);
  const root = product.pid;
  console.log(`product up in ${((Date.now() - started) / 1000).toFixed(1)} s (DATA_DIR ${dataDir})`);
  try {
    // Settled: the starter content imported (its analyses are start-up work) and a quiet 5 s.
    const log = path.join(dataDir, 'product.log');
    const settleDeadline = Date.now() + SETTLE_MAX_S * 1000;
    let quiet = false;
    while (Date.now() < settleDeadline) {
      const a = tree(processTable(), root);
      await sleep(5000);
      const share = (100 * used(a, tree(processTable(), root)).reduce((s, r) => s + r.ticks, 0)) / TICK / 5;
      const text = fs.readFileSync(log, 'utf8');
      const imported = !text.includes('importing the starter content') || /starter content import(ed| failed)/.test(text);
      if (share < 25 && imported) {
        quiet = true;
        break;
      }
    }
    console.log(
      `start-up ${quiet ? 'settled' : 'NOT settled'} after ${((Date.now() - started) / 1000).toFixed(0)} s; measuring ${SECONDS} s idle`,
    );
    const before = tree(processTable(), root);
    const t0 = process.hrtime.bigint();
    await sleep(SECONDS * 1000);
    const after = tree(processTable(), root);
    const wall = Number(process.hrtime.bigint() - t0) / 1e9;
    const rows = used(before, after);
    const byName = new Map();
    for (const r of rows) byName.set(r.name, (byName.get(r.name) ?? 0) + r.ticks);
    const total = (100 * rows.reduce((s, r) => s + r.ticks, 0)) / TICK / wall;
    const cpu = os.cpus();
    console.log(`\nIdle product, ${new Date().toISOString().slice(0, 16)}Z, ${os.hostname()}: ${cpu.length} x ${cpu[0]?.model ?? '?'}`);
    console.log(`${after.size} processes, ${wall.toFixed(1)} s measured (ticks of ${(1000 / TICK).toFixed(0)} ms)\n`);
    console.log('process                    % of one core');
    for (const [name, ticks] of [...byName].sort((a, b) => b[1] - a[1]))
      console.log(`${name.padEnd(26)} ${((100 * ticks) / TICK / wall).toFixed(2).padStart(6)}`);
    console.log(`\nidle product: ${total.toFixed(2)} % of one core (target <= ${TARGET} %): ${total <= TARGET ? 'met' : 'MISSED'}`);
  } finally {
    await stopProduct(product);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
