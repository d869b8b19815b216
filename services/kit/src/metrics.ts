import client, { Counter, Gauge, Histogram, Registry } from 'prom-client';

export interface Metrics {
  registry: Registry;
  grpcServerSeconds: Histogram<'service' | 'method' | 'code'>;
  grpcClientSeconds: Histogram<'service' | 'method' | 'code'>;
  httpRequestSeconds: Histogram<'method' | 'route' | 'status_code'>;
  /** Calls whose caller had gone (cancelled or past its deadline) before the handler ran. */
  grpcServerSkipped?: Counter<'service' | 'method'>;
  /** Render worker: one render from start to stored reel, by outcome. */
  renderSeconds: Histogram<'outcome'>;
  /** Render worker: from the job's submission to its first delivery being started. */
  renderQueueWaitSeconds: Histogram;
  /** Render worker: jobs that failed on their last allowed delivery. */
  renderDeadLetters: Counter;
  /** Render work waiting for a worker (pending) and being rendered (in_progress). */
  renderQueueDepth: Gauge<'state'>;
  /** Every NATS message handler: duration by subject and what became of the message. */
  natsHandlerSeconds: Histogram<'subject' | 'outcome'>;
}

const buckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** One registry per process: Node defaults plus request-duration histograms in base units. */
export function createMetrics(service: string): Metrics {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  // The event-loop delay is sampled every 250 ms, not every 10 ms (prom-client's default): a timer
  // 100 times a second in each of the product's processes was most of an idle product's CPU.
  // Any stall of the loop still delays the next sample and shows in the histogram.
  client.collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 250 });
  return {
    registry,
    grpcServerSeconds: new Histogram({
      name: 'grpc_server_handling_seconds',
      help: 'Duration of gRPC calls handled by this service',
      labelNames: ['service', 'method', 'code'],
      buckets,
      registers: [registry],
    }),
    grpcClientSeconds: new Histogram({
      name: 'grpc_client_handling_seconds',
      help: 'Duration of gRPC calls made by this service',
      labelNames: ['service', 'method', 'code'],
      buckets,
      registers: [registry],
    }),
    grpcServerSkipped: new Counter({
      name: 'grpc_server_skipped_total',
      help: 'gRPC calls not handled because the caller had cancelled or its deadline had passed',
      labelNames: ['service', 'method'],
      registers: [registry],
    }),
    httpRequestSeconds: new Histogram({
      name: 'http_request_duration_seconds',
      help: 'Duration of HTTP requests by route template',
      labelNames: ['method', 'route', 'status_code'],
      buckets,
      registers: [registry],
    }),
    renderSeconds: new Histogram({
      name: 'reelsmith_render_seconds',
      help: 'Duration of one render delivery, by outcome',
      labelNames: ['outcome'],
      buckets: [1, 5, 10, 30, 60, 120, 300, 600, 1200, 2400],
      registers: [registry],
    }),
    renderQueueWaitSeconds: new Histogram({
      name: 'reelsmith_render_queue_wait_seconds',
      help: 'Time from submission to the first start of a render job',
      buckets: [0.5, 1, 5, 10, 30, 60, 120, 300, 600],
      registers: [registry],
    }),
    renderQueueDepth: new Gauge({
      name: 'reelsmith_render_queue_depth',
      help: 'Render jobs waiting for a worker (pending) or being rendered (in_progress)',
      labelNames: ['state'],
      registers: [registry],
    }),
    natsHandlerSeconds: new Histogram({
      name: 'nats_handler_seconds',
      help: 'Duration of NATS message handlers, by subject and outcome (ack, retry, drop, dead_letter, dead_letter_failed)',
      labelNames: ['subject', 'outcome'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5, 30, 120, 600],
      registers: [registry],
    }),
    renderDeadLetters: new Counter({
      name: 'reelsmith_render_dead_letters_total',
      help: 'Render jobs given up after their last allowed delivery',
      registers: [registry],
    }),
  };
}

/** The metric types, for services that declare their own metrics on the registry. */
export { Counter, Gauge, Histogram } from 'prom-client';
