import type { ObjectStore } from '@reelsmith/kit';
import type { UploadPorts } from '../domain/uploads.service.js';
import type { Peers } from './clients.js';

/** Uploads go to object storage; limits come from billing, probing from media-library. */
export function uploadPorts(peers: Peers, store: ObjectStore, newKey: (prefix: string, ext: string) => string): UploadPorts {
  return {
    async limits(userId, unlimited) {
      const { account } = await peers.billing.getAccount({ userId, unlimited });
      const e = account!.entitlements!;
      return { capBytes: Number(e.uploadCapBytes), message: e.uploadLimitMessage };
    },
    newKey: (userId, ext) => newKey(`uploads/${userId}`, ext),
    put: async (key, body, contentType) => void (await store.put(key, body, { contentType })),
    delete: (key) => store.delete(key),
    async register(userId, key, displayName, capBytes) {
      const m = await peers.media.registerUpload({ ownerId: userId, objectKey: key, displayName, sizeCapBytes: BigInt(capBytes) });
      return {
        objectKey: m.objectKey,
        kind: m.kind,
        displayName: m.displayName,
        sizeBytes: Number(m.sizeBytes),
        durationSec: m.durationSec,
        width: m.width,
        height: m.height,
        thumbnailKey: m.thumbnailKey,
      };
    },
  };
}
