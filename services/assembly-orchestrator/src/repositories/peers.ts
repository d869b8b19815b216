import { DomainError, ErrorCode, dial, isDomainError, type Metrics } from '@reelsmith/kit';
import { analysisDoc, billing, media } from '@reelsmith/proto';
import type { Peers } from '../domain/jobs.service.js';

/** Billing and media-library over gRPC, shaped as the jobs service needs them. */
export function grpcPeers(addr: { billing: string; media: string }, deadlineMs: number, metrics: Metrics): Peers & { close(): void } {
  const b = dial(billing.BillingService, addr.billing, { deadlineMs, metrics });
  const m = dial(media.MediaLibraryService, addr.media, { deadlineMs, metrics });
  return {
    media: async (ownerId, keys) =>
      (await m.getMedia({ ownerId, objectKeys: keys })).items.map((i) => ({
        objectKey: i.objectKey,
        kind: i.kind as 'video' | 'audio',
        sizeBytes: Number(i.sizeBytes),
        durationSec: i.durationSec,
        displayName: i.displayName,
        thumbnailKey: i.thumbnailKey,
        width: i.width,
        height: i.height,
        analysisStatus: (i.analysisStatus || 'pending') as 'pending' | 'done' | 'failed',
        analysis: analysisDoc(i.analysis),
        peaks: i.peaks,
        analysedBpm: i.analysedBpm,
        tempoCorrections: i.tempoCorrections.map((c) => c.kind),
      })),
    entitlements: async (userId, unlimited) => {
      const e = (await b.getAccount({ userId, unlimited })).account!.entitlements!;
      return {
        uploadCapBytes: Number(e.uploadCapBytes),
        musicCapSeconds: Number(e.musicCapSeconds),
        librarySelectionCap: e.librarySelectionCap,
        reelCapSeconds: Number(e.reelCapSeconds),
        messages: {
          upload: e.uploadLimitMessage,
          music: e.musicLimitMessage,
          selection: e.selectionLimitMessage,
          reelLength: e.reelLengthLimitMessage,
        },
      };
    },
    estimate: async (pacing, hasMusic, totalBytes, outputSeconds) =>
      Number((await b.estimate({ pacingPreset: pacing, hasMusic, totalSourceBytes: BigInt(totalBytes), outputSeconds })).credits),
    reserve: async (jobId, userId, credits, unlimited) => {
      await b.reserve({ jobId, userId, estimateCredits: BigInt(credits), unlimited });
    },
    capture: async (jobId) => {
      await b.capture({ jobId });
    },
    release: async (jobId) => {
      try {
        await b.release({ jobId });
      } catch (e) {
        // Nothing was reserved (e.g. the reservation itself failed): nothing to refund.
        if (!isDomainError(e) || e.code !== ErrorCode.NOT_FOUND) throw e;
      }
    },
    markUsed: async (ownerId, keys, jobId) => {
      await m.markUsed({ ownerId, objectKeys: keys, jobId });
    },
    addReel: async (job) => {
      if (!job.outputKey) throw new DomainError(ErrorCode.FAILED_PRECONDITION, 'completed job has no output');
      // The plan when the reel is made decides how long it is kept (media-library's retention rule).
      const sub = (await b.getAccount({ userId: job.ownerId, unlimited: false })).account?.subscription;
      const active = sub && sub.status === 'active' && sub.plan !== 'free';
      await m.addReel({
        plan: active ? sub.plan : 'free',
        billingCycle: active ? sub.billingCycle : '',
        reel: {
          id: job.id,
          ownerId: job.ownerId,
          title:
            job.request.title_config.enabled && job.request.title_config.text.trim()
              ? job.request.title_config.text
              : job.request.output_filename,
          description: '',
          objectKey: job.outputKey,
          thumbnailKey: job.thumbnailKey,
          durationSec: job.durationSec,
          sizeBytes: BigInt(job.sizeBytes),
          musicUsed: Boolean(job.request.music_file),
          enableBeatMapping: job.request.enable_beat_mapping,
          enableIntelligence: job.request.enable_intelligence,
          pacingPreset: job.request.pacing_preset,
        },
      });
    },
    close: () => {
      b.close();
      m.close();
    },
  };
}
