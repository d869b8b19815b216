#!/usr/bin/env node
// `npm start`: builds whatever is missing or out of date, then hands over to the supervisor.
'use strict';
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const run = (cmd, args) => execFileSync(cmd, args, { cwd: root, stdio: 'inherit' });
const npx = (bin, args) => run(process.execPath, [require.resolve(bin, { paths: [root] }), ...args]);

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

// TypeScript project references build incrementally: a no-op when nothing changed.
npx('typescript/bin/tsc', ['-b', 'tsconfig.build.json']);
const webIndex = path.join(root, 'web', 'dist', 'index.html');
const webSrc = Math.max(newest(path.join(root, 'web', 'src')), fs.statSync(path.join(root, 'web', 'index.html')).mtimeMs);
if (!fs.existsSync(webIndex) || fs.statSync(webIndex).mtimeMs < webSrc) {
  console.log('[start] building the web app');
  run(process.execPath, [require.resolve('vite/bin/vite.js', { paths: [path.join(root, 'web')] }), 'build', path.join(root, 'web')]);
}
require('./dist/supervisor.js');
