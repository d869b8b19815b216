// The Helm chart's scaling and network, checked without a cluster: KEDA on the RENDER stream, the
// gateway's Ingress, HPA and PDB, and network policies against the services' configs.
import fs from 'node:fs';
import path from 'node:path';
import { SERVICE_NAMES, grpcAddrVar } from '../../services/kit/src/index';
import { streams } from '../../proto/src/subjects';
import { root, schemas, requiredVars, renderedChart, all, one, component, deploymentOf, containerEnv, type Obj } from './chart.fixture';

const { rendered } = renderedChart();

describe('Helm chart helm/reelsmith', () => {
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
});
