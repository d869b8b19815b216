// The cluster's alert rules and dashboards: promtool checks and unit-tests the rules, and every
// metric name in a rule or a Grafana expression must be one the services really export.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createMetrics } from '../../services/kit/src/metrics';

const root = path.resolve(__dirname, '..', '..');
const prom = path.join(root, 'deploy', 'prometheus');

/** Metric names in a PromQL expression: identifiers that are not functions, keywords or labels. */
export function metricNames(expr: string): string[] {
  const stripped = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g, '')
    .replace(/\{[^}]*\}/g, '')
    .replace(/\[[^\]]*\]/g, '')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, '');
  const names = new Set<string>();
  for (const m of stripped.matchAll(/\b([a-zA-Z_:][a-zA-Z0-9_:]*)\b(\s*\()?/g)) {
    if (m[2] || /^(and|or|unless|offset|bool|inf|nan)$/i.test(m[1]!)) continue;
    names.add(m[1]!);
  }
  return [...names];
}

async function exported(): Promise<Set<string>> {
  const names = new Set(['up']); // written by Prometheus itself for every target
  for (const m of await createMetrics('check').registry.getMetricsAsJSON()) {
    names.add(m.name);
    if (String(m.type) === 'histogram') for (const s of ['_bucket', '_sum', '_count']) names.add(m.name + s);
    if (String(m.type) === 'summary') for (const s of ['_sum', '_count']) names.add(m.name + s);
  }
  return names;
}

function grafanaExprs(): string[] {
  const out: string[] = [];
  const walk = (o: unknown): void => {
    if (Array.isArray(o)) o.forEach(walk);
    else if (o && typeof o === 'object')
      for (const [k, v] of Object.entries(o)) {
        if (k === 'expr' && typeof v === 'string') out.push(v);
        else walk(v);
      }
  };
  for (const f of fs.readdirSync(path.join(root, 'deploy', 'grafana')).filter((f) => f.endsWith('.json')))
    walk(JSON.parse(fs.readFileSync(path.join(root, 'deploy', 'grafana', f), 'utf8')));
  return out;
}

describe('alert rules and dashboards', () => {
  it('promtool accepts the rules and their unit tests pass', () => {
    expect(execFileSync('promtool', ['check', 'rules', 'rules.yaml'], { cwd: prom, encoding: 'utf8' })).toContain('SUCCESS');
    expect(execFileSync('promtool', ['test', 'rules', 'rules.test.yaml'], { cwd: prom, encoding: 'utf8' })).toContain('SUCCESS');
  });

  it('uses only metric names the services export', async () => {
    const known = await exported();
    const rules = fs.readFileSync(path.join(prom, 'rules.yaml'), 'utf8');
    const ruleExprs = [...rules.matchAll(/expr:\s*(\|\n((?:\s{10,}.*\n?)+)|.*)/g)].map((m) => m[2] ?? m[1]!);
    const exprs = [...ruleExprs, ...grafanaExprs()];
    expect(exprs.length).toBeGreaterThan(8);
    const unknown = exprs.flatMap((e) =>
      metricNames(e)
        .filter((n) => !known.has(n))
        .map((n) => `${n} in ${e.trim()}`),
    );
    expect(unknown).toEqual([]);
    // The job metrics the alerts need are among them.
    for (const n of [
      'reelsmith_render_seconds_bucket',
      'reelsmith_render_queue_wait_seconds_bucket',
      'reelsmith_render_dead_letters_total',
    ])
      expect(known.has(n)).toBe(true);
  });
});
