import { dial, type Client, type Metrics } from '@reelsmith/kit';
import { assembly, billing, identity, marketplace, media, telemetry, webhooks } from '@reelsmith/proto';
import { Admission, type AdmissionLimits, type AdmissionObserver } from '../domain/admission.js';

/** Typed gRPC clients of the services the gateway calls; one channel each, every call with a deadline. */
export interface Peers {
  billing: Client<typeof billing.BillingService>;
  identity: Client<typeof identity.IdentityService>;
  media: Client<typeof media.MediaLibraryService>;
  jobs: Client<typeof assembly.AssemblyOrchestratorService>;
  /** The orchestrator's webhooks (same address as `jobs`). */
  webhooks: Client<typeof webhooks.WebhookService>;
  telemetry: Client<typeof telemetry.TelemetryService>;
  marketplace: Client<typeof marketplace.MarketplaceService>;
  close(): void;
}

export function dialPeers(addresses: Record<string, string>, deadlineMs: number, metrics: Metrics): Peers {
  const peers = {
    billing: dial(billing.BillingService, addresses['billing']!, { deadlineMs, metrics }),
    identity: dial(identity.IdentityService, addresses['identity']!, { deadlineMs, metrics }),
    // Registering an upload probes and thumbnails it: allow it more time than a plain call.
    media: dial(media.MediaLibraryService, addresses['media-library']!, { deadlineMs: Math.max(deadlineMs, 60_000), metrics }),
    jobs: dial(assembly.AssemblyOrchestratorService, addresses['assembly-orchestrator']!, {
      deadlineMs: Math.max(deadlineMs, 15_000),
      metrics,
    }),
    webhooks: dial(webhooks.WebhookService, addresses['assembly-orchestrator']!, { deadlineMs, metrics }),
    // Channels connect lazily: a test that never asks telemetry needs no address for it.
    telemetry: dial(telemetry.TelemetryService, addresses['telemetry'] ?? '127.0.0.1:1', { deadlineMs, metrics }),
    // Configuration requires every address; tests that never call the marketplace may leave it out
    // (channels connect lazily, so an unused one never dials).
    marketplace: dial(marketplace.MarketplaceService, addresses['marketplace'] ?? '127.0.0.1:1', { deadlineMs, metrics }),
  };
  return { ...peers, close: () => Object.values(peers).forEach((c) => c.close()) };
}

/** Every call of `client` goes through `gate`. */
export function gated<C extends object>(client: C, gate: Admission): C {
  return new Proxy(client, {
    get(target, prop, receiver) {
      const value: unknown = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function' || prop === 'close') return value;
      return (...args: unknown[]) => gate.run(() => (value as (...a: unknown[]) => Promise<unknown>).apply(target, args));
    },
  });
}

export interface AdmissionConfig {
  identity: AdmissionLimits;
  /** Each other peer's own limits. */
  others: AdmissionLimits;
}

/**
 * The peers behind admission control: identity's calls (session checks above all) and each other
 * service's calls are bounded in flight with a bounded queue; beyond it a call is shed at once.
 */
export function admitted(peers: Peers, limits: AdmissionConfig, observer?: AdmissionObserver): Peers & { gates: Admission[] } {
  const gates = {
    identity: new Admission('identity', limits.identity, observer),
    billing: new Admission('billing', limits.others, observer),
    media: new Admission('media-library', limits.others, observer),
    jobs: new Admission('assembly-orchestrator', limits.others, observer),
    telemetry: new Admission('telemetry', limits.others, observer),
    marketplace: new Admission('marketplace', limits.others, observer),
  };
  return {
    identity: gated(peers.identity, gates.identity),
    billing: gated(peers.billing, gates.billing),
    media: gated(peers.media, gates.media),
    jobs: gated(peers.jobs, gates.jobs),
    webhooks: gated(peers.webhooks, gates.jobs),
    telemetry: gated(peers.telemetry, gates.telemetry),
    marketplace: gated(peers.marketplace, gates.marketplace),
    close: () => peers.close(),
    gates: Object.values(gates),
  };
}
