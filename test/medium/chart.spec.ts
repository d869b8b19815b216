// The Helm chart, checked without a cluster: helm lint --strict; helm template with the defaults,
// values-production.yaml and every ci/ file; every rendered object validated against the
// Kubernetes and CRD schemas (kubernetes-models); each service's environment parsed by that
// service's own zod config schema; ports, probes, peers' addresses and network policies checked
// against the services' configs; the PrometheusRule through promtool; the dashboards and rules
// in the chart identical to deploy/.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { parseAllDocuments } from 'yaml';
import type { z } from 'zod';
import { ConfigError, parseConfig, SERVICE_NAMES, grpcAddrVar, type ServiceName } from '../../services/kit/src/index';
import { streams } from '../../proto/src/subjects';
import { configSchema as gatewaySchema } from '../../services/gateway/src/config';
import { configSchema as identitySchema } from '../../services/identity/src/config';
import { configSchema as billingSchema } from '../../services/billing/src/config';
import { configSchema as mediaLibrarySchema } from '../../services/media-library/src/config';
import { configSchema as orchestratorSchema } from '../../services/assembly-orchestrator/src/config';
import { configSchema as renderWorkerSchema } from '../../services/render-worker/src/config';
import { configSchema as marketplaceSchema } from '../../services/marketplace/src/config';
import { configSchema as telemetrySchema } from '../../services/telemetry/src/config';
import { k8sTools, type K8sTools } from '../support/k8s-tools';

const root = path.resolve(__dirname, '..', '..');
const CHART = path.join(root, 'helm', 'reelsmith');
const run = promisify(execFile);
/** The cluster version the chart targets (the layer's kubectl, and kubernetes-models 4.5's schemas). */
const KUBE_VERSION = '1.33.0';

const schemas: Record<ServiceName, z.ZodObject> = {
  gateway: gatewaySchema,
  identity: identitySchema,
  billing: billingSchema,
  'media-library': mediaLibrarySchema,
  'assembly-orchestrator': orchestratorSchema,
  'render-worker': renderWorkerSchema,
  marketplace: marketplaceSchema,
  telemetry: telemetrySchema,
};

/** Variables a schema cannot do without (no default, not optional). */
const requiredVars = (schema: z.ZodObject) => Object.keys(schema.shape).filter((k) => !schema.shape[k]!.safeParse(undefined).success);

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Obj = Record<string, any>;
interface Rendered {
  name: string;
  args: string[];
  objects: Obj[];
}

const variants: Array<{ name: string; args: string[]; release?: string }> = [
  { name: 'defaults', args: [] },
  // Another release name: objects are named <release>-reelsmith-<service> and must still find each other.
  { name: 'release "staging"', args: [], release: 'staging' },
  { name: 'values-production.yaml', args: ['-f', path.join(CHART, 'values-production.yaml')] },
  ...fs
    .readdirSync(path.join(CHART, 'ci'))
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((f) => ({ name: `ci/${f}`, args: ['-f', path.join(CHART, 'ci', f)] })),
];

let tools: K8sTools;
const rendered: Rendered[] = [];

beforeAll(async () => {
  tools = k8sTools();
  for (const v of variants) {
    const { stdout } = await tools.helm([
      'template',
      v.release ?? 'reelsmith',
      CHART,
      '--namespace',
      'reelsmith',
      '--kube-version',
      KUBE_VERSION,
      ...v.args,
    ]);
    const objects = parseAllDocuments(stdout)
      .map((d) => {
        if (d.errors.length) throw new Error(`${v.name}: ${d.errors[0]!.message}`);
        return d.toJS() as Obj | null;
      })
      .filter((o): o is Obj => o !== null);
    rendered.push({ ...v, objects });
  }
}, 60_000);
afterAll(() => tools?.remove());

const all = (r: Rendered, kind: string) => r.objects.filter((o) => o.kind === kind);
const one = (r: Rendered, kind: string, name: string) => {
  const o = r.objects.find((x) => x.kind === kind && x.metadata.name === name);
  if (!o) throw new Error(`${r.name}: no ${kind} ${name}`);
  return o;
};
const component = (o: Obj): string => o.metadata.labels['app.kubernetes.io/component'];
const deploymentOf = (r: Rendered, svc: string) => all(r, 'Deployment').find((d) => component(d) === svc)!;

/** The environment a container gets: envFrom ConfigMaps, then env (secret references kept apart). */
function containerEnv(r: Rendered, container: Obj) {
  const plain: Record<string, string> = {};
  const secrets: Record<string, { name: string; key: string; optional: boolean }> = {};
  for (const ef of container.envFrom ?? []) {
    if (ef.configMapRef) Object.assign(plain, one(r, 'ConfigMap', ef.configMapRef.name).data);
    else throw new Error(`unexpected envFrom ${JSON.stringify(ef)}`);
  }
  for (const e of container.env ?? []) {
    if (e.value !== undefined) plain[e.name] = e.value;
    else if (e.valueFrom?.secretKeyRef) {
      const ref = e.valueFrom.secretKeyRef;
      secrets[e.name] = { name: ref.name, key: ref.key, optional: ref.optional === true };
    } else throw new Error(`${e.name}: unexpected env source`);
  }
  return { plain, secrets };
}

/** What the process would see: plain values, and plausible values for the Secrets' keys. */
function processEnv(env: ReturnType<typeof containerEnv>, withOptional: boolean): Record<string, string> {
  const out = { ...env.plain };
  for (const [k, ref] of Object.entries(env.secrets)) {
    if (ref.optional && !withOptional) continue;
    out[k] =
      k === 'DATABASE_URL'
        ? 'postgres://reelsmith:secret@postgresql.postgresql.svc:5432/reelsmith'
        : k === 'SMTP_URL'
          ? 'smtp://user:pass@mail.example.com:587'
          : k === 'STRIPE_SECRET_KEY'
            ? `sk_test_${'x'.repeat(40)}`
            : k === 'STRIPE_PUBLISHABLE_KEY'
              ? `pk_test_${'x'.repeat(40)}`
              : 'x'.repeat(40);
  }
  return out;
}

/** The kubernetes-models module of each apiVersion the chart renders (validators and TypeScript types). */
const MODEL_MODULES: Record<string, string> = {
  v1: 'kubernetes-models/v1',
  'apps/v1': 'kubernetes-models/apps/v1',
  'batch/v1': 'kubernetes-models/batch/v1',
  'policy/v1': 'kubernetes-models/policy/v1',
  'autoscaling/v2': 'kubernetes-models/autoscaling/v2',
  'networking.k8s.io/v1': 'kubernetes-models/networking.k8s.io/v1',
  'keda.sh/v1alpha1': '@kubernetes-models/keda/keda.sh/v1alpha1',
  'monitoring.coreos.com/v1': '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1',
};

describe('Helm chart helm/reelsmith', () => {
  it('passes helm lint --strict with the defaults, values-production.yaml and every ci/ file', async () => {
    for (const v of variants) {
      const { stdout } = await tools.helm(['lint', '--strict', '--kube-version', KUBE_VERSION, CHART, ...v.args]);
      expect(stdout).toContain('0 chart(s) failed');
    }
  });

  it('refuses values of the wrong type and secrets among the plain settings (values.schema.json)', async () => {
    const fails = async (set: string) => {
      const r = await tools.helm(['template', 'x', CHART, '--set', set]).then(
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

  it('gives every service every variable its config requires, and its config parses', () => {
    for (const r of rendered) {
      for (const svc of SERVICE_NAMES) {
        const dep = deploymentOf(r, svc);
        expect(dep).toBeDefined();
        const env = containerEnv(r, dep.spec.template.spec.containers[0]);
        const given = new Set([
          ...Object.keys(env.plain),
          ...Object.entries(env.secrets)
            .filter(([, s]) => !s.optional)
            .map(([k]) => k),
        ]);
        const missing = requiredVars(schemas[svc]).filter((k) => !given.has(k));
        expect({ variant: r.name, service: svc, missing }).toEqual({ variant: r.name, service: svc, missing: [] });
        // The service's own schema accepts what the chart gives (optional secrets absent or present).
        for (const withOptional of [false, true]) {
          try {
            parseConfig(schemas[svc], processEnv(env, withOptional));
          } catch (e) {
            throw new Error(`${r.name}: ${svc}: ${e instanceof ConfigError ? e.problems.join('; ') : String(e)}`);
          }
        }
        // Listening beyond loopback requires the internal token, always from a Secret.
        expect(env.plain.GRPC_HOST).toBe('0.0.0.0');
        expect(env.secrets.INTERNAL_TOKEN).toMatchObject({ key: 'INTERNAL_TOKEN', optional: false });
        // Each service its own database.
        expect(env.secrets.DATABASE_URL?.key).toBe(`${svc.toUpperCase().replace(/-/g, '_')}_DATABASE_URL`);
        // A service that stores objects uses S3, with credentials from a Secret.
        if ('S3_BUCKET' in schemas[svc].shape) {
          expect(env.plain.STORAGE_DRIVER).toBe('s3');
          expect(Object.keys(env.secrets)).toEqual(expect.arrayContaining(['S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY']));
        } else expect(env.secrets.S3_SECRET_ACCESS_KEY).toBeUndefined();
        // Nothing that looks secret is a plain value.
        for (const k of Object.keys(env.plain)) expect(k).not.toMatch(/SECRET|TOKEN|PASSWORD|DATABASE_URL|ACCESS_KEY/);
        // The process stops within the pod's grace period (after the preStop pause).
        const grace = dep.spec.template.spec.terminationGracePeriodSeconds as number;
        const preStop = dep.spec.template.spec.containers[0].lifecycle?.preStop?.sleep?.seconds ?? 0;
        expect(Number(env.plain.SHUTDOWN_TIMEOUT_MS)).toBeLessThanOrEqual((grace - preStop) * 1000);
      }
    }
  });

  it('points every peer address at a Service that serves gRPC on that port', () => {
    for (const r of rendered) {
      for (const svc of SERVICE_NAMES) {
        const env = containerEnv(r, deploymentOf(r, svc).spec.template.spec.containers[0]);
        for (const peer of SERVICE_NAMES.filter((p) => p !== svc)) {
          const addr = env.plain[grpcAddrVar(peer)];
          expect(addr).toBeDefined();
          const [host, port] = addr!.split(':');
          const service = one(r, 'Service', host!);
          expect(component(service)).toBe(peer);
          const sp = service.spec.ports.find((p: Obj) => p.port === Number(port));
          expect(sp).toMatchObject({ name: 'grpc', targetPort: 'grpc', appProtocol: 'grpc' });
        }
      }
    }
  });

  it("matches ports and probes to each service's configured ports", () => {
    for (const r of rendered) {
      for (const svc of SERVICE_NAMES) {
        const dep = deploymentOf(r, svc);
        const c = dep.spec.template.spec.containers[0];
        const env = containerEnv(r, c).plain;
        const ports = Object.fromEntries(c.ports.map((p: Obj) => [p.name, p.containerPort]));
        expect(ports.grpc).toBe(Number(env.GRPC_PORT));
        expect(ports.ops).toBe(Number(env.OPS_PORT));
        if (svc === 'gateway') expect(ports.http).toBe(Number(env.PORT));
        else expect(ports.http).toBeUndefined();
        // Native gRPC readiness on the gRPC port; /readyz and /livez on the ops port.
        expect(c.readinessProbe.grpc.port).toBe(Number(env.GRPC_PORT));
        expect(c.startupProbe.httpGet).toEqual({ path: '/readyz', port: 'ops' });
        expect(c.livenessProbe.httpGet).toEqual({ path: '/livez', port: 'ops' });
        expect(c.args).toEqual([`services/${svc}/dist/main.js`]);
        expect(fs.existsSync(path.join(root, 'services', svc, 'src', 'main.ts'))).toBe(true);
        // The Service exposes the same named ports.
        const service = one(r, 'Service', dep.metadata.name);
        for (const p of service.spec.ports) expect(ports[p.targetPort]).toBeDefined();
        expect(service.spec.selector).toEqual(dep.spec.selector.matchLabels);
      }
    }
  });

  it('runs every pod non-root, read-only, without capabilities or a service account token', () => {
    for (const r of rendered) {
      for (const sa of all(r, 'ServiceAccount')) expect(sa.automountServiceAccountToken).toBe(false);
      const pods = [...all(r, 'Deployment'), ...all(r, 'Job')].map((o) => ({
        name: `${o.kind} ${o.metadata.name}`,
        spec: o.spec.template.spec,
      }));
      expect(pods.length).toBeGreaterThanOrEqual(8);
      for (const { name, spec } of pods) {
        const where = `${r.name}: ${name}`;
        expect([where, spec.automountServiceAccountToken]).toEqual([where, false]);
        expect(spec.securityContext).toMatchObject({ runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
        expect(spec.serviceAccountName).toBeTruthy();
        for (const c of spec.containers) {
          expect(c.securityContext).toMatchObject({
            readOnlyRootFilesystem: true,
            allowPrivilegeEscalation: false,
            capabilities: { drop: ['ALL'] },
          });
          expect(c.resources.requests).toMatchObject({ cpu: expect.anything(), memory: expect.anything() });
          expect(c.resources.limits).toMatchObject({ cpu: expect.anything(), memory: expect.anything() });
          const tmp = c.volumeMounts.find((m: Obj) => m.mountPath === '/tmp');
          expect(spec.volumes.find((v: Obj) => v.name === tmp.name).emptyDir).toBeDefined();
        }
      }
    }
  });

  it('gives media-library room in /tmp for a 3 GB upload (copied from S3 to be probed) and render workers scratch space', () => {
    const bytes = (q: string) => {
      const m = /^(\d+(?:\.\d+)?)(Ki|Mi|Gi|Ti)?$/.exec(q)!;
      return Number(m[1]) * 1024 ** ['', 'Ki', 'Mi', 'Gi', 'Ti'].indexOf(m[2] ?? '');
    };
    for (const r of rendered) {
      const volume = (svc: string, mount: string) => {
        const spec = deploymentOf(r, svc).spec.template.spec;
        const name = spec.containers[0].volumeMounts.find((m: Obj) => m.mountPath === mount).name;
        return bytes(spec.volumes.find((v: Obj) => v.name === name).emptyDir.sizeLimit);
      };
      expect(volume('media-library', '/tmp')).toBeGreaterThanOrEqual(3 * 1024 ** 3);
      const worker = containerEnv(r, deploymentOf(r, 'render-worker').spec.template.spec.containers[0]).plain;
      expect(volume('render-worker', worker.WORK_DIR!)).toBeGreaterThanOrEqual(3 * 1024 ** 3);
    }
  });

  it('migrates each database in a pre-install/pre-upgrade hook Job with the start-up runner', () => {
    const r = rendered[0]!;
    const jobs = all(r, 'Job');
    expect(jobs.map((j) => j.metadata.labels['reelsmith.dev/service']).sort()).toEqual([...SERVICE_NAMES].sort());
    for (const job of jobs) {
      const svc = job.metadata.labels['reelsmith.dev/service'] as ServiceName;
      expect(job.metadata.annotations['helm.sh/hook']).toBe('pre-install,pre-upgrade');
      const c = job.spec.template.spec.containers[0];
      expect(c.args).toEqual([`services/${svc}/dist/main.js`, '--migrate-only']);
      expect(c.image).toBe(deploymentOf(r, svc).spec.template.spec.containers[0].image);
      // Hooks run before the release's ConfigMaps exist: everything is inline or from Secrets.
      expect(c.envFrom).toBeUndefined();
      const env = containerEnv(r, c);
      parseConfig(schemas[svc], processEnv(env, false));
      expect(env.secrets.DATABASE_URL).toEqual(containerEnv(r, deploymentOf(r, svc).spec.template.spec.containers[0]).secrets.DATABASE_URL);
      // Its service account is a hook too, created before it.
      const sa = one(r, 'ServiceAccount', job.spec.template.spec.serviceAccountName);
      expect(Number(sa.metadata.annotations['helm.sh/hook-weight'])).toBeLessThan(Number(job.metadata.annotations['helm.sh/hook-weight']));
    }
  });

  it("scales render workers with KEDA on the RENDER stream's render-workers and render-chunk-workers consumers", () => {
    const consumerSource = fs.readFileSync(path.join(root, 'services', 'render-worker', 'src', 'transport', 'jobs.consumer.ts'), 'utf8');
    expect(consumerSource).toContain("durable: 'render-workers'");
    const chunkSource = fs.readFileSync(path.join(root, 'services', 'render-worker', 'src', 'transport', 'chunks.consumer.ts'), 'utf8');
    expect(chunkSource).toContain("durable: 'render-chunk-workers'");
    for (const r of rendered) {
      const objs = all(r, 'ScaledObject');
      const worker = deploymentOf(r, 'render-worker');
      if (!objs.length) {
        expect(worker.spec.replicas).toBeGreaterThanOrEqual(1);
        continue;
      }
      const so = objs[0]!;
      expect(so.spec.scaleTargetRef.name).toBe(worker.metadata.name);
      expect(worker.spec.replicas).toBeUndefined(); // KEDA owns the count
      const trigger = so.spec.triggers[0];
      expect(trigger.type).toBe('nats-jetstream');
      const prefix = containerEnv(r, worker.spec.template.spec.containers[0]).plain.NATS_PREFIX ?? '';
      expect(trigger.metadata.stream).toBe(`${prefix.replace(/[^A-Za-z0-9_-]/g, '_')}${streams.RENDER.name}`);
      expect(trigger.metadata.consumer).toBe('render-workers');
      expect(Number(trigger.metadata.lagThreshold)).toBeGreaterThan(0);
      // A long reel's pending chunk tasks count too: one reel scales the workers out.
      const chunks = so.spec.triggers[1];
      expect(chunks).toMatchObject({
        type: 'nats-jetstream',
        metadata: { stream: trigger.metadata.stream, consumer: 'render-chunk-workers' },
      });
      expect(Number(chunks.metadata.lagThreshold)).toBeGreaterThan(0);
      expect(so.spec.maxReplicaCount).toBeGreaterThanOrEqual(so.spec.minReplicaCount);
      expect(all(r, 'HorizontalPodAutoscaler').find((h) => h.spec.scaleTargetRef.name === worker.metadata.name)).toBeUndefined();
      expect(all(r, 'PodDisruptionBudget').some((p) => component(p) === 'render-worker')).toBe(true);
    }
  });

  it('opens the gateway through an Ingress fit for 3 GB uploads, Socket.IO and TLS, with an HPA and a PDB', () => {
    const r = rendered[0]!;
    const ingresses = all(r, 'Ingress');
    expect(ingresses.length).toBe(2);
    for (const ing of ingresses) {
      const size = ing.metadata.annotations['nginx.ingress.kubernetes.io/proxy-body-size'] as string;
      const bytes = Number(size.slice(0, -1)) * { k: 1024, m: 1024 ** 2, g: 1024 ** 3 }[size.slice(-1)]!;
      expect(bytes).toBeGreaterThanOrEqual(3 * 1000 ** 3);
      expect(ing.metadata.annotations['nginx.ingress.kubernetes.io/proxy-request-buffering']).toBe('off');
      expect(ing.spec.tls[0].secretName).toBeTruthy();
      const backend = ing.spec.rules[0].http.paths[0].backend.service;
      expect(component(one(r, 'Service', backend.name))).toBe('gateway');
    }
    const socket = ingresses.find((i) => i.spec.rules[0].http.paths[0].path === '/ws')!;
    expect(socket.metadata.annotations['nginx.ingress.kubernetes.io/affinity']).toBe('cookie');
    expect(Number(socket.metadata.annotations['nginx.ingress.kubernetes.io/proxy-read-timeout'])).toBeGreaterThanOrEqual(600);
    const gw = deploymentOf(r, 'gateway');
    const hpa = all(r, 'HorizontalPodAutoscaler').find((h) => h.spec.scaleTargetRef.name === gw.metadata.name)!;
    expect(hpa.spec.metrics[0].resource.name).toBe('cpu');
    expect(all(r, 'PodDisruptionBudget').some((p) => component(p) === 'gateway')).toBe(true);
  });

  it('denies by default and lets each service be called only by the services whose config names it', () => {
    for (const r of rendered.filter((x) => all(x, 'NetworkPolicy').length)) {
      const policies = all(r, 'NetworkPolicy');
      const deny = policies.find((p) => p.metadata.name.endsWith('-default-deny'))!;
      expect(deny.spec.policyTypes).toEqual(['Ingress', 'Egress']);
      expect(deny.spec.ingress).toBeUndefined();
      expect(deny.spec.egress).toBeUndefined();
      const grpcPort = Number(containerEnv(r, deploymentOf(r, 'gateway').spec.template.spec.containers[0]).plain.GRPC_PORT);
      const callersOf = (svc: string): string[] => {
        const p = policies.find((x) => x.spec.podSelector.matchLabels['app.kubernetes.io/component'] === svc)!;
        const rule = (p.spec.ingress ?? []).find((i: Obj) => i.ports.some((pt: Obj) => pt.port === grpcPort));
        return (rule?.from ?? []).map((f: Obj) => f.podSelector.matchLabels['app.kubernetes.io/component']).sort();
      };
      const calleesOf = (svc: string): string[] => {
        const p = policies.find((x) => x.spec.podSelector.matchLabels['app.kubernetes.io/component'] === svc)!;
        const rule = p.spec.egress.find((e: Obj) =>
          e.to.some((t: Obj) => t.podSelector?.matchLabels?.['app.kubernetes.io/name'] === 'reelsmith'),
        );
        return (rule?.to ?? []).map((t: Obj) => t.podSelector.matchLabels['app.kubernetes.io/component']).sort();
      };
      for (const svc of SERVICE_NAMES) {
        // Who needs svc's address (a required <SVC>_GRPC_ADDR) is exactly who may call it.
        const needers = SERVICE_NAMES.filter((c) => c !== svc && requiredVars(schemas[c]).includes(grpcAddrVar(svc))).sort();
        expect({ svc, callers: callersOf(svc) }).toEqual({ svc, callers: needers });
        const needs = SERVICE_NAMES.filter((p) => p !== svc && requiredVars(schemas[svc]).includes(grpcAddrVar(p))).sort();
        expect({ svc, callees: calleesOf(svc) }).toEqual({ svc, callees: needs });
      }
      // The gateway's HTTP port only from the ingress controller.
      const gwPolicy = policies.find((x) => x.spec.podSelector.matchLabels['app.kubernetes.io/component'] === 'gateway')!;
      const http = gwPolicy.spec.ingress.find((i: Obj) => i.ports[0].port === 8080);
      expect(http.from[0].namespaceSelector).toBeDefined();
    }
  });

  it('packages into an archive that still renders the alert rules and dashboards', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rs-chart-pkg-'));
    try {
      await tools.helm(['package', CHART, '--destination', dir]);
      const [archive] = fs.readdirSync(dir).filter((f) => f.endsWith('.tgz'));
      const { stdout } = await tools.helm([
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

// No Docker daemon in CI: the Dockerfile and skaffold.yaml are checked for what the chart relies on.
describe('images: deploy/Dockerfile and skaffold.yaml', () => {
  const dockerfile = fs.readFileSync(path.join(root, 'deploy', 'Dockerfile'), 'utf8');
  const stages = [...dockerfile.matchAll(/^FROM\s+\S+\s+AS\s+(\S+)/gm)].map((m) => m[1]);

  it('builds an app and a media target, non-root, starting node on the path the chart passes', () => {
    expect(stages).toEqual(expect.arrayContaining(['build', 'prod', 'app', 'media']));
    const values = parseAllDocuments(fs.readFileSync(path.join(CHART, 'values.yaml'), 'utf8'))[0]!.toJS() as Obj;
    expect(Object.keys(values.images).sort()).toEqual(['app', 'media']);
    for (const target of ['app', 'media']) {
      const body = dockerfile.split(/^FROM /m).find((s) => new RegExp(`AS ${target}\\b`).test(s.split('\n')[0]!))!;
      expect(body).toMatch(/^USER 65532:65532$/m);
      expect(body).toMatch(/^ENTRYPOINT \["\/[\w/]+\/node"\]$/m);
      expect(body).not.toMatch(/npm (ci|install)/);
    }
    const media = dockerfile.split(/^FROM /m).find((s) => /AS media\b/.test(s.split('\n')[0]!))!;
    expect(media).toMatch(/apt-get install[^\n]*\bffmpeg\b/);
    expect(media).toMatch(/fontconfig/);
    // The services that run ffmpeg get the media image.
    for (const svc of ['media-library', 'render-worker']) expect(values.services[svc].image).toBe('media');
  });

  it('installs production dependencies and copies the compiled code and migrations of every service', () => {
    expect(dockerfile).toMatch(/npm ci --omit=dev/);
    const workspaces = (JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { workspaces: string[] }).workspaces;
    for (const ws of workspaces.filter((w) => w !== 'web' && w !== 'scripts')) {
      expect(dockerfile).toContain(`-w ${ws} `.trimEnd());
      expect(dockerfile).toContain(`COPY ${ws}/package.json ${ws}/`);
      expect(dockerfile).toContain(`COPY --from=build /src/${ws}/dist ${ws}/dist`);
      if (fs.existsSync(path.join(root, ws, 'migrations')))
        expect(dockerfile).toContain(`COPY --from=build /src/${ws}/migrations ${ws}/migrations`);
    }
    expect(dockerfile).toContain('COPY --from=build /src/web/dist web/dist');
    const ignored = fs.readFileSync(path.join(root, '.dockerignore'), 'utf8').split('\n');
    for (const needed of ['services', 'proto', 'packages', 'web', 'scripts', 'package-lock.json']) expect(ignored).not.toContain(needed);
  });

  it('builds both targets in skaffold and deploys them into the chart, with dev and prod profiles', () => {
    const sk = parseAllDocuments(fs.readFileSync(path.join(root, 'skaffold.yaml'), 'utf8'))[0]!.toJS() as Obj;
    expect(sk.build.artifacts.map((a: Obj) => [a.image, a.docker.dockerfile, a.docker.target])).toEqual([
      ['reelsmith', 'deploy/Dockerfile', 'app'],
      ['reelsmith-media', 'deploy/Dockerfile', 'media'],
    ]);
    expect(sk.profiles.map((p: Obj) => p.name)).toEqual(['dev', 'prod']);
    for (const release of [sk.deploy.helm.releases[0], ...sk.profiles.map((p: Obj) => p.deploy.helm.releases[0])]) {
      expect(release.chartPath).toBe('helm/reelsmith');
      for (const f of release.valuesFiles ?? []) expect(fs.existsSync(path.join(root, f))).toBe(true);
      expect(Object.keys(release.setValueTemplates)).toEqual(expect.arrayContaining(['images.app.repository', 'images.media.repository']));
    }
  });
});
