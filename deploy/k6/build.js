// Bundles the k6 scripts (deploy/k6/src/*.ts, typed with @types/k6) into plain ES modules k6 runs:
//   node deploy/k6/build.js            -> deploy/k6/dist/<script>.js
// k6's own modules (k6, k6/http, k6/ws ...) stay imports; src/lib/ is inlined.
'use strict';
const path = require('node:path');
const fs = require('node:fs');
const esbuild = require('esbuild');

const SRC = path.join(__dirname, 'src');
/** The runnable scripts: every .ts directly in src/ (shared code lives in src/lib/). */
const scripts = () =>
  fs
    .readdirSync(SRC)
    .filter((f) => f.endsWith('.ts'))
    .sort()
    .map((f) => path.join(SRC, f));

/** Bundles every script into `outdir` (ESM for k6; `format: 'cjs'` and `plugins` are for inspection in tests). */
async function bundle(outdir = path.join(__dirname, 'dist'), extra = {}) {
  await esbuild.build({
    entryPoints: scripts(),
    bundle: true,
    format: 'esm',
    target: 'es2020',
    platform: 'neutral',
    external: ['k6', 'k6/*'],
    outdir,
    logLevel: 'silent',
    ...extra,
  });
  return scripts().map((s) => path.join(outdir, path.basename(s, '.ts') + (extra.outExtension?.['.js'] ?? '.js')));
}

module.exports = { bundle, scripts };
if (require.main === module) {
  bundle().then(
    (out) => console.log(out.map((f) => path.relative(process.cwd(), f)).join('\n')),
    (e) => {
      console.error(e.message);
      process.exit(1);
    },
  );
}
