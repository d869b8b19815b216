#!/usr/bin/env node
// `npm test`: build, check the generated contracts are fresh, then run every test project:
// unit and medium tests (real PostgreSQL, NATS, PGlite, s3rver) in parallel workers, then the
// end-to-end and browser tests in two lanes side by side, each lane one spec at a time (they start
// the whole product): one lane for the specs on the shared products, one for the rest.
'use strict';
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { setTimeout, clearTimeout } = require('node:timers');

const root = path.resolve(__dirname, '..');
require('./build.js').buildIfNeeded({ checkWeb: false });

// PGlite loads its WebAssembly through a dynamic import, which jest's sandbox allows only with this flag.
const testEnv = () => ({
  ...process.env,
  NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --experimental-vm-modules`.trim(),
});

/** The machine's busy and total CPU time so far (Linux /proc/stat), to print how busy a step kept the cores. */
const cpuTimes = () => {
  try {
    const [, ...fields] = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/);
    const n = fields.map(Number);
    const idle = n[3] + (n[4] ?? 0);
    const total = n.reduce((a, b) => a + b, 0);
    return { busy: total - idle, total };
  } catch {
    return null;
  }
};
const busyShare = (before) => {
  const after = cpuTimes();
  if (!before || !after || after.total === before.total) return '';
  return `, cores ${Math.round((100 * (after.busy - before.busy)) / (after.total - before.total))} % busy`;
};

/**
 * Runs `args` under Node with the tests' environment, stopped after `timeoutMinutes` (a handle
 * left open would keep Jest waiting after its last test: fail loudly instead of hanging); prints
 * its time when it ends and resolves with its exit code. Its output goes to this terminal as it is,
 * or with `prefix` set, each line prefixed `[prefix]` (a lane beside another).
 */
const run = (label, args, { prefix, timeoutMinutes = 20 } = {}) =>
  new Promise((resolve) => {
    const started = Date.now();
    // Lanes run side by side: the machine's share is printed once for all of them, not per lane.
    const cpu = prefix ? null : cpuTimes();
    const child = spawn(process.execPath, args, {
      cwd: root,
      env: testEnv(),
      stdio: prefix ? ['ignore', 'pipe', 'pipe'] : 'inherit',
    });
    if (prefix) {
      const prefixed = (stream, out) => {
        let rest = '';
        stream.on('data', (d) => {
          const lines = (rest + d.toString()).split('\n');
          rest = lines.pop();
          for (const l of lines) out.write(`[${prefix}] ${l}\n`);
        });
        stream.on('end', () => rest && out.write(`[${prefix}] ${rest}\n`));
      };
      prefixed(child.stdout, process.stdout);
      prefixed(child.stderr, process.stderr);
    }
    const timer = setTimeout(() => {
      console.error(`[test] ${label}: still running after ${timeoutMinutes} min (an open handle?); stopped`);
      child.kill('SIGKILL');
    }, timeoutMinutes * 60_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      console.log(`[test] ${label}: ${((Date.now() - started) / 1000).toFixed(1)} s${busyShare(cpu)}${code === 0 ? '' : ' (failed)'}`);
      resolve(code ?? 1);
    });
  });

/** Runs one step with its output on this terminal; exits when it failed. */
const step = async (label, args, options = {}) => {
  console.log(`\n[test] ${label}`);
  const code = await run(label, args, options);
  if (code !== 0) process.exit(code);
};

const jest = path.join(root, 'node_modules', 'jest', 'bin', 'jest.js');
// Beside Jest's own report: each project's files, tests and time, and the slowest spec files.
const reporters = ['--reporters', 'default', '--reporters', path.join(root, 'scripts', 'project-times.js')];
// `--browser-only` (first): only the end-to-end and browser lanes below.
const browserOnly = process.argv[2] === '--browser-only';
// With a path (`npm test -- <path or jest options>`), a step whose projects hold none of it passes.
const given = process.argv.slice(browserOnly ? 3 : 2);
const extra = given.length ? [...given, '--passWithNoTests'] : [];
/**
 * Runs `args` beside the step that follows (its output kept in a file and printed when it ends, as
 * CI prints lint's): resolves with its exit code. The checks below have no part in the tests'
 * outcome, only in the run's, and take one core for about 30 s in all while the unit and medium
 * workers leave some of theirs idle (a worker waiting on PostgreSQL, ffmpeg or a file's last test).
 */
const beside = (label, args) => {
  const out = path.join(os.tmpdir(), `reelsmith-${process.pid}-${label.replace(/\W+/g, '-')}.log`);
  const fd = fs.openSync(out, 'w');
  const started = Date.now();
  const child = spawn(process.execPath, args, { cwd: root, env: testEnv(), stdio: ['ignore', fd, fd] });
  fs.closeSync(fd);
  return new Promise((resolve) => {
    child.on('error', () => resolve({ label, code: 1, out, seconds: (Date.now() - started) / 1000 }));
    child.on('close', (code) => resolve({ label, code: code ?? 1, out, seconds: (Date.now() - started) / 1000 }));
  });
};
/** Prints what a check run `beside` wrote, and whether it passed; false when it failed. */
const report = ({ label, code, out, seconds }) => {
  console.log(`\n[test] ${label} (run beside the unit and medium tests): ${seconds.toFixed(1)} s${code === 0 ? '' : ' (failed)'}`);
  const text = fs.readFileSync(out, 'utf8');
  if (text.trim()) process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
  fs.rmSync(out, { force: true });
  return code === 0;
};

const main = async () => {
  if (!browserOnly) {
    const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
    // One after the other, so that at most one check takes a core from the tests at a time.
    const checks = (async () => [
      // swc strips types without checking them; this checks the tests (and sources) as tsc would.
      await beside('type-check sources and tests', [tsc, '-p', path.join(root, 'tsconfig.test.json')]),
      // The web app's own (build.js leaves it to this run).
      await beside('type-check the web app', [tsc, '-p', path.join(root, 'web')]),
      // (That the protobuf TypeScript is up to date is a unit test: proto/test/unit/generated.spec.ts.)
      await beside('generated web API types are up to date', [path.join(root, 'scripts', 'gen-api.js'), '--check']),
    ])();
    // No --forceExit: every test closes what it opens (checked with --detectOpenHandles); a leak
    // shows as the step's time limit, not as a silent pass.
    console.log('\n[test] unit and medium tests');
    const testsPassed =
      (await run('unit and medium tests', [jest, ...extra, '--selectProjects', 'unit', 'medium', '--maxWorkers=2', ...reporters])) === 0;
    const passed = (await checks).map(report).every(Boolean);
    if (!testsPassed || !passed) process.exit(1);
  }
  // The end-to-end and browser specs: those on the default shared product
  // (test/support/shared-system.ts) in one lane, the rest (a product of their own, the showcase
  // product, or none) in the other. Within a
  // lane one spec runs at a time; the two lanes fill each other's idle time (a browser waiting on a
  // page, a product waiting on a render). With arguments (`npm test -- <jest options>`) one run.
  const specs = ['e2e', 'browser'].flatMap((dir) =>
    fs
      .readdirSync(path.join(root, 'test', dir))
      .filter((f) => f.endsWith('.spec.ts'))
      .map((f) => path.join('test', dir, f)),
  );
  // `sharedSystem()` or `sharedSystem('default')`: the default kind (the showcase kind's specs go in the other lane).
  const onShared = (file) => /\bsharedSystem\((?:'default')?\)/.test(fs.readFileSync(path.join(root, file), 'utf8'));
  // Default-product specs that run in the other lane, on a default product of that lane's own (each
  // Jest run starts its own; a start costs about 10 CPU-seconds): the two lanes end together
  // instead of the shared lane running alone for its last minute and a half. (accounts.spec.ts
  // since the run of 2026-11-30 10:45 UTC: the shared lane 489 s, the other 458 s; marketplace.spec.ts
  // since the runs of 2026-11-30 18:37 and 19:06 UTC: the shared lane's specs summed 417 s, the
  // other's 365 s, and the lanes 371/383 s and 411/369 s.)
  const BALANCED = new Set(['test/browser/reel-length.spec.ts', 'test/browser/accounts.spec.ts', 'test/browser/marketplace.spec.ts']);
  const inSharedLane = (file) => onShared(file) && !BALANCED.has(file);
  const projects = ['--selectProjects', 'e2e', 'browser', '--runInBand', ...reporters];
  if (extra.length) await step('end-to-end and browser tests', [jest, ...extra, ...projects], { timeoutMinutes: 45 });
  else {
    console.log('\n[test] end-to-end and browser tests, two lanes');
    const started = Date.now();
    const cpu = cpuTimes();
    const lanes = [
      ['shared', specs.filter(inSharedLane)],
      ['own', specs.filter((f) => !inSharedLane(f))],
    ];
    for (const [name, files] of lanes) console.log(`[test] lane ${name}: ${files.map((f) => path.basename(f)).join(', ')}`);
    Promise.all(
      lanes.map(([name, files]) =>
        run(`lane ${name}`, [jest, ...projects, '--runTestsByPath', ...files], { prefix: name, timeoutMinutes: 45 }),
      ),
    ).then((codes) => {
      const failed = codes.some((c) => c !== 0);
      console.log(
        `[test] end-to-end and browser tests: ${((Date.now() - started) / 1000).toFixed(1)} s${busyShare(cpu)}${failed ? ' (failed)' : ''}`,
      );
      process.exit(failed ? 1 : 0);
    });
  }
};

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
