// Copies the alert rules (deploy/prometheus/*.yaml, not promtool's *.test.yaml) and Grafana dashboards (deploy/grafana/*.json)
// into the chart (helm/reelsmith/files/), which renders them as a PrometheusRule and ConfigMaps.
// deploy/ holds the canonical files; helm packages cannot follow symlinks, hence copies.
// `node scripts/sync-chart-files.js` after editing them; `--check` (used by the chart test)
// only reports differences and exits 1 when there are any.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const pairs = [
  {
    from: path.join(root, 'deploy', 'prometheus'),
    to: path.join(root, 'helm', 'reelsmith', 'files', 'prometheus'),
    ext: /^(?!.*\.test\.ya?ml$).*\.ya?ml$/,
  }, // promtool's unit tests (*.test.yaml) are not rules
  { from: path.join(root, 'deploy', 'grafana'), to: path.join(root, 'helm', 'reelsmith', 'files', 'grafana'), ext: /\.json$/ },
];

const list = (dir, ext) =>
  fs.existsSync(dir)
    ? fs
        .readdirSync(dir)
        .filter((f) => ext.test(f))
        .sort()
    : [];

/** The differences between deploy/ and the chart's copies, as sentences. */
function differences() {
  const out = [];
  for (const { from, to, ext } of pairs) {
    const want = list(from, ext);
    const have = list(to, ext);
    for (const f of want) {
      const dst = path.join(to, f);
      if (!fs.existsSync(dst)) out.push(`${path.relative(root, dst)} is missing`);
      else if (!fs.readFileSync(dst).equals(fs.readFileSync(path.join(from, f)))) out.push(`${path.relative(root, dst)} differs`);
    }
    for (const f of have) if (!want.includes(f)) out.push(`${path.relative(root, path.join(to, f))} has no source in deploy/`);
  }
  return out;
}

function sync() {
  for (const { from, to, ext } of pairs) {
    fs.mkdirSync(to, { recursive: true });
    const want = list(from, ext);
    for (const f of list(to, ext)) if (!want.includes(f)) fs.rmSync(path.join(to, f));
    for (const f of want) fs.copyFileSync(path.join(from, f), path.join(to, f));
  }
}

module.exports = { differences, sync };
if (require.main === module) {
  if (process.argv.includes('--check')) {
    const d = differences();
    for (const line of d) console.error(line);
    process.exit(d.length ? 1 : 0);
  }
  sync();
  console.log('chart files are in sync with deploy/');
}
