// The Helm chart, checked without a cluster: helm lint --strict; values.schema.json; every rendered
// object validated against the Kubernetes and CRD schemas (kubernetes-models) and their TypeScript
// types; the packaged archive; the PrometheusRule through promtool; the dashboards and rules in the
// chart identical to deploy/. The services' settings are in chart-services.spec.ts, scaling, ingress and
// network policies in chart-scaling.spec.ts, the images in images.spec.ts.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { SERVICE_NAMES } from '../../services/kit/src/index';
import { root, CHART, run, KUBE_VERSION, variants, renderedChart, all, MODEL_MODULES, type Obj } from './chart.fixture';

const chart = renderedChart();
const { rendered } = chart;

describe('Helm chart helm/reelsmith', () => {
  it('passes helm lint --strict with the defaults, values-production.yaml and every ci/ file', async () => {
    for (const v of variants) {
      const { stdout } = await chart.tools.helm(['lint', '--strict', '--kube-version', KUBE_VERSION, CHART, ...v.args]);
      expect(stdout).toContain('0 chart(s) failed');
    }
  });

  it('refuses values of the wrong type and secrets among the plain settings (values.schema.json)', async () => {
    const fails = async (set: string) => {
      const r = await chart.tools.helm(['template', 'x', CHART, '--set', set]).then(
        () => '',
        (e: { stderr: string }) => e.stderr,
      );
      expect(r).toMatch(/values don't meet the specifications of the schema/);
      return r;
    };
    expect(await fails('services.gateway.replicas=two')).toContain('/services/gateway/replicas');
    await fails('config.INTERNAL_TOKEN=abcdefabcdefabcdef');
    await fails('services.billing.resources.limits.memory=lots');
    await fails('containerSecurityContext.readOnlyRootFilesystem=false');
    await fails('nats.auth.type=password');
    await fails('services.billing.callers[0]=nobody');
    await fails('unknownTopLevel=1');
  });

  it('renders only objects that are valid against the Kubernetes and CRD schemas', async () => {
    const kinds = new Set<string>();
    for (const r of rendered) {
      for (const o of r.objects) {
        const mod = MODEL_MODULES[o.apiVersion];
        if (!mod) throw new Error(`${r.name}: no schema for ${o.apiVersion} ${o.kind}`);
        const Model = (await import(mod))[o.kind];
        if (!Model) throw new Error(`${r.name}: ${o.apiVersion} has no kind ${o.kind}`);
        try {
          new Model(o).validate();
        } catch (e) {
          throw new Error(`${r.name}: ${o.kind} ${o.metadata?.name}: ${(e as Error).message}`);
        }
        kinds.add(`${o.apiVersion}/${o.kind}`);
      }
      // Names are unique per kind.
      const names = r.objects.map((o) => `${o.kind}/${o.metadata.name}`);
      expect(new Set(names).size).toBe(names.length);
    }
    expect([...kinds].sort()).toEqual(
      expect.arrayContaining([
        'apps/v1/Deployment',
        'autoscaling/v2/HorizontalPodAutoscaler',
        'batch/v1/Job',
        'keda.sh/v1alpha1/ScaledObject',
        'monitoring.coreos.com/v1/PrometheusRule',
        'monitoring.coreos.com/v1/ServiceMonitor',
        'networking.k8s.io/v1/Ingress',
        'networking.k8s.io/v1/NetworkPolicy',
        'policy/v1/PodDisruptionBudget',
        'v1/ConfigMap',
        'v1/Service',
        'v1/ServiceAccount',
      ]),
    );
  });

  it('renders no field the Kubernetes and CRD types do not have (TypeScript excess property checks)', async () => {
    // kubernetes-models' validators ignore unknown fields; its TypeScript types do not: each
    // distinct rendered object is type-checked as an object literal of its kind's interface.
    const seen = new Set<string>();
    const lines: string[] = [];
    const aliases = new Map<string, string>(); // module -> local type name
    for (const r of rendered) {
      for (const o of r.objects) {
        const json = JSON.stringify(o);
        if (seen.has(json)) continue;
        seen.add(json);
        const mod = `${MODEL_MODULES[o.apiVersion]}/${o.kind}`;
        if (!aliases.has(mod)) aliases.set(mod, `T${aliases.size}`);
        lines.push(`// ${r.name}: ${o.kind} ${o.metadata.name}\nexport const o${lines.length}: ${aliases.get(mod)} = ${json};`);
      }
    }
    const imports = [...aliases].map(([mod, alias]) => `import type { I${mod.split('/').pop()} as ${alias} } from '${mod}';`);
    // Inside the repository, so that the packages resolve from node_modules.
    const dir = fs.mkdtempSync(path.join(root, 'node_modules', '.rs-chart-types-'));
    try {
      fs.writeFileSync(path.join(dir, 'objects.ts'), [...imports, ...lines].join('\n'));
      const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
      const args = [
        '--noEmit',
        '--strict',
        '--skipLibCheck',
        '--target',
        'es2022',
        '--module',
        'nodenext',
        '--moduleResolution',
        'nodenext',
        '--types',
        'node',
        path.join(dir, 'objects.ts'),
      ];
      const result = await run(process.execPath, [tsc, ...args], { cwd: root }).then(
        () => '',
        (e: { stdout: string }) => e.stdout,
      );
      expect(result).toBe('');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it('packages into an archive that still renders the alert rules and dashboards', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rs-chart-pkg-'));
    try {
      await chart.tools.helm(['package', CHART, '--destination', dir]);
      const [archive] = fs.readdirSync(dir).filter((f) => f.endsWith('.tgz'));
      const { stdout } = await chart.tools.helm([
        'template',
        'reelsmith',
        path.join(dir, archive!),
        '--set',
        'metrics.prometheusRule.enabled=true,metrics.grafanaDashboards.enabled=true',
      ]);
      const objects = parseAllDocuments(stdout)
        .map((d) => d.toJS() as Obj)
        .filter(Boolean);
      const rule = objects.find((o) => o.kind === 'PrometheusRule')!;
      expect(rule.spec.groups.length).toBeGreaterThan(0);
      const dashboards = fs.readdirSync(path.join(root, 'deploy', 'grafana')).filter((f) => f.endsWith('.json'));
      expect(objects.filter((o) => o.kind === 'ConfigMap' && o.metadata.labels.grafana_dashboard).length).toBe(dashboards.length);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('keeps the chart copies of the alert rules and dashboards identical to deploy/', () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { differences } = require('../../scripts/sync-chart-files.js') as { differences(): string[] };
    expect(differences()).toEqual([]);
  });

  it('renders the alert rules as a PrometheusRule that promtool accepts, and the dashboards for the Grafana sidecar', async () => {
    const r = rendered.find((x) => all(x, 'PrometheusRule').length)!;
    expect(r).toBeDefined();
    const rule = all(r, 'PrometheusRule')[0]!;
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rs-rules-'));
    try {
      const file = path.join(dir, 'rules.json');
      fs.writeFileSync(file, JSON.stringify({ groups: rule.spec.groups }));
      const { stdout } = await run('promtool', ['check', 'rules', file]);
      expect(stdout).toMatch(/SUCCESS: \d+ rules found/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
    const deployRules = fs
      .readdirSync(path.join(root, 'deploy', 'prometheus'))
      .filter((f) => /\.ya?ml$/.test(f) && !/\.test\.ya?ml$/.test(f))
      .flatMap((f) => (parseAllDocuments(fs.readFileSync(path.join(root, 'deploy', 'prometheus', f), 'utf8'))[0]!.toJS() as Obj).groups);
    expect(rule.spec.groups).toEqual(deployRules);
    // Every alert's job selector matches the job label the ServiceMonitors set.
    const jobs = all(r, 'ServiceMonitor').map((m) => m.spec.endpoints[0].relabelings[0].replacement);
    expect(jobs.sort()).toEqual(SERVICE_NAMES.map((n) => `reelsmith-${n}`).sort());
    const dashboards = fs.readdirSync(path.join(root, 'deploy', 'grafana')).filter((f) => f.endsWith('.json'));
    const maps = all(r, 'ConfigMap').filter((c) => c.metadata.labels.grafana_dashboard === '1');
    expect(maps.length).toBe(dashboards.length);
    for (const f of dashboards) {
      const cm = maps.find((m) => m.data[f] !== undefined)!;
      expect(JSON.parse(cm.data[f])).toEqual(JSON.parse(fs.readFileSync(path.join(root, 'deploy', 'grafana', f), 'utf8')));
    }
  });
});
