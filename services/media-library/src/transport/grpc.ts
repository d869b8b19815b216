import { bind, describeHandler } from '@reelsmith/kit';
import { analysisMessage, media } from '@reelsmith/proto';
import type { LibraryItem, LibraryService } from '../domain/library.service.js';
import type { MediaKind, MediaRecord, MediaService } from '../domain/media.service.js';
import type { ReelRecord, ReelsService } from '../domain/reels.service.js';
import { parseCorrection, type CorrectedMedia, type TempoService } from '../domain/tempo.service.js';
import type { ShowcaseHandlers } from './showcase.grpc.js';

const item = (m: MediaRecord & Partial<Pick<CorrectedMedia, 'tempoCorrections' | 'analysedBpm'>>) => ({
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
  analysis: analysisMessage(m.analysis),
  library: Boolean(m.library),
  peaks: m.peaks ?? (m.analysis as { peaks?: number[] } | null)?.peaks ?? [],
  tempoCorrections: (m.tempoCorrections ?? []).map((c) => ({ kind: c.kind, taps: c.kind === 'tap' ? c.taps : [] })),
  analysedBpm: m.analysedBpm ?? 0,
});

const reel = (r: ReelRecord) => ({
  ...r,
  shareToShowcase: r.shareToShowcase ?? false,
  sizeBytes: BigInt(r.sizeBytes),
  createdAtUnixMs: BigInt(r.createdAt.getTime()),
  expiresAtUnixMs: BigInt(r.expiresAt?.getTime() ?? 0),
  expiresAt: undefined,
  createdAt: undefined,
});

const libraryItem = (i: LibraryItem) => ({
  key: i.key,
  kind: i.kind,
  filename: i.filename,
  category: i.category,
  sizeBytes: BigInt(i.sizeBytes),
  durationSec: i.durationSec,
  objectKey: i.objectKey,
  thumbnailKey: i.thumbnailKey,
  previewFrameKeys: i.previewFrameKeys,
  bpm: i.bpm,
  width: i.width,
  height: i.height,
});

/** A library item as media a job may use. */
export const asMedia = (i: LibraryItem): MediaRecord => ({
  id: i.id,
  ownerId: '',
  objectKey: i.objectKey,
  kind: i.kind,
  displayName: i.filename,
  sizeBytes: i.sizeBytes,
  durationSec: i.durationSec,
  width: i.width,
  height: i.height,
  videoCodec: i.videoCodec,
  audioCodec: i.audioCodec,
  thumbnailKey: i.thumbnailKey,
  analysisStatus: i.analysisStatus,
  analysis: i.analysis,
  library: true,
  peaks: i.peaks,
});

const libraryMedia = (lib: LibraryService) => async (keys: string[]) => (await lib.byObjectKeys(keys)).map(asMedia);

const kindOf = (k: string): MediaKind => (k === 'audio' ? 'audio' : 'video');

/** gRPC handlers of media-library: thin, one call into the domain per handler. */
export const grpcBinding = (svc: MediaService, reels: ReelsService, lib: LibraryService, showcase: ShowcaseHandlers, tempo: TempoService) =>
  bind(media.MediaLibraryService, {
    ...showcase,
    describe: describeHandler('media-library'),
    registerUpload: async (req) => {
      const m = await svc.registerUpload(req.ownerId, req.objectKey, req.displayName, Number(req.sizeCapBytes));
      await tempo.carryOver(req.ownerId, m);
      return item(m);
    },
    getMedia: async (req) => ({
      items: (await tempo.corrected(req.ownerId, await svc.media(req.ownerId, req.objectKeys, libraryMedia(lib)))).map(item),
    }),
    correctTempo: async (req) => {
      const correction = req.reset ? 'reset' : parseCorrection(req.correction?.kind ?? '', req.correction?.taps ?? []);
      const [m] = await svc.media(req.ownerId, [req.objectKey], libraryMedia(lib));
      return item(await tempo.correct(req.ownerId, m!, correction));
    },
    addReel: async (req) => {
      const r = req.reel!;
      return reel(
        // Same fields as media.repository's toReel on purpose: this maps the wire message, that maps the row; they change for different reasons.
        await reels.addReel(
          {
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
          },
          req.plan,
          req.billingCycle,
        ),
      );
    },
    listReels: async (req) => {
      const page = await reels.listReels(req.ownerId, req.limit, req.offset);
      return { reels: page.reels.map(reel), total: page.total };
    },
    deleteUserData: async (req) => svc.deleteUserData(req.ownerId),
    getReel: async (req) => reel(await reels.reel(req.ownerId, req.reelId)),
    deleteReel: async (req) => {
      await reels.deleteReel(req.ownerId, req.reelId);
      return {};
    },
    getFrames: async (req) => ({
      frameKeys: await svc.frames(
        req.ownerId,
        req.frames.map((f) => ({ objectKey: f.objectKey, atMs: Number(f.atMs) })),
        async (keys) => (await lib.byObjectKeys(keys)).map(asMedia),
      ),
    }),
    markUsed: async (req) => {
      await svc.markUsed(req.ownerId, req.objectKeys);
      return {};
    },
    listLibrary: async (req) => {
      const kind = kindOf(req.kind);
      const r = await lib.list(kind, req.q, req.category, req.limit, req.offset);
      const items = await tempo.asSeenBy(req.ownerId, kind, r.items.map(libraryItem), libraryMedia(lib));
      return { items, categories: r.categories, total: r.total };
    },
    getLibraryItems: async (req) => ({ items: (await lib.items(req.kind ? kindOf(req.kind) : null, req.keys)).map(libraryItem) }),
    findMusic: async (req) => libraryItem(await lib.musicByFilename(req.filename)),
    musicAnalysis: async (req) => {
      const [i] = await lib.items('audio', [req.key]);
      const beats = (i!.analysis as { beats?: number[] } | null)?.beats ?? [];
      return { item: libraryItem(i!), beats, peaks: i!.peaks };
    },
    importLibraryObject: async (req) => {
      const r = await lib.importObject(req.stagingKey, req.filename, req.category);
      return { outcome: r.outcome, item: libraryItem(r.item) };
    },
    deleteLibraryItem: async (req) => {
      await lib.remove(req.key);
      return {};
    },
  });
