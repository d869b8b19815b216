import { DomainError, ErrorCode, type Logger } from '@reelsmith/kit';
import { NO_DELETION_FACTS, type DeletionFacts } from './reels.service.js';

export type MediaKind = 'video' | 'audio';

/** What probing a stored file found (an upload's or a library item's). */
// The generated proto message has these fields too, on purpose: the domain keeps its own types and transport maps them.
export interface ProbedFile {
  objectKey: string;
  sizeBytes: number;
  durationSec: number;
  width: number;
  height: number;
  videoCodec: string;
  audioCodec: string;
  thumbnailKey: string;
}

export interface MediaRecord extends ProbedFile {
  id: string;
  ownerId: string;
  kind: MediaKind;
  displayName: string;
  analysisStatus: 'pending' | 'done' | 'failed';
  analysis: unknown;
  /** A stock library item, usable by anyone. */
  library?: boolean;
  /** Audio: the waveform (library items keep it apart; uploads in their analysis). */
  peaks?: number[];
}

export interface MediaRepository {
  insert(m: MediaRecord): Promise<void>;
  byKeys(keys: string[]): Promise<MediaRecord[]>;
  /**
   * Claims up to `limit` pending analyses for `replicaId`, oldest first, skipping those another
   * replica claimed less than `leaseMs` ago. Concurrent callers never get the same media.
   */
  claimPendingAnalyses(replicaId: string, limit: number, leaseMs: number): Promise<MediaRecord[]>;
  /** Claims one pending analysis by key, on the same terms; null when done or held by another replica. */
  claimAnalysis(key: string, replicaId: string, leaseMs: number): Promise<MediaRecord | null>;
  setAnalysis(key: string, status: 'done' | 'failed', analysis: unknown): Promise<void>;
  /**
   * Claims one upload whose analysis an older engine made (its `version` below the current one for
   * its kind), newest first, unless another replica holds it; it stays `done` meanwhile.
   */
  claimStaleAnalysis(versions: Record<MediaKind, number>, replicaId: string, leaseMs: number): Promise<MediaRecord | null>;
  /** Records that a job uses these uploads of the owner (first use kept). */
  markUsed(ownerId: string, keys: string[]): Promise<void>;
  /** Total size of the owner's uploads no job has used yet. */
  unusedBytes(ownerId: string): Promise<number>;
  /** Uploads no job used, made before `before` (oldest first, at most `limit`). */
  unusedBefore(before: Date, limit: number): Promise<MediaRecord[]>;
  /** Removes an upload's record. */
  remove(objectKey: string): Promise<void>;
  /** Every object key (uploads, reels, thumbnails) the owner has. */
  ownedObjectKeys(ownerId: string): Promise<string[]>;
  /** Removes every upload and reel record of the owner; returns how many of each. */
  removeOwner(ownerId: string): Promise<{ uploads: number; reels: number }>;
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

/** The probe's findings a stored file keeps (ProbedFile's share of them). */
export const probedShape = (p: Probed) => ({
  durationSec: p.durationSec,
  width: p.width,
  height: p.height,
  videoCodec: p.videoCodec,
  audioCodec: p.audioCodec,
});

/** What the probe said of a video stream (frame rate not kept: the engine assumes 30 fps). */
export interface VideoShape {
  codec: string;
  width: number;
  height: number;
}

/** The media tools: ffprobe, thumbnails and the engine's analyses, on local files. */
export interface MediaTools {
  /** Throws a DomainError (INVALID_ARGUMENT) with a clear message for anything unusable. */
  probe(path: string, displayName: string): Promise<Probed>;
  thumbnail(path: string, durationSec: number): Promise<Buffer>;
  /** A small JPEG (a timeline thumbnail) of a video at `atSec`. */
  frame(path: string, atSec: number): Promise<Buffer>;
  /** The same for several moments of one video at once (one process), when the tools can. */
  framesOf?(path: string, atSecs: number[]): Promise<Buffer[]>;
  /** `video` (from the probe) lets a light clip or another codec skip the engine's packet index. */
  analyse(path: string, kind: MediaKind, durationSec: number, video?: VideoShape): Promise<unknown>;
  /** The version the analyses of each kind carry now (an analysis with an older one is redone). */
  analysisVersions: Record<MediaKind, number>;
}

export interface Objects {
  withLocalFile<T>(key: string, fn: (path: string) => Promise<T>): Promise<T>;
  put(key: string, body: Buffer, opts?: { contentType?: string }): Promise<unknown>;
  stat(key: string): Promise<{ size: number } | null>;
  delete(key: string): Promise<void>;
  /** Deletes every object under a folder (an upload's cached frames). */
  deletePrefix(prefix: string): Promise<number>;
}

/** Where the edit plan's timeline frames of a video are cached (see MediaService.frames). */
export const framesPrefix = (objectKey: string) => `frames/${objectKey}/`;

/** Containers of the spec's formats: MP4, MOV, AVI, MKV (and WebM, its sibling) for video; MP3, WAV, AAC, M4A for audio. */
const VIDEO_FORMATS = /^(mov,mp4,m4a,3gp,3g2,mj2|avi|matroska,webm)$/;
const AUDIO_FORMATS = /^(mp3|wav|aac|mov,mp4,m4a,3gp,3g2,mj2)$/;

export const MAX_DISPLAY_NAME = 200;

/** What the engine needs to know of a stored video before analysing it (nothing for music). */
export const videoShape = (m: { kind: MediaKind; videoCodec: string; width: number; height: number }): VideoShape | undefined =>
  m.kind === 'video' ? { codec: m.videoCodec, width: m.width, height: m.height } : undefined;

/**
 * Redoes, one at a time, the analyses an older engine made: claims one (`claim`, null when none is
 * left), redoes it (`redo`), until none is left or `stopped`. A failure is logged (`failed`) and
 * keeps the old analysis; its claim stays, so the loop moves on to the next.
 */
export async function redoStaleAnalyses<T>(
  claim: () => Promise<T | null>,
  redo: (item: T) => Promise<void>,
  failed: (item: T, err: unknown) => void,
  stopped: () => boolean,
): Promise<{ refreshed: number; failed: number }> {
  const counts = { refreshed: 0, failed: 0 };
  while (!stopped()) {
    const item = await claim();
    if (!item) break;
    try {
      await redo(item);
      counts.refreshed++;
    } catch (e) {
      failed(item, e);
      counts.failed++;
    }
  }
  return counts;
}

/** `f` of each item, one after another. */
async function mapSeries<T, R>(items: readonly T[], f: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = [];
  for (const item of items) out.push(await f(item));
  return out;
}

/** Timeline frames one ffmpeg process cuts from one video. */
const FRAMES_PER_PROCESS = 16;

/** The most frames one GetFrames call may ask for (a plan's segments). */
export const FRAMES_PER_CALL = 5000;

/** Uploads no job has used are deleted after this long. */
export const UNUSED_UPLOAD_TTL_MS = 24 * 3600_000;
/**
 * A user's uploads not yet used by a job may add up to this many times their plan's cap for one
 * reel: room to choose between clips, not a free file store.
 */
export const UNUSED_UPLOAD_FACTOR = 2;

const gb = (bytes: number) => `${(bytes / 1e9).toFixed(1)} GB`;

/**
 * How long a replica's claim on an analysis keeps other replicas off it. A replica that stops
 * gracefully finishes what it claimed; one that dies leaves claims that others may take after this.
 */
export const ANALYSIS_LEASE_MS = 15 * 60_000;

export interface MediaOptions {
  /** How many analyses run at once in this process (CPU-heavy). */
  concurrency?: number;
  /** Names this process in its claims; only for people reading the table. */
  replicaId?: string;
  leaseMs?: number;
  /** Published when a user's data is deleted (reels.service.ts). */
  facts?: DeletionFacts;
}

/**
 * Uploads become media: probed, refused (and deleted) when not a usable video or audio file of
 * the allowed kinds, recorded with their metadata and a thumbnail, then analysed in the
 * background so that a later generate finds the analysis ready. Every analysis is claimed in the
 * database before it runs, so replicas sharing the database never analyse the same media twice.
 */
export class MediaService {
  private analysing = 0;
  /** Uploads registered here, waiting for a free slot. */
  private queue: string[] = [];
  /** Claiming what was pending at start, a batch per free slot, until nothing is left. */
  private resuming = false;
  private claiming?: Promise<void>;
  private stopped = false;
  private idle: Array<() => void> = [];
  private readonly concurrency: number;
  private readonly replicaId: string;
  private readonly leaseMs: number;
  private readonly facts: DeletionFacts;

  constructor(
    private readonly repo: MediaRepository,
    private readonly objects: Objects,
    private readonly tools: MediaTools,
    private readonly log: Logger,
    opts: MediaOptions = {},
  ) {
    this.concurrency = opts.concurrency ?? 1;
    this.replicaId = opts.replicaId ?? crypto.randomUUID();
    this.leaseMs = opts.leaseMs ?? ANALYSIS_LEASE_MS;
    this.facts = opts.facts ?? NO_DELETION_FACTS;
  }

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
    const quota = sizeCap * UNUSED_UPLOAD_FACTOR;
    if (sizeCap > 0 && (await this.repo.unusedBytes(ownerId)) + st.size > quota)
      throw await refuse(
        new DomainError(
          ErrorCode.PAYLOAD_TOO_LARGE,
          `Your uploads not yet used in a reel would exceed ${gb(quota)}. Make a reel with them, or wait: unused uploads are deleted after 24 hours.`,
          'upload_quota',
        ),
      );
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
      ...probedShape(probed),
      thumbnailKey,
      analysisStatus: 'pending',
      analysis: null,
    };
    await this.repo.insert(record);
    this.enqueue(objectKey);
    return record;
  }

  /** The caller's own uploads and stock library items (from `library`); anything else is NOT_FOUND. */
  async media(
    ownerId: string,
    keys: string[],
    library: (keys: string[]) => Promise<MediaRecord[]> = async () => [],
  ): Promise<MediaRecord[]> {
    const found = await this.repo.byKeys(keys);
    const byKey = new Map(found.filter((m) => m.ownerId === ownerId).map((m) => [m.objectKey, m]));
    const rest = keys.filter((k) => !byKey.has(k));
    if (rest.length) for (const m of await library(rest)) byKey.set(m.objectKey, m);
    return keys.map((k) => {
      const m = byKey.get(k);
      if (!m)
        throw new DomainError(ErrorCode.NOT_FOUND, 'One of the selected files was not found. Please upload it again.', 'media_not_found');
      return m;
    });
  }

  /**
   * Small JPEGs of the caller's videos (own uploads or library clips) at the given times, for the
   * edit plan's timeline: each made once and kept in storage under `frames/<object key>/<ms>.jpg`,
   * so asking again costs a lookup. Returns their keys, in order.
   */
  async frames(
    ownerId: string,
    wanted: Array<{ objectKey: string; atMs: number }>,
    library: (keys: string[]) => Promise<MediaRecord[]> = async () => [],
  ): Promise<string[]> {
    if (wanted.length > FRAMES_PER_CALL)
      throw new DomainError(ErrorCode.INVALID_ARGUMENT, `At most ${FRAMES_PER_CALL} frames at a time.`, 'too_many_frames');
    const keys = [...new Set(wanted.map((w) => w.objectKey))];
    const media = new Map((await this.media(ownerId, keys, library)).map((m) => [m.objectKey, m]));
    const frameKey = (w: { objectKey: string; atMs: number }) => {
      const m = media.get(w.objectKey)!;
      if (m.kind !== 'video') throw new DomainError(ErrorCode.INVALID_ARGUMENT, 'Frames are cut from videos only.', 'not_video');
      // Inside the clip: a frame a little before its end at most.
      const ms = Math.max(0, Math.min(Math.round(w.atMs), Math.floor((m.durationSec - 0.05) * 1000)));
      return { objectKey: w.objectKey, ms, key: `${framesPrefix(w.objectKey)}${ms}.jpg` };
    };
    const plan = wanted.map(frameKey);
    const missing = new Map<string, Map<string, number>>();
    for (const f of plan) {
      if (missing.get(f.objectKey)?.has(f.key)) continue;
      if (await this.objects.stat(f.key)) continue;
      const perFile = missing.get(f.objectKey) ?? new Map<string, number>();
      perFile.set(f.key, f.ms);
      missing.set(f.objectKey, perFile);
    }
    // One local copy per file, its missing frames cut from it FRAMES_PER_PROCESS at a time (a long
    // reel's timeline asks for hundreds), or one after another with tools that cut one at a time.
    for (const [objectKey, frames] of missing)
      await this.objects.withLocalFile(objectKey, async (p) => {
        const todo = [...frames];
        for (let i = 0; i < todo.length; i += FRAMES_PER_PROCESS) {
          const batch = todo.slice(i, i + FRAMES_PER_PROCESS);
          const ats = batch.map(([, ms]) => ms / 1000);
          const images = await (this.tools.framesOf?.(p, ats) ?? mapSeries(ats, (at) => this.tools.frame(p, at)));
          for (const [j, [key]] of batch.entries()) await this.objects.put(key, images[j]!, { contentType: 'image/jpeg' });
        }
      });
    return plan.map((f) => f.key);
  }

  /** A job uses these uploads (the caller's own only: others' keys change nothing). */
  markUsed = (ownerId: string, keys: string[]) => this.repo.markUsed(ownerId, keys);

  /**
   * Deletes uploads no job used within UNUSED_UPLOAD_TTL_MS: their object, thumbnail and cached
   * timeline frames, then the record. Returns how many went. Objects first, so a failure leaves the record for the next run.
   */
  async expireUnused(now: Date): Promise<number> {
    let removed = 0;
    for (const m of await this.repo.unusedBefore(new Date(now.getTime() - UNUSED_UPLOAD_TTL_MS), 500)) {
      try {
        for (const key of [m.objectKey, m.thumbnailKey]) if (key) await this.objects.delete(key);
        await this.objects.deletePrefix(framesPrefix(m.objectKey));
        await this.repo.remove(m.objectKey);
        removed += 1;
      } catch (e) {
        this.log.warn({ err: e, object_key: m.objectKey }, 'could not delete an expired upload; next run retries');
      }
    }
    if (removed) this.log.info({ removed }, 'unused uploads expired');
    return removed;
  }

  /**
   * Account deletion: every upload and reel of the owner, with their objects. Objects first, so
   * a storage failure leaves the records and asking again finishes the job.
   */
  async deleteUserData(ownerId: string): Promise<{ uploads: number; reels: number }> {
    for (const key of await this.repo.ownedObjectKeys(ownerId)) {
      await this.objects.delete(key);
      // An upload's timeline frames go with it (a reel or thumbnail has none: nothing there).
      if (key.startsWith('uploads/')) await this.objects.deletePrefix(framesPrefix(key));
    }
    await this.facts.userDataDeleted(ownerId);
    const removed = await this.repo.removeOwner(ownerId);
    this.log.info({ user_id: ownerId, ...removed }, 'user data deleted with its objects');
    return removed;
  }

  // --- background analysis -------------------------------------------------------------------

  private enqueue(key: string): void {
    if (this.stopped) return; // left pending and unclaimed: the next replica to start takes it
    this.queue.push(key);
    this.pump();
  }

  private pump(): void {
    if (this.stopped) return;
    while (this.analysing < this.concurrency && this.queue.length) {
      const key = this.queue.shift()!;
      this.run(this.analyseUpload(key));
    }
    if (this.resuming && this.analysing < this.concurrency && !this.claiming)
      this.claiming = this.claimMore().finally(() => {
        this.claiming = undefined;
        this.pump();
        this.settle();
      });
  }

  private run(task: Promise<void>): void {
    this.analysing++;
    void task.finally(() => {
      this.analysing--;
      this.pump();
      this.settle();
    });
  }

  private settle(): void {
    if (!this.analysing && !this.queue.length && !this.claiming) this.idle.splice(0).forEach((r) => r());
  }

  private async claimMore(): Promise<void> {
    let claimed: MediaRecord[];
    try {
      claimed = await this.repo.claimPendingAnalyses(this.replicaId, this.concurrency - this.analysing, this.leaseMs);
    } catch (e) {
      this.log.warn({ err: e }, 'could not claim pending analyses; the next start will');
      claimed = [];
    }
    if (!claimed.length || this.stopped) this.resuming = false;
    // Claimed while stopping: finished anyway, since the claim keeps other replicas off them.
    for (const m of claimed) this.run(this.analyse(m));
  }

  /** An upload of this process: analysed here unless a replica that just started took it first. */
  private async analyseUpload(key: string): Promise<void> {
    let m: MediaRecord | null;
    try {
      m = await this.repo.claimAnalysis(key, this.replicaId, this.leaseMs);
    } catch (e) {
      this.log.warn({ err: e, object_key: key }, 'could not claim the analysis; the next start will');
      return;
    }
    if (m) await this.analyse(m);
  }

  private async analyse(m: MediaRecord): Promise<void> {
    try {
      const analysis = await this.objects.withLocalFile(m.objectKey, (p) => this.tools.analyse(p, m.kind, m.durationSec, videoShape(m)));
      await this.repo.setAnalysis(m.objectKey, 'done', analysis);
    } catch (e) {
      this.log.warn({ err: e, object_key: m.objectKey }, 'analysis failed; the render will analyse itself');
      await this.repo.setAnalysis(m.objectKey, 'failed', null).catch(() => undefined);
    }
  }

  /**
   * Analyses again, one at a time in the background, the uploads an older engine analysed, newest
   * first (a claim keeps other replicas off each). Their old analysis stays in use meanwhile (the
   * render redoes an outdated one itself), so nobody waits for this; a failure keeps it.
   */
  async refreshStale(stopped: () => boolean = () => false): Promise<{ refreshed: number; failed: number }> {
    const counts = await redoStaleAnalyses(
      () => this.repo.claimStaleAnalysis(this.tools.analysisVersions, this.replicaId, this.leaseMs),
      async (m) => {
        const analysis = await this.objects.withLocalFile(m.objectKey, (p) => this.tools.analyse(p, m.kind, m.durationSec, videoShape(m)));
        await this.repo.setAnalysis(m.objectKey, 'done', analysis);
      },
      (m, e) => this.log.warn({ err: e, object_key: m.objectKey }, 'analysis of an older engine could not be redone; it stays in use'),
      stopped,
    );
    if (counts.refreshed || counts.failed) this.log.info(counts, 'upload analyses of an older engine redone');
    return counts;
  }

  /**
   * Takes up analyses that were pending when this or another replica stopped: claims as many as
   * there are free slots, and claims again as slots free up, until none is left unclaimed.
   */
  async resumePending(): Promise<void> {
    this.resuming = true;
    this.pump();
    await this.claiming;
  }

  /** Resolves when no analysis is running, waiting or being claimed (tests, shutdown). */
  whenIdle(): Promise<void> {
    return !this.analysing && !this.queue.length && !this.claiming ? Promise.resolve() : new Promise((r) => this.idle.push(r));
  }

  /**
   * Stops taking analyses; the running ones finish. Queued uploads were never claimed, so they
   * stay pending for the next replica that starts.
   */
  async drain(): Promise<void> {
    this.stopped = true;
    this.resuming = false;
    this.queue = [];
    await this.whenIdle();
  }
}
