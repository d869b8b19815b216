import { Counter, Gauge, Histogram, type Metrics } from '@reelsmith/kit';
import type { AdmissionObserver } from '../domain/admission.js';
import type { VerificationObserver } from '../domain/sessions.js';

export type GatewayObservers = AdmissionObserver & VerificationObserver & { rateLimited(route: string): void };

/** The gateway's own Prometheus metrics: shedding, queue depth, session verification. */
export function gatewayMetrics(metrics: Metrics): GatewayObservers {
  const registers = [metrics.registry];
  const shed = new Counter({
    name: 'gateway_shed_total',
    help: 'Requests refused at once (503 + Retry-After) because a dependency was at its admission limit',
    labelNames: ['gate', 'why'],
    registers,
  });
  const inFlight = new Gauge({ name: 'gateway_admission_in_flight', help: 'gRPC calls running, by peer', labelNames: ['gate'], registers });
  const queued = new Gauge({
    name: 'gateway_admission_queue_depth',
    help: 'gRPC calls waiting for a slot, by peer',
    labelNames: ['gate'],
    registers,
  });
  const verify = new Histogram({
    name: 'gateway_session_verification_seconds',
    help: 'Time identity took to verify a session (cache misses only), by outcome',
    labelNames: ['outcome'],
    buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers,
  });
  const cache = new Counter({
    name: 'gateway_session_cache_total',
    help: 'Session lookups in the gateway cache, by result',
    labelNames: ['result'],
    registers,
  });
  const limited = new Counter({
    name: 'gateway_rate_limited_total',
    help: 'Requests answered 429 by the gateway rate limits, by route',
    labelNames: ['route'],
    registers,
  });
  return {
    shed: (gate, why) => shed.inc({ gate, why }),
    depth: (gate, running, waiting) => {
      inFlight.set({ gate }, running);
      queued.set({ gate }, waiting);
    },
    verified: (seconds, outcome) => verify.observe({ outcome }, seconds),
    cache: (hit) => cache.inc({ result: hit ? 'hit' : 'miss' }),
    rateLimited: (route) => limited.inc({ route }),
  };
}
