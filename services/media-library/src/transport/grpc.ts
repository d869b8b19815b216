import { bind, describeHandler } from '@reelsmith/kit';
import { media } from '@reelsmith/proto';
import type { MediaRecord, MediaService, ReelRecord } from '../domain/media.service.js';

const item = (m: MediaRecord) => ({
  objectKey: m.objectKey,
  ownerId: m.ownerId,
  kind: m.kind,
  displayName: m.displayName,
  sizeBytes: BigInt(m.sizeBytes),
  durationSec: m.durationSec,
  width: m.width,
  height: m.height,
  videoCodec: m.videoCodec,
  audioCodec: m.audioCodec,
  thumbnailKey: m.thumbnailKey,
  analysisStatus: m.analysisStatus,
  analysisJson: m.analysis ? JSON.stringify(m.analysis) : '',
});

const reel = (r: ReelRecord) => ({
  ...r,
  sizeBytes: BigInt(r.sizeBytes),
  createdAtUnixMs: BigInt(r.createdAt.getTime()),
});

/** gRPC handlers of media-library: thin, one call into the domain per handler. */
export const grpcBinding = (svc: MediaService) =>
  bind(media.MediaLibraryService, {
    describe: describeHandler('media-library'),
    registerUpload: async (req) => item(await svc.registerUpload(req.ownerId, req.objectKey, req.displayName, Number(req.sizeCapBytes))),
    getMedia: async (req) => ({ items: (await svc.media(req.ownerId, req.objectKeys)).map(item) }),
    addReel: async (req) => {
      const r = req.reel!;
      return reel(
        await svc.addReel({
          id: r.id,
          ownerId: r.ownerId,
          title: r.title,
          description: r.description,
          objectKey: r.objectKey,
          thumbnailKey: r.thumbnailKey,
          durationSec: r.durationSec,
          sizeBytes: Number(r.sizeBytes),
          musicUsed: r.musicUsed,
          enableBeatMapping: r.enableBeatMapping,
          enableIntelligence: r.enableIntelligence,
          pacingPreset: r.pacingPreset,
        }),
      );
    },
    listReels: async (req) => {
      const { reels, total } = await svc.listReels(req.ownerId, req.limit, req.offset);
      return { reels: reels.map(reel), total };
    },
    deleteReel: async (req) => {
      await svc.deleteReel(req.ownerId, req.reelId);
      return {};
    },
    markUsed: async (req) => {
      await svc.markUsed(req.ownerId, req.objectKeys);
      return {};
    },
  });
