import { health } from '@reelsmith/proto';
import { bind, dial, type ServiceBinding } from './grpc.js';

const { HealthCheckResponse_ServingStatus: Status } = health;
export type ServingStatus = 'SERVING' | 'NOT_SERVING' | 'UNKNOWN';

/** A dependency that must answer for the service to be SERVING (database, NATS, a peer...). */
export interface DependencyCheck {
  name: string;
  check(): Promise<void>;
}

export interface HealthOptions {
  checks: DependencyCheck[];
  /** How long one dependency may take to answer before it counts as down. */
  timeoutMs?: number;
  /** Results are reused for this long so that probes cannot overload a dependency. */
  cacheMs?: number;
}

const withTimeout = <T>(p: Promise<T>, ms: number, what: string) =>
  new Promise<T>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms);
    p.then(
      (v) => (clearTimeout(t), resolve(v)),
      (e: unknown) => (clearTimeout(t), reject(e instanceof Error ? e : new Error(String(e)))),
    );
  });

/**
 * The service's health: SERVING only while it is not shutting down and every dependency answers.
 * Backs both the gRPC health service and the HTTP readiness probe.
 */
export class HealthMonitor {
  private draining = false;
  private cached?: { at: number; status: ServingStatus; failures: string[] };
  private readonly timeoutMs: number;
  private readonly cacheMs: number;

  constructor(private readonly opts: HealthOptions) {
    this.timeoutMs = opts.timeoutMs ?? 2000;
    this.cacheMs = opts.cacheMs ?? 1000;
  }

  /** Called first thing on SIGTERM: from now on the service reports NOT_SERVING. */
  drain(): void {
    this.draining = true;
    this.cached = undefined;
  }

  async status(): Promise<{ status: ServingStatus; failures: string[] }> {
    if (this.draining) return { status: 'NOT_SERVING', failures: ['shutting down'] };
    if (this.cached && Date.now() - this.cached.at < this.cacheMs) return this.cached;
    const results = await Promise.allSettled(this.opts.checks.map((c) => withTimeout(c.check(), this.timeoutMs, c.name)));
    const failures = results.flatMap((r, i) =>
      r.status === 'rejected' ? [`${this.opts.checks[i]!.name}: ${(r.reason as Error).message}`] : [],
    );
    const status: ServingStatus = failures.length === 0 && !this.draining ? 'SERVING' : 'NOT_SERVING';
    this.cached = { at: Date.now(), status, failures };
    return this.cached;
  }

  binding(): ServiceBinding {
    const toProto = (s: ServingStatus) => (s === 'SERVING' ? Status.SERVING : s === 'NOT_SERVING' ? Status.NOT_SERVING : Status.UNKNOWN);
    return bind(health.Health, {
      check: async () => {
        // Only the whole-server name ("") and our own service are known.
        return { status: toProto((await this.status()).status) };
      },
      watch: async (_req, send, ctx) => {
        let last: ServingStatus | undefined;
        while (!ctx.signal.aborted) {
          const { status } = await this.status();
          if (status !== last) send({ status: toProto(status) });
          last = status;
          await new Promise((r) => setTimeout(r, 1000));
        }
      },
    });
  }
}

/** Asks a service's standard gRPC health endpoint; anything but an answer of SERVING is down. */
export async function checkRemoteHealth(address: string, deadlineMs = 2000): Promise<ServingStatus> {
  const client = dial(health.Health, address, { deadlineMs });
  try {
    const res = await client.check({ service: '' });
    return res.status === Status.SERVING ? 'SERVING' : res.status === Status.NOT_SERVING ? 'NOT_SERVING' : 'UNKNOWN';
  } catch {
    return 'NOT_SERVING';
  } finally {
    client.close();
  }
}
