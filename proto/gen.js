// Regenerates src/gen from the .proto files with buf and the local protoc-gen-es plugin.
// `node gen.js --check` generates into a temporary folder and fails if src/gen is stale.
'use strict';
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const here = __dirname;

function findBin(name) {
  for (const dir of [path.join(here, 'node_modules', '.bin'), path.join(here, '..', 'node_modules', '.bin')]) {
    const p = path.join(dir, name);
    if (fs.existsSync(p)) return p;
  }
  throw new Error(`${name} not found; run npm ci`);
}

// buf.gen.yaml writes to src/gen below --output; the plugin is found on PATH (node_modules/.bin).
function generate(outputRoot) {
  const buf = findBin('buf');
  const binDir = path.dirname(findBin('protoc-gen-es'));
  execFileSync(buf, ['generate', '--template', 'buf.gen.yaml', '--output', outputRoot], {
    cwd: here,
    stdio: 'inherit',
    env: { ...process.env, PATH: `${binDir}${path.delimiter}${process.env.PATH}` },
  });
}

function listFiles(dir, base = dir) {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? listFiles(p, base) : [path.relative(base, p)];
  });
}

if (process.argv.includes('--check')) {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'proto-gen-'));
  try {
    generate(tmp);
    const fresh = path.join(tmp, 'src', 'gen');
    const committed = path.join(here, 'src', 'gen');
    const a = listFiles(fresh).sort();
    const b = listFiles(committed).sort();
    const stale = [];
    for (const f of new Set([...a, ...b])) {
      const x = fs.existsSync(path.join(fresh, f)) ? fs.readFileSync(path.join(fresh, f), 'utf8') : null;
      const y = fs.existsSync(path.join(committed, f)) ? fs.readFileSync(path.join(committed, f), 'utf8') : null;
      if (x !== y) stale.push(f);
    }
    if (stale.length) {
      console.error(`proto/src/gen is stale (run npm run gen): ${stale.join(', ')}`);
      process.exit(1);
    }
    console.log('proto/src/gen is up to date');
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
} else {
  fs.rmSync(path.join(here, 'src', 'gen'), { recursive: true, force: true });
  generate('.');
}
