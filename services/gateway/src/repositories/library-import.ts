import { newObjectKey, type ObjectStore } from '@reelsmith/kit';
import type { LibraryImportPorts } from '../domain/library-import.js';
import type { Peers } from './clients.js';

/** An import of a file of up to 4 GiB may take minutes. */
const IMPORT_DEADLINE_MS = 15 * 60_000;

export function libraryImportPorts(peers: Peers, store: ObjectStore, requestId: string): LibraryImportPorts {
  return {
    stagingKey: (extension) => newObjectKey('library/incoming', extension),
    async put(key, body) {
      await store.put(key, body);
    },
    delete: (key) => store.delete(key),
    async importObject(stagingKey, filename, category) {
      const r = await peers.media.importLibraryObject({ stagingKey, filename, category }, { requestId, deadlineMs: IMPORT_DEADLINE_MS });
      return {
        outcome: r.outcome === 'duplicate' ? 'duplicate' : 'imported',
        key: r.item!.key,
        kind: r.item!.kind,
        category: r.item!.category,
      };
    },
  };
}
