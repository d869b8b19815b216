import { DomainError, ErrorCode } from '@reelsmith/kit';
import { domainFailure, quietLogger } from '@reelsmith/kit/testing';
import {
  ANALYSIS_LEASE_MS,
  MediaService,
  type MediaKind,
  type MediaRecord,
  type MediaRepository,
  type MediaTools,
  type Objects,
  type Probed,
} from '../../src/domain/media.service';
import { ReelsService, reelRetentionMs, type ReelRecord, type ReelsRepository } from '../../src/domain/reels.service';

interface Row extends MediaRecord {
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
class MemoryMedia implements MediaRepository, ReelsRepository {
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

const OWNER = '11111111-1111-4111-8111-111111111111';
const OTHER = '22222222-2222-4222-8222-222222222222';

function record(key: string, kind: MediaKind): MediaRecord {
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
class MemoryObjects implements Objects {
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

const H264_MP4: Probed = {
  kind: 'video',
  formatName: 'mov,mp4,m4a,3gp,3g2,mj2',
  durationSec: 12.5,
  width: 1920,
  height: 1080,
  videoCodec: 'h264',
  audioCodec: 'aac',
};
const MP3: Probed = { kind: 'audio', formatName: 'mp3', durationSec: 30, width: 0, height: 0, videoCodec: '', audioCodec: 'mp3' };
const THUMB = Buffer.from([0xff, 0xd8, 0xff, 0xd9]);

/** A finished reel `id` of `ownerId` as the orchestrator reports it. */
const reel = (id: string, ownerId = OWNER) => ({
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
class ScriptedTools implements MediaTools {
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

function setup(opts: { concurrency?: number } = {}) {
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
const failure = domainFailure;

describe('registering an upload', () => {
  it('records a video with its metadata and a JPEG thumbnail, then analyses it in the background', async () => {
    const t = setup();
    t.upload('uploads/a.mp4', H264_MP4, 4096);

    const m = await t.service.registerUpload(OWNER, 'uploads/a.mp4', 'Beach day.mp4', 0);

    expect(m).toMatchObject({
      ownerId: OWNER,
      objectKey: 'uploads/a.mp4',
      kind: 'video',
      displayName: 'Beach day.mp4',
      sizeBytes: 4096,
      durationSec: 12.5,
      width: 1920,
      height: 1080,
      videoCodec: 'h264',
      audioCodec: 'aac',
      thumbnailKey: 'thumbs/uploads/a.mp4.jpg',
      analysisStatus: 'pending',
    });
    expect(t.objects.files.get('thumbs/uploads/a.mp4.jpg')).toMatchObject({ body: THUMB, contentType: 'image/jpeg' });
    await t.service.whenIdle();
    expect((await t.service.media(OWNER, ['uploads/a.mp4']))[0]).toMatchObject({
      analysisStatus: 'done',
      analysis: { kind: 'video', key: 'uploads/a.mp4' },
    });
  });

  it('records audio without a thumbnail', async () => {
    const t = setup();
    t.upload('uploads/song.mp3', MP3);
    const m = await t.service.registerUpload(OWNER, 'uploads/song.mp3', 'song.mp3', 0);
    expect(m).toMatchObject({ kind: 'audio', thumbnailKey: '', audioCodec: 'mp3' });
    expect([...t.objects.files.keys()]).toEqual(['uploads/song.mp3']);
    await t.service.whenIdle();
  });

  it('names a nameless upload "upload" and cuts long names at 200 characters', async () => {
    const t = setup();
    t.upload('uploads/a.mp3', MP3);
    t.upload('uploads/b.mp3', MP3);
    expect((await t.service.registerUpload(OWNER, 'uploads/a.mp3', '', 0)).displayName).toBe('upload');
    expect((await t.service.registerUpload(OWNER, 'uploads/b.mp3', 'n'.repeat(300), 0)).displayName).toBe('n'.repeat(200));
    await t.service.whenIdle();
  });

  it('a missing upload is NOT_FOUND', async () => {
    const t = setup();
    expect(await failure(t.service.registerUpload(OWNER, 'uploads/none.mp4', 'x.mp4', 0))).toMatchObject({
      code: ErrorCode.NOT_FOUND,
      message: 'The uploaded file was not found.',
    });
  });

  it('a file over the plan cap is refused and deleted; a cap of 0 means no cap', async () => {
    const t = setup();
    t.upload('uploads/big.mp4', H264_MP4, 5001);
    expect(await failure(t.service.registerUpload(OWNER, 'uploads/big.mp4', 'big.mp4', 5000))).toMatchObject({
      code: ErrorCode.PAYLOAD_TOO_LARGE,
      reason: 'too_large',
      message: 'The file is larger than your plan allows.',
    });
    expect(t.objects.files.has('uploads/big.mp4')).toBe(false);
    expect(t.repo.rows.size).toBe(0);

    t.upload('uploads/exact.mp4', H264_MP4, 5000);
    await expect(t.service.registerUpload(OWNER, 'uploads/exact.mp4', 'exact.mp4', 5000)).resolves.toMatchObject({ sizeBytes: 5000 });
    t.upload('uploads/huge.mp4', H264_MP4, 10 ** 12);
    await expect(t.service.registerUpload(OWNER, 'uploads/huge.mp4', 'huge.mp4', 0)).resolves.toMatchObject({ sizeBytes: 10 ** 12 });
    await t.service.whenIdle();
  });

  it.each([
    ['a Flash video', { ...H264_MP4, formatName: 'flv' }],
    ['an Ogg audio file', { ...MP3, formatName: 'ogg' }],
    ['a WAV that claims to be video', { ...H264_MP4, formatName: 'wav' }],
  ])('%s is refused with the list of formats, and deleted', async (_what, probe) => {
    const t = setup();
    t.upload('uploads/f', probe);
    // Alike by design: each refusal case states its own code, reason and message.
    expect(await failure(t.service.registerUpload(OWNER, 'uploads/f', 'holiday.flv', 0))).toMatchObject({
      code: ErrorCode.INVALID_ARGUMENT,
      reason: 'unsupported_format',
      message: 'holiday.flv: unsupported format. Use MP4, MOV, AVI or MKV video, or MP3, WAV, AAC or M4A audio.',
    });
    expect(t.objects.files.has('uploads/f')).toBe(false);
    expect(t.repo.rows.size).toBe(0);
    expect(t.tools.analysed).toEqual([]);
  });

  it.each([
    ['avi', 'video'],
    ['matroska,webm', 'video'],
    ['wav', 'audio'],
    ['aac', 'audio'],
    ['mov,mp4,m4a,3gp,3g2,mj2', 'audio'],
  ] as const)('accepts %s %s', async (formatName, kind) => {
    const t = setup();
    t.upload('uploads/ok', { ...(kind === 'video' ? H264_MP4 : MP3), formatName });
    await expect(t.service.registerUpload(OWNER, 'uploads/ok', 'ok', 0)).resolves.toMatchObject({ kind });
    await t.service.whenIdle();
  });

  it("an unreadable file is refused with the tool's message and deleted", async () => {
    const t = setup();
    t.upload('uploads/junk.mp4', new DomainError(ErrorCode.INVALID_ARGUMENT, 'junk.mp4: no audio or video stream', 'unsupported_media'));
    expect(await failure(t.service.registerUpload(OWNER, 'uploads/junk.mp4', 'junk.mp4', 0))).toMatchObject({
      message: 'junk.mp4: no audio or video stream',
    });
    expect(t.objects.files.has('uploads/junk.mp4')).toBe(false);
  });

  it('an outage while probing is passed on as it is, and the upload deleted', async () => {
    const t = setup();
    t.upload('uploads/a.mp4', new Error('spawn ffprobe ENOENT'));
    await expect(t.service.registerUpload(OWNER, 'uploads/a.mp4', 'a.mp4', 0)).rejects.toThrow('spawn ffprobe ENOENT');
    expect(t.objects.files.has('uploads/a.mp4')).toBe(false);
  });

  it('a failed analysis marks the media failed; the upload itself stays usable', async () => {
    const t = setup();
    t.upload('uploads/a.mp4', H264_MP4);
    t.tools.failing.add('uploads/a.mp4');
    await t.service.registerUpload(OWNER, 'uploads/a.mp4', 'a.mp4', 0);
    await t.service.whenIdle();
    expect((await t.service.media(OWNER, ['uploads/a.mp4']))[0]).toMatchObject({ analysisStatus: 'failed', analysis: null });
  });
});

describe('uploads no job uses', () => {
  it("are limited to twice the plan's cap in all, and stop counting once a job uses them", async () => {
    const t = setup();
    t.upload('uploads/1.mp4', H264_MP4, 4000);
    t.upload('uploads/2.mp4', H264_MP4, 4000);
    t.upload('uploads/3.mp4', H264_MP4, 4000);
    await t.service.registerUpload(OWNER, 'uploads/1.mp4', '1.mp4', 5000);
    await t.service.registerUpload(OWNER, 'uploads/2.mp4', '2.mp4', 5000);
    const refused = await failure(t.service.registerUpload(OWNER, 'uploads/3.mp4', '3.mp4', 5000));
    expect(refused).toMatchObject({ code: ErrorCode.PAYLOAD_TOO_LARGE, reason: 'upload_quota' });
    expect(refused.message).toContain('unused uploads are deleted after 24 hours');
    expect(t.objects.files.has('uploads/3.mp4')).toBe(false);
    // Another user's uploads are theirs to count.
    t.upload('uploads/other.mp4', H264_MP4, 4000);
    await t.service.registerUpload(OTHER, 'uploads/other.mp4', 'o.mp4', 5000);
    // A job used the first two: room again.
    await t.service.markUsed(OWNER, ['uploads/1.mp4', 'uploads/2.mp4']);
    t.upload('uploads/3.mp4', H264_MP4, 4000);
    await expect(t.service.registerUpload(OWNER, 'uploads/3.mp4', '3.mp4', 5000)).resolves.toMatchObject({ sizeBytes: 4000 });
    await t.service.whenIdle();
  });

  it('are deleted with their thumbnail and cached timeline frames after 24 hours; used and younger ones stay', async () => {
    const t = setup();
    for (const k of ['old-unused', 'old-used', 'young'].map((n) => `uploads/${n}.mp4`)) t.upload(k, H264_MP4);
    for (const k of [
      'frames/uploads/old-unused.mp4/500.jpg',
      'frames/uploads/old-unused.mp4/4100.jpg',
      'frames/uploads/old-used.mp4/500.jpg',
    ])
      await t.objects.put(k, THUMB);
    await t.service.registerUpload(OWNER, 'uploads/old-unused.mp4', 'a.mp4', 0);
    await t.service.registerUpload(OWNER, 'uploads/old-used.mp4', 'b.mp4', 0);
    await t.service.markUsed(OWNER, ['uploads/old-used.mp4']);
    t.advance(20 * 3600_000);
    await t.service.registerUpload(OWNER, 'uploads/young.mp4', 'c.mp4', 0);
    await t.service.whenIdle();
    t.advance(4 * 3600_000 + 1000);
    expect(await t.service.expireUnused(new Date(Date.parse('2026-04-01T09:00:00Z') + 24 * 3600_000 + 1000))).toBe(1);
    expect(t.objects.files.has('uploads/old-unused.mp4')).toBe(false);
    expect(t.objects.files.has('thumbs/uploads/old-unused.mp4.jpg')).toBe(false);
    expect([...t.objects.files.keys()].filter((k) => k.startsWith('frames/'))).toEqual(['frames/uploads/old-used.mp4/500.jpg']);
    expect([...t.repo.rows.keys()].sort()).toEqual(['uploads/old-used.mp4', 'uploads/young.mp4']);
    expect(t.objects.files.has('uploads/old-used.mp4')).toBe(true);
  });
});

describe('reading media and reels', () => {
  it("returns the caller's media in the order asked, and refuses another owner's", async () => {
    const t = setup();
    for (const k of ['k1', 'k2']) await t.repo.insert(record(k, 'video'));
    await t.repo.insert({ ...record('theirs', 'video'), ownerId: OTHER });

    expect((await t.service.media(OWNER, ['k2', 'k1'])).map((m) => m.objectKey)).toEqual(['k2', 'k1']);
    for (const keys of [
      ['k1', 'theirs'],
      ['k1', 'missing'],
    ])
      expect(await failure(t.service.media(OWNER, keys))).toMatchObject({
        code: ErrorCode.NOT_FOUND,
        reason: 'media_not_found',
        message: 'One of the selected files was not found. Please upload it again.',
      });
  });

  it('pages reels 50 by default and 100 at most, and deletes only your own reel', async () => {
    const t = setup();
    const calls: Array<[number, number]> = [];
    const list = t.repo.listReels.bind(t.repo);
    t.repo.listReels = (o, limit, offset) => {
      calls.push([limit, offset]);
      return list(o, limit, offset);
    };
    await t.reels.listReels(OWNER, 0, 0);
    await t.reels.listReels(OWNER, 500, -3);
    await t.reels.listReels(OWNER, 20, 40);
    expect(calls).toEqual([
      [50, 0],
      [100, 0],
      [20, 40],
    ]);

    await t.reels.addReel({ ...reel('r1'), thumbnailKey: '', musicUsed: true, enableBeatMapping: true });
    expect(await failure(t.reels.deleteReel(OTHER, 'r1'))).toMatchObject({ code: ErrorCode.NOT_FOUND, message: 'Reel not found.' });
    await t.reels.deleteReel(OWNER, 'r1');
    expect(await failure(t.reels.deleteReel(OWNER, 'r1'))).toMatchObject({ reason: 'reel_not_found' });
  });
});

describe("deleting a user's data (account deletion)", () => {
  it('removes every upload and reel of the owner with their objects, and nothing of anyone else', async () => {
    const t = setup();
    await t.reels.addReel(reel('mine', OWNER));
    await t.reels.addReel(reel('theirs', OTHER));
    await t.repo.insert({ ...record('uploads/mine.mp4', 'video'), ownerId: OWNER, thumbnailKey: 'uploads/mine.jpg' });
    await t.repo.insert({ ...record('uploads/theirs.mp4', 'video'), ownerId: OTHER, thumbnailKey: '' });
    for (const k of [
      'reels/mine.mp4',
      'reels/mine.jpg',
      'reels/theirs.mp4',
      'reels/theirs.jpg',
      'uploads/mine.mp4',
      'uploads/mine.jpg',
      'uploads/theirs.mp4',
      'frames/uploads/mine.mp4/500.jpg',
      'frames/uploads/mine.mp4/9000.jpg',
      'frames/uploads/theirs.mp4/500.jpg',
    ])
      await t.objects.put(k, Buffer.from(k));

    expect(await t.service.deleteUserData(OWNER)).toEqual({ uploads: 1, reels: 1 });

    expect([...t.objects.files.keys()].sort()).toEqual([
      'frames/uploads/theirs.mp4/500.jpg',
      'reels/theirs.jpg',
      'reels/theirs.mp4',
      'uploads/theirs.mp4',
    ]);
    expect((await t.reels.listReels(OWNER, 10, 0)).reels).toEqual([]);
    expect((await t.reels.listReels(OTHER, 10, 0)).reels.map((r) => r.id)).toEqual(['theirs']);
  });
});

describe('deleting a reel', () => {
  const store = async (t: ReturnType<typeof setup>, ...keys: string[]) => {
    for (const k of keys) await t.objects.put(k, Buffer.from(k));
  };

  it("removes the reel's video and thumbnail from storage and from the library, and nothing else", async () => {
    const t = setup();
    await t.reels.addReel(reel('r1'));
    await t.reels.addReel(reel('r2'));
    await store(t, 'reels/r1.mp4', 'reels/r1.jpg', 'reels/r2.mp4', 'reels/r2.jpg', 'uploads/source.mp4');

    await t.reels.deleteReel(OWNER, 'r1');

    expect([...t.objects.files.keys()].sort()).toEqual(['reels/r2.jpg', 'reels/r2.mp4', 'uploads/source.mp4']);
    expect((await t.reels.listReels(OWNER, 10, 0)).reels.map((r) => r.id)).toEqual(['r2']);
  });

  it("leaves another owner's reel and its objects alone", async () => {
    const t = setup();
    await t.reels.addReel(reel('theirs', OTHER));
    await store(t, 'reels/theirs.mp4', 'reels/theirs.jpg');
    expect(await failure(t.reels.deleteReel(OWNER, 'theirs'))).toMatchObject({ code: ErrorCode.NOT_FOUND, reason: 'reel_not_found' });
    expect([...t.objects.files.keys()].sort()).toEqual(['reels/theirs.jpg', 'reels/theirs.mp4']);
  });

  it('when storage fails the reel stays listed, and deleting again finishes', async () => {
    const t = setup();
    await t.reels.addReel({ ...reel('r1'), thumbnailKey: '' });
    await store(t, 'reels/r1.mp4');
    const del = t.objects.delete.bind(t.objects);
    t.objects.delete = async () => {
      throw new Error('storage down');
    };
    await expect(t.reels.deleteReel(OWNER, 'r1')).rejects.toThrow('storage down');
    expect((await t.reels.listReels(OWNER, 10, 0)).total).toBe(1);

    t.objects.delete = del;
    await t.reels.deleteReel(OWNER, 'r1');
    expect(t.objects.files.size).toBe(0);
    expect((await t.reels.listReels(OWNER, 10, 0)).total).toBe(0);
  });
});

describe('background analysis', () => {
  it('runs no more analyses at once than the concurrency, and every upload gets one', async () => {
    for (const concurrency of [1, 2]) {
      const t = setup({ concurrency });
      t.tools.hold = true;
      for (const k of ['a', 'b', 'c', 'd']) {
        t.upload(k, MP3);
        await t.service.registerUpload(OWNER, k, k, 0);
      }
      await new Promise((r) => setImmediate(r));
      expect(t.tools.running).toBe(concurrency);
      t.tools.release();
      await t.service.whenIdle();
      expect(t.tools.maxRunning).toBe(concurrency);
      expect(t.tools.analysed.sort()).toEqual(['a', 'b', 'c', 'd']);
    }
  });

  it('at start, analyses what was left pending, oldest first, including claims of a replica that died a lease ago', async () => {
    const t = setup();
    t.repo.seedPending('old-dead-claim', { by: 'gone', at: Date.parse('2026-04-01T09:00:00Z') - ANALYSIS_LEASE_MS - 1 });
    t.repo.seedPending('unclaimed-1');
    t.repo.seedPending('held-by-live-replica', { by: 'replica-b', at: Date.parse('2026-04-01T08:59:00Z') });
    t.repo.seedPending('unclaimed-2');
    await t.repo.insert({ ...record('finished', 'video'), analysisStatus: 'done' });
    for (const k of t.repo.rows.keys()) t.objects.files.set(k, { size: 1 });

    await t.service.resumePending();
    await t.service.whenIdle();

    expect(t.tools.analysed).toEqual(['old-dead-claim', 'unclaimed-1', 'unclaimed-2']);
    expect(t.repo.rows.get('held-by-live-replica')).toMatchObject({ analysisStatus: 'pending', claimedBy: 'replica-b' });
    expect(t.repo.rows.get('unclaimed-2')).toMatchObject({ analysisStatus: 'done', claimedBy: 'replica-a' });
  });

  it('at start, analyses again what an older engine analysed, newest first, keeping the old one in use meanwhile and on failure', async () => {
    const t = setup();
    const done = async (key: string, kind: 'video' | 'audio', analysis: unknown) => {
      await t.repo.insert(record(key, kind));
      await t.repo.setAnalysis(key, 'done', analysis);
      t.objects.files.set(key, { size: 1 });
    };
    await done('old-music', 'audio', { version: 2, beats: [1] });
    await done('current-clip', 'video', { version: 2, times: [] });
    await done('broken-music', 'audio', { version: 1, beats: [2] });
    await done('newer-music', 'audio', { version: 2, beats: [3] });
    t.tools.failing.add('broken-music');
    t.tools.hold = true;
    const refresh = t.service.refreshStale();
    await new Promise((r) => setImmediate(r));
    // While it runs, the old analysis is still there and still 'done': a plan need not wait.
    expect(t.repo.rows.get('old-music')).toMatchObject({ analysisStatus: 'done', analysis: { version: 2, beats: [1] } });
    t.tools.release();
    expect(await refresh).toEqual({ refreshed: 2, failed: 1 });
    expect(t.tools.analysed).toEqual(['newer-music', 'broken-music', 'old-music']);
    expect(t.repo.rows.get('old-music')).toMatchObject({ analysisStatus: 'done', analysis: { kind: 'audio', key: 'old-music' } });
    expect(t.repo.rows.get('broken-music')).toMatchObject({ analysisStatus: 'done', analysis: { version: 1, beats: [2] } });
    expect(t.repo.rows.get('current-clip')).toMatchObject({ analysisStatus: 'done', analysis: { version: 2, times: [] } });
  });

  it('two replicas starting together analyse each pending media exactly once', async () => {
    const t = setup();
    const keys = Array.from({ length: 9 }, (_, i) => `pending-${i}`);
    for (const k of keys) {
      t.repo.seedPending(k);
      t.objects.files.set(k, { size: 1 });
    }
    const a = t.replica('replica-a', 2);
    const b = t.replica('replica-b', 1);

    await Promise.all([a.resumePending(), b.resumePending()]);
    await Promise.all([a.whenIdle(), b.whenIdle()]);

    expect(t.tools.analysed).toHaveLength(keys.length);
    expect([...t.tools.analysed].sort()).toEqual(keys);
    const by = (id: string) => [...t.repo.rows.values()].filter((r) => r.claimedBy === id).length;
    expect(by('replica-a')).toBeGreaterThan(0);
    expect(by('replica-b')).toBeGreaterThan(0);
  });

  it('an upload that a starting replica already claimed is not analysed again here', async () => {
    const t = setup();
    const other = t.replica('replica-b');
    t.tools.hold = true;
    t.upload('first', MP3);
    t.upload('second', MP3);
    await t.service.registerUpload(OWNER, 'first', 'first', 0); // runs, held
    await t.service.registerUpload(OWNER, 'second', 'second', 0); // queued here, not claimed yet
    await other.resumePending(); // the other replica starts and takes "second"
    t.tools.release();
    await Promise.all([t.service.whenIdle(), other.whenIdle()]);

    expect([...t.tools.analysed].sort()).toEqual(['first', 'second']);
    expect(t.repo.rows.get('second')).toMatchObject({ analysisStatus: 'done', claimedBy: 'replica-b' });
  });

  it('draining finishes the running analysis and leaves queued uploads pending and unclaimed', async () => {
    const t = setup();
    t.tools.hold = true;
    for (const k of ['a', 'b', 'c']) {
      t.upload(k, MP3);
      await t.service.registerUpload(OWNER, k, k, 0);
    }
    const drained = t.service.drain();
    t.tools.release();
    await drained;

    expect(t.tools.analysed).toEqual(['a']);
    expect(t.repo.rows.get('a')).toMatchObject({ analysisStatus: 'done' });
    for (const k of ['b', 'c']) expect(t.repo.rows.get(k)).toMatchObject({ analysisStatus: 'pending', claimedBy: null });

    // An upload arriving during shutdown is not started either; the next replica to start takes all three.
    t.upload('d', MP3);
    await t.service.registerUpload(OWNER, 'd', 'd', 0);
    const next = t.replica('replica-next');
    await next.resumePending();
    await next.whenIdle();
    expect(t.tools.analysed.sort()).toEqual(['a', 'b', 'c', 'd']);
  });
});

describe('reel retention by plan', () => {
  const DAY = 24 * 3600_000;

  it('keeps reels 7 days free, 30/365 days Standard, 90/730 days Mid-Tier, Corporate without limit', () => {
    expect(reelRetentionMs('free', '')).toBe(7 * DAY);
    expect(reelRetentionMs('standard', 'monthly')).toBe(30 * DAY);
    expect(reelRetentionMs('standard', 'yearly')).toBe(365 * DAY);
    expect(reelRetentionMs('mid-tier', 'monthly')).toBe(90 * DAY);
    expect(reelRetentionMs('mid-tier', 'yearly')).toBe(730 * DAY);
    expect(reelRetentionMs('corporate', 'yearly')).toBeNull();
  });

  it('the sweeper deletes reels past their expiry with their objects, and leaves the others', async () => {
    const t = setup();
    const made = new Date('2026-01-01T00:00:00Z');
    await t.reels.addReel(reel('week'), 'free', '', made);
    await t.reels.addReel(reel('month'), 'standard', 'monthly', made);
    await t.reels.addReel(reel('forever'), 'corporate', 'monthly', made);
    for (const id of ['week', 'month', 'forever']) {
      await t.objects.put(`reels/${id}.mp4`, Buffer.from(id));
      await t.objects.put(`reels/${id}.jpg`, Buffer.from(id));
    }
    expect(await t.reels.expireReels(new Date(made.getTime() + 6 * DAY))).toBe(0);
    expect(await t.reels.expireReels(new Date(made.getTime() + 8 * DAY))).toBe(1);
    expect(await t.reels.expireReels(new Date(made.getTime() + 400 * DAY))).toBe(1);
    expect([...t.objects.files.keys()].sort()).toEqual(['reels/forever.jpg', 'reels/forever.mp4']);
    expect((await t.reels.listReels(OWNER, 10, 0)).reels.map((r) => r.id)).toEqual(['forever']);
  });
});
