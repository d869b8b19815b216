import crypto from 'node:crypto';
import { DomainError, ErrorCode, type Logger } from '@reelsmith/kit';
import {
  ANALYSIS_LEASE_MS,
  redoStaleAnalyses,
  videoShape,
  type MediaKind,
  type MediaTools,
  type ProbedFile,
  probedShape,
} from './media.service.js';

/** An item of the stock video or music library. */
export interface LibraryItem extends ProbedFile {
  id: string;
  /** Public id, from the content hash. */
  key: string;
  kind: MediaKind;
  filename: string;
  category: string;
  contentHash: string;
  previewFrameKeys: string[];
  bpm: number;
  peaks: number[];
  analysisStatus: 'done' | 'failed';
  analysis: unknown;
  /** Who filmed it (the uploader's e-mail), for items bought from the footage marketplace; else null. */
  attribution?: string | null;
  attributionUserId?: string | null;
  /** The marketplace clip it came from; a library holds each clip once. */
  sourceClipId?: string | null;
}

/** Where a bought item came from (none for stock content). */
export interface LibraryOrigin {
  attribution: string;
  attributionUserId: string;
  sourceClipId: string;
}

/** A clip bought from the footage marketplace (the event's payload). */
export interface PurchasedClip {
  clipId: string;
  /** The marketplace's copy; it may be removed at any time, so the library copies it. */
  objectKey: string;
  filename: string;
  uploaderUserId: string;
  uploaderEmail: string;
}

/** The category of items bought from the footage marketplace. */
export const COMMUNITY_CATEGORY = 'community';

export interface LibraryQuery {
  kind: MediaKind;
  q: string;
  category: string;
  limit: number;
  offset: number;
}

/** A music track's tempo from its analysis, to a tenth of a BPM (0 for clips or without one). */
const tempoOf = (kind: MediaKind, analysis: unknown): number => {
  const bpm = kind === 'audio' ? Number((analysis as { bpm?: number } | null)?.bpm ?? 0) : 0;
  return Number.isFinite(bpm) ? Math.round(bpm * 10) / 10 : 0;
};

export interface LibraryRepository {
  /** False when an item with this content hash exists (a concurrent import won). */
  insertItem(item: LibraryItem): Promise<boolean>;
  itemByHash(hash: string): Promise<LibraryItem | null>;
  itemBySourceClip(clipId: string): Promise<LibraryItem | null>;
  itemsByKeys(kind: MediaKind | null, keys: string[]): Promise<LibraryItem[]>;
  itemsByObjectKeys(objectKeys: string[]): Promise<LibraryItem[]>;
  musicByFilename(filename: string): Promise<LibraryItem | null>;
  /** Every item, without analysis or peaks (what lists show). */
  listed(): Promise<LibraryItem[]>;
  /** Changes whenever an item is added, removed or analysed again (by any process). */
  stamp(): Promise<string>;
  count(): Promise<number>;
  removeItem(key: string): Promise<boolean>;
  /**
   * Claims for `replicaId` one item whose analysis an older engine made (its `version` below the
   * current one for its kind), oldest first, skipping those another replica claimed less than
   * `leaseMs` ago. Concurrent callers never get the same item.
   */
  claimStaleItem(versions: Record<MediaKind, number>, replicaId: string, leaseMs: number): Promise<LibraryItem | null>;
  /** Records an analysis (and releases the item's claim). */
  setItemAnalysis(key: string, status: 'done' | 'failed', analysis: unknown, bpm: number): Promise<void>;
}

/** Local files in and out of storage, by key. */
export interface LibraryObjects {
  putFile(key: string, file: string, contentType: string): Promise<void>;
  put(key: string, body: Buffer, opts?: { contentType?: string }): Promise<unknown>;
  withLocalFile<T>(key: string, fn: (path: string) => Promise<T>): Promise<T>;
  delete(key: string): Promise<void>;
  /** Copies an object to another key; false when the source does not exist. */
  copy(from: string, to: string): Promise<boolean>;
}

export interface LibraryTools extends MediaTools {
  /** SHA-256 of a local file, hex. */
  hash(path: string): Promise<string>;
  /** One JPEG frame at `atSec`. */
  frameAt(path: string, atSec: number): Promise<Buffer>;
  /** Peak amplitude (0..1) of `count` equal slices of the audio. */
  peaks(path: string, count: number): Promise<number[]>;
  sizeOf(path: string): Promise<number>;
}

/** Containers allowed in the libraries: those of uploads. */
const VIDEO_EXT = /\.(mp4|mov|avi|mkv|webm)$/i;
const AUDIO_EXT = /\.(mp3|wav|aac|m4a)$/i;
export const isMediaFileName = (name: string) => VIDEO_EXT.test(name) || AUDIO_EXT.test(name);

export const WAVEFORM_PEAKS = 200;
export const LIBRARY_PAGE_DEFAULT = 50;
export const LIBRARY_PAGE_MAX = 1000;

/** 'Nature Clips ' -> 'nature clips'; anything unusable -> 'general'. */
export function normaliseCategory(raw: string): string {
  const c = raw
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]+/gu, '')
    .replace(/\s+/g, ' ')
    .slice(0, 60);
  return c || 'general';
}

const contentType = (kind: MediaKind, ext: string) =>
  kind === 'audio'
    ? ({ '.mp3': 'audio/mpeg', '.wav': 'audio/wav', '.aac': 'audio/aac', '.m4a': 'audio/mp4' }[ext] ?? 'application/octet-stream')
    : ({ '.mp4': 'video/mp4', '.mov': 'video/quicktime', '.avi': 'video/x-msvideo', '.mkv': 'video/x-matroska', '.webm': 'video/webm' }[
        ext
      ] ?? 'application/octet-stream');

/** A file found under an import folder; its category is its first subfolder's name. */
export interface LibraryFile {
  path: string;
  /** Relative to the imported folder, for messages. */
  relative: string;
  filename: string;
  category: string;
}

export interface ImportSummary {
  imported: number;
  duplicates: number;
  failed: Array<{ file: string; error: string }>;
}

/** How often a replica checks whether another process changed the library (its own changes show at once). */
export const CATALOGUE_CHECK_MS = 5000;

/** Lists are ordered by file name, case-insensitively, then key. */
const byName = (a: LibraryItem, b: LibraryItem) => {
  const x = a.filename.toLowerCase();
  const y = b.filename.toLowerCase();
  return x < y ? -1 : x > y ? 1 : a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
};

interface Catalogue {
  stamp: string;
  checkedAt: number;
  items: Record<MediaKind, LibraryItem[]>;
  categories: Record<MediaKind, string[]>;
}

export type ImportOutcome = { outcome: 'imported' | 'duplicate'; item: LibraryItem };

type Progress = (done: number, total: number, file: LibraryFile, result: ImportOutcome | { error: string }) => void;

/** Imports files one by one with `importOne`; a bad file is reported (by name) and skipped, the rest import. */
export async function importMany(
  files: LibraryFile[],
  importOne: (f: LibraryFile) => Promise<ImportOutcome>,
  progress: Progress = () => undefined,
  stopped: () => boolean = () => false,
): Promise<ImportSummary> {
  const summary: ImportSummary = { imported: 0, duplicates: 0, failed: [] };
  for (const [i, f] of files.entries()) {
    if (stopped()) break;
    try {
      const r = await importOne(f);
      if (r.outcome === 'imported') summary.imported += 1;
      else summary.duplicates += 1;
      progress(i + 1, files.length, f, r);
    } catch (e) {
      const error = e instanceof Error ? e.message : String(e);
      summary.failed.push({ file: f.relative, error });
      progress(i + 1, files.length, f, { error });
    }
  }
  return summary;
}

/**
 * The stock libraries: imports (probe, store, thumbnail and preview frames, the engine's analysis
 * once), paged search, and lookups for jobs. Items are public: any signed-in user may use them.
 */
export class LibraryService {
  private catalogue?: Catalogue;
  private loading?: Promise<Catalogue>;
  private checking?: Promise<void>;
  private generation = 0;

  private readonly replicaId: string;
  private readonly leaseMs: number;

  constructor(
    private readonly repo: LibraryRepository,
    private readonly objects: LibraryObjects,
    private readonly tools: LibraryTools,
    private readonly log: Logger,
    opts: { replicaId?: string; leaseMs?: number } = {},
  ) {
    this.replicaId = opts.replicaId ?? crypto.randomUUID();
    this.leaseMs = opts.leaseMs ?? ANALYSIS_LEASE_MS;
  }

  /**
   * Imports a local file into the library its probe says it belongs to. The same content twice
   * changes nothing. An unusable file is a DomainError naming it; nothing is stored then.
   */
  async importFile(file: string, filename: string, rawCategory: string, origin?: LibraryOrigin): Promise<ImportOutcome> {
    const name = filename.slice(0, 200);
    const ext = (/\.[a-z0-9]+$/i.exec(name)?.[0] ?? '').toLowerCase();
    if (!isMediaFileName(name))
      throw new DomainError(
        ErrorCode.INVALID_ARGUMENT,
        `${name}: unsupported format. Use MP4, MOV, AVI, MKV or WebM video, or MP3, WAV, AAC or M4A audio.`,
        'unsupported_format',
      );
    const hash = await this.tools.hash(file);
    const existing = await this.repo.itemByHash(hash);
    if (existing) return { outcome: 'duplicate', item: existing };
    const probed = await this.tools.probe(file, name);
    if ((probed.kind === 'video') !== VIDEO_EXT.test(name) && !(probed.kind === 'audio' && /\.(mp4|mov)$/i.test(name)))
      throw new DomainError(ErrorCode.INVALID_ARGUMENT, `${name}: the file's content does not match its extension.`, 'unsupported_format');
    if (probed.durationSec <= 0)
      throw new DomainError(ErrorCode.INVALID_ARGUMENT, `${name}: the file has no duration.`, 'unsupported_media');
    const key = hash.slice(0, 24);
    const objectKey = `library/${probed.kind}/${key}${ext}`;
    const stored: string[] = [];
    try {
      let thumbnailKey = '';
      const previewFrameKeys: string[] = [];
      let peaks: number[] = [];
      if (probed.kind === 'video') {
        thumbnailKey = `library/thumbs/${key}.jpg`;
        await this.objects.put(thumbnailKey, await this.tools.thumbnail(file, probed.durationSec), {
          contentType: 'image/jpeg',
        });
        stored.push(thumbnailKey);
        for (const [i, at] of [0.25, 0.5, 0.75].entries()) {
          const frameKey = `library/frames/${key}-${i}.jpg`;
          await this.objects.put(frameKey, await this.tools.frameAt(file, probed.durationSec * at), { contentType: 'image/jpeg' });
          stored.push(frameKey);
          previewFrameKeys.push(frameKey);
        }
      } else {
        peaks = await this.tools.peaks(file, WAVEFORM_PEAKS);
      }
      let analysis: unknown = null;
      let analysisStatus: 'done' | 'failed' = 'done';
      try {
        analysis = await this.tools.analyse(file, probed.kind, probed.durationSec, videoShape(probed));
      } catch (e) {
        this.log.warn({ err: e, filename: name }, 'library analysis failed; a render will analyse the file itself');
        analysisStatus = 'failed';
      }
      await this.objects.putFile(objectKey, file, contentType(probed.kind, ext));
      stored.push(objectKey);
      const item: LibraryItem = {
        id: crypto.randomUUID(),
        key,
        kind: probed.kind,
        filename: name,
        category: normaliseCategory(rawCategory),
        contentHash: hash,
        objectKey,
        sizeBytes: await this.tools.sizeOf(file),
        ...probedShape(probed),
        thumbnailKey,
        previewFrameKeys,
        bpm: tempoOf(probed.kind, analysis),
        peaks,
        analysisStatus,
        analysis,
        attribution: origin?.attribution ?? null,
        attributionUserId: origin?.attributionUserId ?? null,
        sourceClipId: origin?.sourceClipId ?? null,
      };
      if (!(await this.repo.insertItem(item))) {
        // Another importer stored the same content at the same keys meanwhile: theirs stands.
        const theirs = await this.repo.itemByHash(hash);
        if (theirs) return { outcome: 'duplicate', item: theirs };
      }
      this.changed();
      this.log.info({ key, kind: item.kind, category: item.category, filename: name }, 'library item imported');
      return { outcome: 'imported', item };
    } catch (e) {
      for (const k of stored) await this.objects.delete(k).catch(() => undefined);
      throw e;
    }
  }

  /**
   * Analyses again, one at a time, the items an older engine analysed (in the background at
   * start; `stopped` ends it early). A claim keeps other replicas off each item; the new tempo
   * reaches every replica's catalogue through the stamp. A failure keeps the old analysis, to be
   * tried again at a start after the claim's lease.
   */
  async refreshStale(stopped: () => boolean = () => false): Promise<{ refreshed: number; failed: number }> {
    const counts = await redoStaleAnalyses(
      () => this.repo.claimStaleItem(this.tools.analysisVersions, this.replicaId, this.leaseMs),
      async (item) => {
        const analysis = await this.objects.withLocalFile(item.objectKey, (p) =>
          this.tools.analyse(p, item.kind, item.durationSec, videoShape(item)),
        );
        await this.repo.setItemAnalysis(item.key, 'done', analysis, tempoOf(item.kind, analysis));
      },
      // The old analysis stays (the render redoes an outdated one itself). The claim stays too,
      // so no replica tries this item again before its lease is over (a start after that does).
      (item, e) => this.log.warn({ err: e, key: item.key }, 'library analysis of an older engine could not be redone; it stays in use'),
      stopped,
    );
    if (counts.refreshed || counts.failed) this.changed();
    return counts;
  }

  /** Imports local files in this process. */
  importMany = (files: LibraryFile[], progress?: Progress, stopped?: () => boolean) =>
    importMany(files, (f) => this.importFile(f.path, f.filename, f.category), progress, stopped);

  /** Imports an object already in storage (an admin's upload, or the CLI's copy); it is deleted afterwards. */
  async importObject(stagingKey: string, filename: string, category: string, origin?: LibraryOrigin): Promise<ImportOutcome> {
    try {
      return await this.objects.withLocalFile(stagingKey, (p) => this.importFile(p, filename, category, origin));
    } finally {
      await this.objects.delete(stagingKey).catch(() => undefined);
    }
  }

  /**
   * Adds a clip bought from the footage marketplace to the stock library, category 'community',
   * attributed to its uploader. Once per clip: a repeated call finds the item by its clip id (and
   * two at once are settled by the content hash). The marketplace's object is copied into the
   * library's own keys first, through the same import as any stock file. 'missing' when the
   * marketplace's object is gone (an admin removed the clip meanwhile).
   */
  async importPurchased(clip: PurchasedClip): Promise<ImportOutcome | 'missing'> {
    const existing = await this.repo.itemBySourceClip(clip.clipId);
    if (existing) return { outcome: 'duplicate', item: existing };
    const ext = (/\.[a-z0-9]+$/i.exec(clip.filename)?.[0] ?? '').toLowerCase();
    const staging = `library/incoming/marketplace-${clip.clipId.replace(/[^A-Za-z0-9_-]/g, '')}${ext}`;
    if (!(await this.objects.copy(clip.objectKey, staging))) return 'missing';
    return this.importObject(staging, clip.filename, COMMUNITY_CATEGORY, {
      attribution: clip.uploaderEmail,
      attributionUserId: clip.uploaderUserId,
      sourceClipId: clip.clipId,
    });
  }

  /**
   * A page of matches (case-insensitive on filename or category; a blank search is ignored), how
   * many match in all, and every category. Served from an in-memory catalogue of the list fields
   * (10,000 items are about 3 MB), reloaded at once after this process changes the library and
   * within CATALOGUE_CHECK_MS after another process does.
   */
  async list(kind: MediaKind, q: string, category: string, limit: number, offset: number) {
    const query: LibraryQuery = {
      kind,
      q: q.trim().slice(0, 200).toLowerCase(),
      category: category.trim().toLowerCase(),
      limit: Math.min(Math.max(limit || LIBRARY_PAGE_DEFAULT, 1), LIBRARY_PAGE_MAX),
      offset: Math.max(offset || 0, 0),
    };
    const cat = await this.current();
    let items = cat.items[kind];
    if (query.category) items = items.filter((i) => i.category === query.category);
    if (query.q) items = items.filter((i) => i.filename.toLowerCase().includes(query.q) || i.category.includes(query.q));
    return { items: items.slice(query.offset, query.offset + query.limit), total: items.length, categories: cat.categories[kind] };
  }

  /** Loads the catalogue; kept only if the library did not change meanwhile in this process. */
  private async load(): Promise<Catalogue> {
    const gen = this.generation;
    const stamp = await this.repo.stamp();
    const all = (await this.repo.listed()).sort(byName);
    const items: Record<MediaKind, LibraryItem[]> = { video: [], audio: [] };
    for (const i of all) items[i.kind].push(i);
    const cats = (k: MediaKind) => [...new Set(items[k].map((i) => i.category))].sort();
    const c = { stamp, checkedAt: Date.now(), items, categories: { video: cats('video'), audio: cats('audio') } };
    if (gen === this.generation) this.catalogue = c;
    return c;
  }

  private async current(): Promise<Catalogue> {
    const c = this.catalogue;
    if (!c) return (this.loading ??= this.load().finally(() => (this.loading = undefined)));
    if (Date.now() - c.checkedAt > CATALOGUE_CHECK_MS && !this.checking) {
      // Stale-while-checking: this request is answered from what is loaded.
      c.checkedAt = Date.now();
      this.checking = this.repo
        .stamp()
        .then(async (s) => {
          if (s !== c.stamp && this.catalogue === c) await this.load();
        })
        .catch((e: unknown) => this.log.warn({ err: e }, 'library catalogue check failed'))
        .finally(() => (this.checking = undefined));
    }
    return c;
  }

  /** This process changed the library: the next list reloads (a load under way is not kept). */
  private changed(): void {
    this.generation += 1;
    this.catalogue = undefined;
    this.loading = undefined;
  }

  /** Items by key, in the order asked; NOT_FOUND when any is unknown (or of the other kind). */
  async items(kind: MediaKind | null, keys: string[]): Promise<LibraryItem[]> {
    const unique = [...new Set(keys)];
    const found = new Map((await this.repo.itemsByKeys(kind, unique)).map((i) => [i.key, i]));
    return unique.map((k) => {
      const i = found.get(k);
      if (!i) throw new DomainError(ErrorCode.NOT_FOUND, 'Library item not found.', 'library_item_not_found');
      return i;
    });
  }

  async musicByFilename(filename: string): Promise<LibraryItem> {
    const item = await this.repo.musicByFilename(filename);
    if (!item) throw new DomainError(ErrorCode.NOT_FOUND, 'Music track not found.', 'music_not_found');
    return item;
  }

  /** Library items among these object keys (for jobs). */
  byObjectKeys = (objectKeys: string[]) => (objectKeys.length ? this.repo.itemsByObjectKeys(objectKeys) : Promise.resolve([]));

  isEmpty = async () => (await this.repo.count()) === 0;

  /** Removes an item and its objects. Jobs already queued with it fail at render like any missing file. */
  async remove(key: string): Promise<void> {
    const [item] = await this.repo.itemsByKeys(null, [key]);
    if (!item) throw new DomainError(ErrorCode.NOT_FOUND, 'Library item not found.', 'library_item_not_found');
    for (const k of [item.objectKey, item.thumbnailKey, ...item.previewFrameKeys]) if (k) await this.objects.delete(k);
    await this.repo.removeItem(key);
    this.changed();
    this.log.info({ key, filename: item.filename }, 'library item removed');
  }
}
