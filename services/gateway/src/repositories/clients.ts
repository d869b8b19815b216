import { dial, type Client, type Metrics } from '@reelsmith/kit';
import { assembly, billing, identity, media } from '@reelsmith/proto';

/** Typed gRPC clients of the services the gateway calls; one channel each, every call with a deadline. */
export interface Peers {
  billing: Client<typeof billing.BillingService>;
  identity: Client<typeof identity.IdentityService>;
  media: Client<typeof media.MediaLibraryService>;
  jobs: Client<typeof assembly.AssemblyOrchestratorService>;
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
  };
  return { ...peers, close: () => Object.values(peers).forEach((c) => c.close()) };
}
