#!/usr/bin/env node
// npm run library:import -- DIR : builds what is missing, then imports DIR into the stock libraries
// (services/media-library/src/import-cli.ts).
'use strict';
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const cli = path.join(root, 'services', 'media-library', 'dist', 'import-cli.js');
if (!fs.existsSync(cli)) {
  const b = spawnSync(process.execPath, [path.join(root, 'scripts', 'build.js')], { stdio: 'inherit', cwd: root });
  if (b.status !== 0) process.exit(b.status ?? 1);
}
// npm runs scripts at the root; a folder is named relative to where the user typed the command.
const from = process.env.INIT_CWD || process.cwd();
const args = process.argv.slice(2).map((a) => (a.startsWith('-') ? a : path.resolve(from, a)));
const r = spawnSync(process.execPath, [cli, ...args], { stdio: 'inherit' });
process.exit(r.status ?? 1);
