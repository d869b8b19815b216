// The Helm chart as the chart specs see it, without a cluster: its variants rendered by helm template
// (the defaults, another release name, values-production.yaml and every ci/ file), the services' own
// config schemas, and finders for rendered objects and for the environment a container gets.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { parseAllDocuments } from 'yaml';
import type { z } from 'zod';
import type { ServiceName } from '../../services/kit/src/index';
import { configSchema as gatewaySchema } from '../../services/gateway/src/config';
import { configSchema as identitySchema } from '../../services/identity/src/config';
import { configSchema as billingSchema } from '../../services/billing/src/config';
import { configSchema as mediaLibrarySchema } from '../../services/media-library/src/config';
import { configSchema as orchestratorSchema } from '../../services/assembly-orchestrator/src/config';
import { configSchema as renderWorkerSchema } from '../../services/render-worker/src/config';
import { configSchema as marketplaceSchema } from '../../services/marketplace/src/config';
import { configSchema as telemetrySchema } from '../../services/telemetry/src/config';
import { k8sTools, type K8sTools } from '../support/k8s-tools';

export const root = path.resolve(__dirname, '..', '..');
export const CHART = path.join(root, 'helm', 'reelsmith');
export const run = promisify(execFile);
/** The cluster version the chart targets (the layer's kubectl, and kubernetes-models 4.5's schemas). */
export const KUBE_VERSION = '1.33.0';

export const schemas: Record<ServiceName, z.ZodObject> = {
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
export const requiredVars = (schema: z.ZodObject) =>
  Object.keys(schema.shape).filter((k) => !schema.shape[k]!.safeParse(undefined).success);

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Obj = Record<string, any>;
export interface Rendered {
  name: string;
  args: string[];
  objects: Obj[];
}

export const variants: Array<{ name: string; args: string[]; release?: string }> = [
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

/**
 * The chart rendered with every variant (helm template) once before the calling file's tests, and
 * the helm and kubectl binaries they use (removed after them).
 */
export function renderedChart(): { rendered: Rendered[]; tools: K8sTools } {
  const chart = { rendered: [] as Rendered[], tools: undefined as K8sTools | undefined };
  beforeAll(async () => {
    const tools = (chart.tools = k8sTools());
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
      chart.rendered.push({ ...v, objects });
    }
  }, 60_000);
  afterAll(() => chart.tools?.remove());
  return {
    rendered: chart.rendered,
    get tools() {
      if (!chart.tools) throw new Error('the chart tools exist only while the tests run');
      return chart.tools;
    },
  };
}

export const all = (r: Rendered, kind: string) => r.objects.filter((o) => o.kind === kind);
export const one = (r: Rendered, kind: string, name: string) => {
  const o = r.objects.find((x) => x.kind === kind && x.metadata.name === name);
  if (!o) throw new Error(`${r.name}: no ${kind} ${name}`);
  return o;
};
export const component = (o: Obj): string => o.metadata.labels['app.kubernetes.io/component'];
export const deploymentOf = (r: Rendered, svc: string) => all(r, 'Deployment').find((d) => component(d) === svc)!;

/** The environment a container gets: envFrom ConfigMaps, then env (secret references kept apart). */
export function containerEnv(r: Rendered, container: Obj) {
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
export function processEnv(env: ReturnType<typeof containerEnv>, withOptional: boolean): Record<string, string> {
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
export const MODEL_MODULES: Record<string, string> = {
  v1: 'kubernetes-models/v1',
  'apps/v1': 'kubernetes-models/apps/v1',
  'batch/v1': 'kubernetes-models/batch/v1',
  'policy/v1': 'kubernetes-models/policy/v1',
  'autoscaling/v2': 'kubernetes-models/autoscaling/v2',
  'networking.k8s.io/v1': 'kubernetes-models/networking.k8s.io/v1',
  'keda.sh/v1alpha1': '@kubernetes-models/keda/keda.sh/v1alpha1',
  'monitoring.coreos.com/v1': '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1',
};
