// In-memory fakes of the media library's ports and the fixtures the media and reels service specs share.
import { domainFailure, quietLogger } from '@reelsmith/kit/testing';
import {
  MediaService,
  type MediaKind,
  type MediaRecord,
  type MediaRepository,
  type MediaTools,
  type Objects,
  type Probed,
} from '../../src/domain/media.service';
import { ReelsService, type ReelRecord, type ReelsRepository } from '../../src/domain/reels.service';

export interface Row extends MediaRecord {
  createdAt: number;
  claimedBy: string | null;
  claimedAt: number | null;
  usedAt?: number | null;
}

/**
 * The media table as the SQL keeps it. A claim takes pending rows that are unclaimed or whose claim
 * is older than the lease; each method runs to completion before another starts, as one
 * statement does under the row locks.
 */
export class MemoryMedia implements MediaRepository, ReelsRepository {
  rows = new Map<string, Row>();
  reels = new Map<string, ReelRecord & { deletedAt: Date | null }>();
  private seq = 0;
  constructor(readonly now: () => number) {}

  async insert(m: MediaRecord) {
    this.rows.set(m.objectKey, { ...m, analysis: null, createdAt: this.now() * 1000 + this.seq++, claimedBy: null, claimedAt: null });
  }
  /** A row left pending by an earlier process. */
  seedPending(key: string, claim?: { by: string; at: number }) {
    this.rows.set(key, {
      ...record(key, 'video'),
      createdAt: this.now() * 1000 + this.seq++,
      claimedBy: claim?.by ?? null,
      claimedAt: claim?.at ?? null,
    });
  }
  async byKeys(keys: string[]) {
    return keys.flatMap((k) => (this.rows.has(k) ? [this.view(this.rows.get(k)!)] : []));
  }
  private claimable(r: Row, leaseMs: number) {
    return r.analysisStatus === 'pending' && (r.claimedAt === null || r.claimedAt < this.now() - leaseMs);
  }
  private claim(r: Row, replicaId: string) {
    r.claimedBy = replicaId;
    r.claimedAt = this.now();
    return this.view(r);
  }
  async claimPendingAnalyses(replicaId: string, limit: number, leaseMs: number) {
    return [...this.rows.values()]
      .filter((r) => this.claimable(r, leaseMs))
      .sort((a, b) => a.createdAt - b.createdAt)
      .slice(0, limit)
      .map((r) => this.claim(r, replicaId));
  }
  async claimAnalysis(key: string, replicaId: string, leaseMs: number) {
    const r = this.rows.get(key);
    return r && this.claimable(r, leaseMs) ? this.claim(r, replicaId) : null;
  }
  async setAnalysis(key: string, status: 'done' | 'failed', analysis: unknown) {
    Object.assign(this.rows.get(key)!, { analysisStatus: status, analysis });
  }
  async claimStaleAnalysis(versions: Record<'video' | 'audio', number>, replicaId: string, leaseMs: number) {
    const stale = [...this.rows.values()]
      .filter((r) => {
        const v = (r.analysis as { version?: unknown } | null)?.version;
        const claimable = r.claimedAt === null || r.claimedAt < this.now() - leaseMs;
        return r.analysisStatus === 'done' && claimable && (typeof v === 'number' ? v : 0) < versions[r.kind];
      })
      .sort((a, b) => b.createdAt - a.createdAt);
    return stale.length ? this.claim(stale[0]!, replicaId) : null;
  }
  async addReel(r: Omit<ReelRecord, 'createdAt' | 'expiresAt'> & { expiresAt?: Date | null }) {
    if (!this.reels.has(r.id)) this.reels.set(r.id, { ...r, expiresAt: r.expiresAt ?? null, createdAt: new Date(), deletedAt: null });
    return this.reels.get(r.id)!;
  }
  async listReels(ownerId: string, limit: number, offset: number) {
    const mine = [...this.reels.values()].filter((r) => r.ownerId === ownerId && !r.deletedAt);
    return { reels: mine.slice(offset, offset + limit), total: mine.length };
  }
  async reel(ownerId: string, id: string) {
    const r = this.reels.get(id);
    if (!r || r.ownerId !== ownerId || r.deletedAt) return null;
    const { deletedAt: _d, ...reel } = r;
    return reel;
  }
  async deleteReel(ownerId: string, id: string) {
    const r = this.reels.get(id);
    if (!r || r.ownerId !== ownerId || r.deletedAt) return false;
    r.deletedAt = new Date();
    return true;
  }
  async expiredReels(now: Date, limit: number) {
    return [...this.reels.values()]
      .filter((r) => !r.deletedAt && r.expiresAt && r.expiresAt < now)
      .slice(0, limit)
      .map(({ deletedAt: _d, ...r }) => r);
  }
  async markUsed(ownerId: string, keys: string[]) {
    for (const k of keys) {
      const r = this.rows.get(k);
      if (r && r.ownerId === ownerId && !r.usedAt) r.usedAt = this.now();
    }
  }
  async unusedBytes(ownerId: string) {
    return [...this.rows.values()].filter((r) => r.ownerId === ownerId && !r.usedAt).reduce((s, r) => s + r.sizeBytes, 0);
  }
  async unusedBefore(before: Date, limit: number) {
    return [...this.rows.values()]
      .filter((r) => !r.usedAt && r.createdAt / 1000 < before.getTime())
      .sort((a, b) => a.createdAt - b.createdAt)
      .slice(0, limit)
      .map((r) => this.view(r));
  }
  async remove(objectKey: string) {
    this.rows.delete(objectKey);
  }
  async ownedObjectKeys(ownerId: string) {
    const rows = [...this.rows.values(), ...this.reels.values()].filter((r) => r.ownerId === ownerId);
    return rows.flatMap((r) => [r.objectKey, r.thumbnailKey]).filter(Boolean);
  }
  async removeOwner(ownerId: string) {
    const uploads = [...this.rows.values()].filter((r) => r.ownerId === ownerId);
    const reels = [...this.reels.values()].filter((r) => r.ownerId === ownerId);
    for (const r of uploads) this.rows.delete(r.objectKey);
    for (const r of reels) this.reels.delete(r.id);
    return { uploads: uploads.length, reels: reels.length };
  }
  private view(r: Row): MediaRecord {
    const { createdAt: _c, claimedBy: _b, claimedAt: _a, usedAt: _u, ...m } = r;
    return { ...m };
  }
}

export const OWNER = '11111111-1111-4111-8111-111111111111';
export const OTHER = '22222222-2222-4222-8222-222222222222';

export function record(key: string, kind: MediaKind): MediaRecord {
  return {
    id: `id-${key}`,
    ownerId: OWNER,
    objectKey: key,
    kind,
    displayName: key,
    sizeBytes: 10,
    durationSec: 4,
    width: 0,
    height: 0,
    videoCodec: '',
    audioCodec: '',
    thumbnailKey: '',
    analysisStatus: 'pending',
    analysis: null,
  };
}

/** Uploaded objects by key; `withLocalFile` hands the tools a path naming the key. */
export class MemoryObjects implements Objects {
  files = new Map<string, { size: number; contentType?: string; body?: Buffer }>();
  async withLocalFile<T>(key: string, fn: (path: string) => Promise<T>) {
    if (!this.files.has(key)) throw new Error(`no object ${key}`);
    return fn(`/local/${key}`);
  }
  async put(key: string, body: Buffer, opts?: { contentType?: string }) {
    this.files.set(key, { size: body.length, body, contentType: opts?.contentType });
    return { key, size: body.length };
  }
  async stat(key: string) {
    const f = this.files.get(key);
    return f ? { size: f.size } : null;
  }
  async delete(key: string) {
    this.files.delete(key);
  }
  async deletePrefix(prefix: string) {
    const gone = [...this.files.keys()].filter((k) => k.startsWith(prefix));
    for (const k of gone) this.files.delete(k);
    return gone.length;
  }
}

export const H264_MP4: Probed = {
  kind: 'video',
  formatName: 'mov,mp4,m4a,3gp,3g2,mj2',
  durationSec: 12.5,
  width: 1920,
  height: 1080,
  videoCodec: 'h264',
  audioCodec: 'aac',
};
export const MP3: Probed = { kind: 'audio', formatName: 'mp3', durationSec: 30, width: 0, height: 0, videoCodec: '', audioCodec: 'mp3' };
export const THUMB = Buffer.from([0xff, 0xd8, 0xff, 0xd9]);

/** A finished reel `id` of `ownerId` as the orchestrator reports it. */
export const reel = (id: string, ownerId = OWNER) => ({
  id,
  ownerId,
  title: 'T',
  description: '',
  objectKey: `reels/${id}.mp4`,
  thumbnailKey: `reels/${id}.jpg`,
  durationSec: 30,
  sizeBytes: 1,
  musicUsed: false,
  enableBeatMapping: false,
  enableIntelligence: false,
  pacingPreset: 'standard',
});

/**
 * Tools that answer per file: `probes` by key (an Error to throw), analyses that finish when the
 * test says so, and a record of which files were analysed and how many ran at once.
 */
export class ScriptedTools implements MediaTools {
  analysisVersions = { video: 2, audio: 3 };
  probes = new Map<string, Probed | Error>();
  analysed: string[] = [];
  running = 0;
  maxRunning = 0;
  hold = false;
  failing = new Set<string>();
  private waiting: Array<() => void> = [];

  async probe(path: string) {
    const p = this.probes.get(path.replace('/local/', ''));
    if (!p) throw new Error(`unscripted probe of ${path}`);
    if (p instanceof Error) throw p;
    return p;
  }
  async thumbnail() {
    return THUMB;
  }
  /** Frames cut, as `<path>@<seconds>`. */
  cut: string[] = [];
  async frame(path: string, atSec: number) {
    this.cut.push(`${path}@${atSec}`);
    return THUMB;
  }
  async analyse(path: string, kind: MediaKind) {
    const key = path.replace('/local/', '');
    this.analysed.push(key);
    this.running++;
    this.maxRunning = Math.max(this.maxRunning, this.running);
    try {
      if (this.hold) await new Promise<void>((r) => this.waiting.push(r));
      if (this.failing.has(key)) throw new Error('decoder crashed');
      return { kind, key };
    } finally {
      this.running--;
    }
  }
  /** Lets every held analysis finish; later ones run straight through. */
  release() {
    this.hold = false;
    this.waiting.splice(0).forEach((r) => r());
  }
}

export function setup(opts: { concurrency?: number } = {}) {
  let now = Date.parse('2026-04-01T09:00:00Z');
  const repo = new MemoryMedia(() => now);
  const objects = new MemoryObjects();
  const tools = new ScriptedTools();
  const replica = (replicaId: string, concurrency = opts.concurrency ?? 1) =>
    new MediaService(repo, objects, tools, quietLogger(), { concurrency, replicaId });
  const service = replica('replica-a');
  const reels = new ReelsService(repo, objects, quietLogger());
  /** An uploaded object that probes as `probe`. */
  const upload = (key: string, probe: Probed | Error, size = 1000) => {
    objects.files.set(key, { size });
    tools.probes.set(key, probe);
  };
  return { repo, objects, tools, service, reels, replica, upload, advance: (ms: number) => void (now += ms) };
}

/** The DomainError a promise rejects with. */
export const failure = domainFailure;
