import { dial, type Client, type Metrics } from '@reelsmith/kit';
import { billing, identity } from '@reelsmith/proto';

/** Typed gRPC clients of the services the gateway calls; one channel each, every call with a deadline. */
export interface Peers {
  billing: Client<typeof billing.BillingService>;
  identity: Client<typeof identity.IdentityService>;
  close(): void;
}

export function dialPeers(addresses: Record<string, string>, deadlineMs: number, metrics: Metrics): Peers {
  const peers = {
    billing: dial(billing.BillingService, addresses['billing']!, { deadlineMs, metrics }),
    identity: dial(identity.IdentityService, addresses['identity']!, { deadlineMs, metrics }),
  };
  return { ...peers, close: () => Object.values(peers).forEach((c) => c.close()) };
}
