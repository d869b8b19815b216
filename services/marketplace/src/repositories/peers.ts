import { dial, type Metrics, type ObjectStore } from '@reelsmith/kit';
import { billing, identity } from '@reelsmith/proto';
import type { ClipStore, Credits, Users } from '../domain/marketplace.service.js';

/** Identity (the uploader's e-mail) and billing (credits grants) over gRPC. */
export function grpcPeers(
  addr: { identity: string; billing: string },
  deadlineMs: number,
  metrics: Metrics,
): Users & Credits & { close(): void } {
  const i = dial(identity.IdentityService, addr.identity, { deadlineMs, metrics });
  const b = dial(billing.BillingService, addr.billing, { deadlineMs, metrics });
  return {
    email: async (userId) => (await i.getUser({ userId })).user?.email ?? '',
    grant: async (userId, credits, key, reason) => {
      await b.grant({ userId, credits: BigInt(credits), idempotencyKey: key, reason });
    },
    close: () => {
      i.close();
      b.close();
    },
  };
}

/** Copies through the object store (streamed, bounded memory); the copy is the marketplace's own. */
export function objectClipStore(store: ObjectStore): ClipStore {
  return {
    copy: async (from, to) => {
      if (!(await store.stat(from))) return null;
      const info = await store.put(to, await store.get(from));
      return { size: info.size };
    },
    delete: (key) => store.delete(key),
  };
}
