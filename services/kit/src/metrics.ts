import client, { Histogram, Registry } from 'prom-client';

export interface Metrics {
  registry: Registry;
  grpcServerSeconds: Histogram<'service' | 'method' | 'code'>;
  grpcClientSeconds: Histogram<'service' | 'method' | 'code'>;
  httpRequestSeconds: Histogram<'method' | 'route' | 'status_code'>;
}

const buckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** One registry per process: Node defaults plus request-duration histograms in base units. */
export function createMetrics(service: string): Metrics {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  client.collectDefaultMetrics({ register: registry });
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
    httpRequestSeconds: new Histogram({
      name: 'http_request_duration_seconds',
      help: 'Duration of HTTP requests by route template',
      labelNames: ['method', 'route', 'status_code'],
      buckets,
      registers: [registry],
    }),
  };
}
