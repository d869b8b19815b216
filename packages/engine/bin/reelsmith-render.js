#!/usr/bin/env node
'use strict';
// Thin launcher; the CLI is built from src/cli.ts (npm run build, or npm start builds it).
const path = require('node:path');
const fs = require('node:fs');
const cli = path.join(__dirname, '..', 'dist', 'cli.js');
if (!fs.existsSync(cli)) {
  process.stderr.write('reelsmith-render: not built yet; run `npm run build` in the repository first\n');
  process.exit(1);
}
require(cli)
  .main()
  .then((code) => process.exit(code));
