import { DomainError, ErrorCode, type Logger } from '@reelsmith/kit';

export type MediaKind = 'video' | 'audio';

export interface MediaRecord {
  id: string;
  ownerId: string;
  objectKey: string;
  kind: MediaKind;
  displayName: string;
  sizeBytes: number;
  durationSec: number;
  width: number;
  height: number;
  videoCodec: string;
  audioCodec: string;
  thumbnailKey: string;
  analysisStatus: 'pending' | 'done' | 'failed';
  analysis: unknown;
}

export interface ReelRecord {
  id: string;
  ownerId: string;
  title: string;
  description: string;
  objectKey: string;
  thumbnailKey: string;
  durationSec: number;
  sizeBytes: number;
  musicUsed: boolean;
  enableBeatMapping: boolean;
  enableIntelligence: boolean;
  pacingPreset: string;
  createdAt: Date;
}

export interface MediaRepository {
  insert(m: MediaRecord): Promise<void>;
  byKeys(keys: string[]): Promise<MediaRecord[]>;
  pendingAnalyses(limit: number): Promise<MediaRecord[]>;
  setAnalysis(key: string, status: 'done' | 'failed', analysis: unknown): Promise<void>;
  addReel(r: Omit<ReelRecord, 'createdAt'>): Promise<ReelRecord>;
  listReels(ownerId: string, limit: number, offset: number): Promise<{ reels: ReelRecord[]; total: number }>;
  /** Soft-deletes; false when no such reel of this owner. */
  deleteReel(ownerId: string, id: string): Promise<boolean>;
}

/** What was found in an uploaded file. */
export interface Probed {
  kind: MediaKind;
  formatName: string;
  durationSec: number;
  width: number;
  height: number;
  videoCodec: string;
  audioCodec: string;
}

/** The media tools: ffprobe, thumbnails and the engine's analyses, on local files. */
export interface MediaTools {
  /** Throws a DomainError (INVALID_ARGUMENT) with a clear message for anything unusable. */
  probe(path: string, displayName: string): Promise<Probed>;
  thumbnail(path: string, durationSec: number): Promise<Buffer>;
  analyse(path: string, kind: MediaKind, durationSec: number): Promise<unknown>;
}

export interface Objects {
  withLocalFile<T>(key: string, fn: (path: string) => Promise<T>): Promise<T>;
  put(key: string, body: Buffer, opts?: { contentType?: string }): Promise<unknown>;
  stat(key: string): Promise<{ size: number } | null>;
  delete(key: string): Promise<void>;
}

/** Containers of the spec's formats: MP4, MOV, AVI, MKV (and WebM, its sibling) for video; MP3, WAV, AAC, M4A for audio. */
const VIDEO_FORMATS = /^(mov,mp4,m4a,3gp,3g2,mj2|avi|matroska,webm)$/;
const AUDIO_FORMATS = /^(mp3|wav|aac|mov,mp4,m4a,3gp,3g2,mj2)$/;

export const MAX_DISPLAY_NAME = 200;

/**
 * Uploads become media: probed, refused (and deleted) when not a usable video or audio file of
 * the allowed kinds, recorded with their metadata and a thumbnail, then analysed in the
 * background so that a later generate finds the analysis ready.
 */
export class MediaService {
  private analysing = 0;
  private queue: string[] = [];
  private idle: Array<() => void> = [];

  constructor(
    private readonly repo: MediaRepository,
    private readonly objects: Objects,
    private readonly tools: MediaTools,
    private readonly log: Logger,
    private readonly concurrency = 1,
  ) {}

  async registerUpload(ownerId: string, objectKey: string, displayName: string, sizeCap: number): Promise<MediaRecord> {
    const name = (displayName || 'upload').slice(0, MAX_DISPLAY_NAME);
    const st = await this.objects.stat(objectKey);
    if (!st) throw new DomainError(ErrorCode.NOT_FOUND, 'The uploaded file was not found.');
    const refuse = async (e: DomainError) => {
      await this.objects.delete(objectKey);
      return e;
    };
    if (sizeCap > 0 && st.size > sizeCap)
      throw await refuse(new DomainError(ErrorCode.PAYLOAD_TOO_LARGE, 'The file is larger than your plan allows.', 'too_large'));
    let probed: Probed;
    let thumb: Buffer | undefined;
    try {
      probed = await this.objects.withLocalFile(objectKey, async (p) => {
        const info = await this.tools.probe(p, name);
        const ok = info.kind === 'video' ? VIDEO_FORMATS.test(info.formatName) : AUDIO_FORMATS.test(info.formatName);
        if (!ok)
          throw new DomainError(
            ErrorCode.INVALID_ARGUMENT,
            `${name}: unsupported format. Use MP4, MOV, AVI or MKV video, or MP3, WAV, AAC or M4A audio.`,
            'unsupported_format',
          );
        if (info.kind === 'video') thumb = await this.tools.thumbnail(p, info.durationSec);
        return info;
      });
    } catch (e) {
      if (e instanceof DomainError) throw await refuse(e);
      await this.objects.delete(objectKey);
      throw e;
    }
    let thumbnailKey = '';
    if (thumb) {
      thumbnailKey = `thumbs/${objectKey}.jpg`;
      await this.objects.put(thumbnailKey, thumb, { contentType: 'image/jpeg' });
    }
    const record: MediaRecord = {
      id: crypto.randomUUID(),
      ownerId,
      objectKey,
      kind: probed.kind,
      displayName: name,
      sizeBytes: st.size,
      durationSec: probed.durationSec,
      width: probed.width,
      height: probed.height,
      videoCodec: probed.videoCodec,
      audioCodec: probed.audioCodec,
      thumbnailKey,
      analysisStatus: 'pending',
      analysis: null,
    };
    await this.repo.insert(record);
    this.enqueue(objectKey);
    return record;
  }

  /** The caller's own media only. */
  async media(ownerId: string, keys: string[]): Promise<MediaRecord[]> {
    const found = await this.repo.byKeys(keys);
    const byKey = new Map(found.filter((m) => m.ownerId === ownerId).map((m) => [m.objectKey, m]));
    return keys.map((k) => {
      const m = byKey.get(k);
      if (!m)
        throw new DomainError(ErrorCode.NOT_FOUND, 'One of the selected files was not found. Please upload it again.', 'media_not_found');
      return m;
    });
  }

  addReel = (r: Omit<ReelRecord, 'createdAt'>) => this.repo.addReel(r);
  listReels = (ownerId: string, limit: number, offset: number) =>
    this.repo.listReels(ownerId, Math.min(Math.max(limit || 50, 1), 100), Math.max(offset, 0));
  async deleteReel(ownerId: string, id: string): Promise<void> {
    if (!(await this.repo.deleteReel(ownerId, id))) throw new DomainError(ErrorCode.NOT_FOUND, 'Reel not found.', 'reel_not_found');
  }

  // --- background analysis -------------------------------------------------------------------

  private enqueue(key: string): void {
    this.queue.push(key);
    this.pump();
  }

  private pump(): void {
    while (this.analysing < this.concurrency && this.queue.length) {
      const key = this.queue.shift()!;
      this.analysing++;
      void this.analyseOne(key).finally(() => {
        this.analysing--;
        if (!this.analysing && !this.queue.length) this.idle.splice(0).forEach((r) => r());
        this.pump();
      });
    }
  }

  private async analyseOne(key: string): Promise<void> {
    const [m] = await this.repo.byKeys([key]);
    if (!m || m.analysisStatus !== 'pending') return;
    try {
      const analysis = await this.objects.withLocalFile(key, (p) => this.tools.analyse(p, m.kind, m.durationSec));
      await this.repo.setAnalysis(key, 'done', analysis);
    } catch (e) {
      this.log.warn({ err: e, object_key: key }, 'analysis failed; the render will analyse itself');
      await this.repo.setAnalysis(key, 'failed', null).catch(() => undefined);
    }
  }

  /** Picks up analyses that were pending when the process last stopped. */
  async resumePending(): Promise<void> {
    for (const m of await this.repo.pendingAnalyses(1000)) this.enqueue(m.objectKey);
  }

  /** Resolves when no analysis is running or waiting (tests, shutdown). */
  whenIdle(): Promise<void> {
    return !this.analysing && !this.queue.length ? Promise.resolve() : new Promise((r) => this.idle.push(r));
  }

  /** Stops taking queued analyses; the running one finishes. */
  async drain(): Promise<void> {
    this.queue = [];
    await this.whenIdle();
  }
}
