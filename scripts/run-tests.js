#!/usr/bin/env node
// `npm test`: build, check the generated contracts are fresh, then run every test project:
// unit and medium tests (real PostgreSQL, NATS, PGlite, s3rver) in parallel workers, then the
// end-to-end and browser tests one at a time (they start the whole product).
'use strict';
const { spawnSync } = require('node:child_process');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
require('./build.js').buildIfNeeded();

const step = (label, args, extraEnv = {}, timeoutMinutes = 20) => {
  console.log(`\n[test] ${label}`);
  const started = Date.now();
  const r = spawnSync(process.execPath, args, {
    cwd: root,
    stdio: 'inherit',
    // A handle left open would keep jest waiting after the last test; fail loudly instead of hanging.
    timeout: timeoutMinutes * 60_000,
    killSignal: 'SIGKILL',
    // PGlite loads its WebAssembly through a dynamic import, which jest's sandbox allows only with this flag.
    env: { ...process.env, ...extraEnv, NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --experimental-vm-modules`.trim() },
  });
  if (r.error?.code === 'ETIMEDOUT') console.error(`[test] ${label}: still running after ${timeoutMinutes} min (an open handle?); stopped`);
  console.log(`[test] ${label}: ${((Date.now() - started) / 1000).toFixed(1)} s${r.status === 0 ? '' : ' (failed)'}`);
  if (r.status !== 0) process.exit(r.status ?? 1);
};

const jest = path.join(root, 'node_modules', 'jest', 'bin', 'jest.js');
// Beside Jest's own report: each project's files, tests and time, and the slowest spec files.
const passthrough = ['--reporters', 'default', '--reporters', path.join(root, 'scripts', 'project-times.js'), ...process.argv.slice(2)];
// swc strips types without checking them; this checks the tests (and sources) as tsc would.
step('type-check sources and tests', [
  path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'),
  '-p',
  path.join(root, 'tsconfig.test.json'),
]);
step('generated contracts are up to date', [path.join(root, 'proto', 'gen.js'), '--check']);
step('generated web API types are up to date', [path.join(root, 'scripts', 'gen-api.js'), '--check']);
// No --forceExit: every test closes what it opens (checked with --detectOpenHandles); a leak
// shows as the step's time limit, not as a silent pass.
step('unit and medium tests', [jest, '--selectProjects', 'unit', 'medium', '--maxWorkers=2', ...passthrough]);
step('end-to-end and browser tests', [jest, '--selectProjects', 'e2e', 'browser', '--runInBand', ...passthrough], {}, 45);
