// The Helm chart's services, checked without a cluster: each service's environment parsed by that
// service's own zod config schema, peers' addresses, ports and probes against the services' configs,
// pod security, scratch space and the migration hook Jobs.
import fs from 'node:fs';
import path from 'node:path';
import { ConfigError, parseConfig, SERVICE_NAMES, grpcAddrVar, type ServiceName } from '../../services/kit/src/index';
import {
  root,
  schemas,
  requiredVars,
  renderedChart,
  all,
  one,
  component,
  deploymentOf,
  containerEnv,
  processEnv,
  type Obj,
} from './chart.fixture';

const { rendered } = renderedChart();

describe('Helm chart helm/reelsmith', () => {
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
        // A render worker's ffmpeg threads are the cores its pod requests, not the node's.
        if (svc === 'render-worker') {
          const cpu = String(dep.spec.template.spec.containers[0].resources?.requests?.cpu);
          expect({ variant: r.name, threads: env.plain.RENDER_THREADS }).toEqual({ variant: r.name, threads: String(Number(cpu)) });
        }
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
});
