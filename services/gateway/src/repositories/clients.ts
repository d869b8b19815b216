import { dial, type Client, type Metrics } from '@reelsmith/kit';
import { billing } from '@reelsmith/proto';

/** Typed gRPC clients of the services the gateway calls; one channel each, every call with a deadline. */
export interface Peers {
  billing: Client<typeof billing.BillingService>;
  close(): void;
}

export function dialPeers(addresses: Record<string, string>, deadlineMs: number, metrics: Metrics): Peers {
  const b = dial(billing.BillingService, addresses['billing']!, { deadlineMs, metrics });
  return {
    billing: b,
    close: () => b.close(),
  };
}
