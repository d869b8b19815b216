import type { LibrarySelectionPorts } from '../domain/library-selection.js';
import type { Peers } from './clients.js';

export function librarySelectionPorts(peers: Peers, requestId: string): LibrarySelectionPorts {
  return {
    async cap(user) {
      const { account } = await peers.billing.getAccount(
        { userId: user.id, unlimited: user.unlimited, enterprise: user.isGuest },
        { requestId },
      );
      const e = account!.entitlements!;
      return { cap: e.librarySelectionCap, message: e.selectionLimitMessage };
    },
    async clips(keys) {
      const { items } = await peers.media.getLibraryItems({ kind: 'video', keys }, { requestId });
      return items.map((i) => ({ key: i.key, objectKey: i.objectKey, filename: i.filename }));
    },
  };
}
