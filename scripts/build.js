// Builds what is missing or out of date: the TypeScript projects (incremental, a no-op when
// nothing changed) and the web app when its sources are newer than its last build.
'use strict';
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');

function newest(dir) {
  let t = 0;
  if (!fs.existsSync(dir)) return t;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    if (e.name === 'node_modules' || e.name === 'dist') continue;
    const p = path.join(dir, e.name);
    t = Math.max(t, e.isDirectory() ? newest(p) : fs.statSync(p).mtimeMs);
  }
  return t;
}

/**
 * `checkWeb: false` skips the web app's type-check before its build (Vite strips types without
 * checking them): `npm test` runs that check beside its unit and medium tests instead.
 */
function buildIfNeeded({ checkWeb = true } = {}) {
  const run = (args, cwd = root, env = process.env) => execFileSync(process.execPath, args, { cwd, stdio: 'inherit', env });
  run([path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-b', path.join(root, 'tsconfig.build.json')]);
  const web = path.join(root, 'web');
  const index = path.join(web, 'dist', 'index.html');
  const sources = Math.max(
    ...['src', 'build', 'public'].map((d) => newest(path.join(web, d))),
    ...['index.html', 'vite.config.ts', 'package.json'].map((f) => fs.statSync(path.join(web, f)).mtimeMs),
  );
  if (!fs.existsSync(index) || fs.statSync(index).mtimeMs < sources) {
    console.log('[build] building the web app');
    if (checkWeb) run([path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', web]);
    // Always the production build: a start from inside jest (NODE_ENV=test) once gave Vite's
    // development build (React's dev runtime, 50 KB more) to the browser tests and to dist/.
    run([path.join(root, 'node_modules', 'vite', 'bin', 'vite.js'), 'build', '--logLevel', 'warn'], web, {
      ...process.env,
      NODE_ENV: 'production',
    });
  }
}

module.exports = { buildIfNeeded };
if (require.main === module) buildIfNeeded();
