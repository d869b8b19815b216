import { dial, type Metrics } from '@reelsmith/kit';
import { assembly, media } from '@reelsmith/proto';

export function dialWorkerPeers(addr: { orchestrator: string; media: string }, deadlineMs: number, metrics: Metrics) {
  const orchestrator = dial(assembly.AssemblyOrchestratorService, addr.orchestrator, { deadlineMs, metrics });
  const mediaLibrary = dial(media.MediaLibraryService, addr.media, { deadlineMs, metrics });
  return {
    orchestrator,
    media: mediaLibrary,
    close: () => {
      orchestrator.close();
      mediaLibrary.close();
    },
  };
}
export type WorkerPeers = ReturnType<typeof dialWorkerPeers>;
