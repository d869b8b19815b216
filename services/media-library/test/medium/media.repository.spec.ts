import crypto from 'node:crypto';
import path from 'node:path';
import { migrate, openDatabase, readMigrations, type Database } from '@reelsmith/kit';
import { createTestDatabase, quietLogger, type TestDatabase } from '@reelsmith/kit/testing';
import { MediaService, type MediaRecord, type MediaTools, type Objects } from '../../src/domain/media.service';
import { DrizzleMediaRepository } from '../../src/repositories/media.repository';

const MIGRATIONS = path.join(__dirname, '..', '..', 'migrations');
const LEASE_MS = 15 * 60_000;
const uid = () => crypto.randomUUID();

function media(ownerId: string, over: Partial<MediaRecord> = {}): MediaRecord {
  const objectKey = `uploads/2026-04-01/${uid()}.mp4`;
  return {
    id: uid(),
    ownerId,
    objectKey,
    kind: 'video',
    displayName: 'clip.mp4',
    sizeBytes: 123_456_789_012,
    durationSec: 12.48,
    width: 1920,
    height: 1080,
    videoCodec: 'h264',
    audioCodec: 'aac',
    thumbnailKey: `thumbs/${objectKey}.jpg`,
    analysisStatus: 'pending',
    analysis: null,
    ...over,
  };
}

/**
 * media-library's database as two replicas see it: one PostgreSQL database migrated the way the
 * service migrates it (its own files; it does not use the outbox), opened through two pools. Each
 * test gets its own database, since a claim sees every row of the table.
 */
describe('media repository against real PostgreSQL', () => {
  let pg: TestDatabase;
  let dbA: Database;
  let dbB: Database;
  let repoA: DrizzleMediaRepository;
  let repoB: DrizzleMediaRepository;

  beforeEach(async () => {
    pg = await createTestDatabase('media');
    dbA = await openDatabase({ url: pg.url, pgliteDir: '', poolSize: 8 });
    dbB = await openDatabase({ url: pg.url, pgliteDir: '', poolSize: 8 });
    // Both replicas start together: the advisory lock lets one migrate and the other find it done.
    const applied = await Promise.all([migrate(dbA, readMigrations(MIGRATIONS)), migrate(dbB, readMigrations(MIGRATIONS))]);
    // Each migration applied exactly once, whichever replica got there first.
    expect(applied.flat().sort()).toEqual(readMigrations(MIGRATIONS).map((m) => m.name));
    repoA = new DrizzleMediaRepository(dbA.orm);
    repoB = new DrizzleMediaRepository(dbB.orm);
  });
  afterEach(async () => {
    await dbA?.close();
    await dbB?.close();
    await pg?.drop();
  });

  it('stores media and reads them back by key, with an unset analysis', async () => {
    const owner = uid();
    const a = media(owner);
    const b = media(owner, { kind: 'audio', width: 0, height: 0, videoCodec: '', thumbnailKey: '' });
    await repoA.insert(a);
    await repoA.insert(b);

    expect(await repoA.byKeys([])).toEqual([]);
    const found = await repoB.byKeys([b.objectKey, a.objectKey, 'uploads/none.mp4']);
    expect(found.sort((x, y) => x.objectKey.localeCompare(y.objectKey))).toEqual(
      [a, b].sort((x, y) => x.objectKey.localeCompare(y.objectKey)),
    );
    await expect(repoA.insert(media(owner, { objectKey: a.objectKey }))).rejects.toThrow(); // one row per object
  });

  it("counts and expires only the owner's uploads no job used", async () => {
    const owner = crypto.randomUUID();
    const [a, b, c] = [media(owner, { sizeBytes: 100 }), media(owner, { sizeBytes: 200 }), media(crypto.randomUUID(), { sizeBytes: 400 })];
    for (const m of [a, b, c]) await repoA.insert(m);
    expect(await repoA.unusedBytes(owner)).toBe(300);
    await repoA.markUsed(owner, [a.objectKey, c.objectKey]); // c is not the owner's: unchanged
    expect(await repoA.unusedBytes(owner)).toBe(200);
    const later = new Date(Date.now() + 60_000);
    expect((await repoA.unusedBefore(later, 10)).map((m) => m.objectKey).sort()).toEqual([b.objectKey, c.objectKey].sort());
    expect(await repoA.unusedBefore(new Date(Date.now() - 60_000), 10)).toEqual([]);
    await repoA.remove(b.objectKey);
    expect(await repoA.byKeys([a.objectKey, b.objectKey])).toEqual([expect.objectContaining({ objectKey: a.objectKey })]);
  });

  it('records an analysis as JSON, or a failure', async () => {
    const owner = uid();
    const a = media(owner);
    const b = media(owner);
    await repoA.insert(a);
    await repoA.insert(b);
    const analysis = { version: 2, times: [0, 0.5], score: [0.25, 1], black: [false, true], scenes: [] };
    await repoA.setAnalysis(a.objectKey, 'done', analysis);
    await repoA.setAnalysis(b.objectKey, 'failed', null);
    const [ra] = await repoB.byKeys([a.objectKey]);
    const [rb] = await repoB.byKeys([b.objectKey]);
    expect(ra).toMatchObject({ analysisStatus: 'done', analysis });
    expect(rb).toMatchObject({ analysisStatus: 'failed', analysis: null });
  });

  it('claims the analyses of an older engine one at a time, newest first, each by one replica, leaving them done', async () => {
    const owner = uid();
    const rows = {
      oldMusic: media(owner, { kind: 'audio' }),
      music: media(owner, { kind: 'audio' }),
      clip: media(owner),
      noVersion: media(owner),
      failed: media(owner, { kind: 'audio' }),
    };
    for (const m of Object.values(rows)) await repoA.insert(m);
    await repoA.setAnalysis(rows.oldMusic.objectKey, 'done', { version: 2, beats: [] });
    await repoA.setAnalysis(rows.music.objectKey, 'done', { version: 3, beats: [] });
    await repoA.setAnalysis(rows.clip.objectKey, 'done', { version: 2, times: [] });
    await repoA.setAnalysis(rows.noVersion.objectKey, 'done', { times: [] });
    await repoA.setAnalysis(rows.failed.objectKey, 'failed', null);
    const versions = { video: 2, audio: 3 };
    // Two replicas claiming at once get different rows; the newest upload comes first.
    const [a, b] = await Promise.all([
      repoA.claimStaleAnalysis(versions, 'replica-a', LEASE_MS),
      repoB.claimStaleAnalysis(versions, 'replica-b', LEASE_MS),
    ]);
    expect([a?.objectKey, b?.objectKey].sort()).toEqual([rows.oldMusic.objectKey, rows.noVersion.objectKey].sort());
    expect(await repoA.claimStaleAnalysis(versions, 'replica-a', LEASE_MS)).toBeNull();
    expect((await repoB.byKeys([rows.oldMusic.objectKey]))[0]).toMatchObject({ analysisStatus: 'done', analysis: { version: 2 } });
    // Once redone, it is no longer claimable; an abandoned claim is, a lease later.
    await repoA.setAnalysis(rows.oldMusic.objectKey, 'done', { version: 3, beats: [1] });
    expect(await repoB.claimStaleAnalysis(versions, 'replica-b', 0)).toMatchObject({ objectKey: rows.noVersion.objectKey });
  });

  it('the database refuses an unknown analysis status', async () => {
    const a = media(uid());
    await repoA.insert(a);
    await expect(repoA.setAnalysis(a.objectKey, 'started' as 'done', null)).rejects.toThrow();
  });

  it("lists every object key of an owner and removes only that owner's uploads and reels", async () => {
    const owner = uid();
    const other = uid();
    const mine = media(owner);
    const theirs = media(other);
    await repoA.insert(mine);
    await repoA.insert(theirs);
    const reel = (ownerId: string) => ({
      id: uid(),
      ownerId,
      title: 't',
      description: '',
      objectKey: `reels/${uid()}.mp4`,
      thumbnailKey: `reels/${uid()}.jpg`,
      durationSec: 1,
      sizeBytes: 1,
      musicUsed: false,
      enableBeatMapping: false,
      enableIntelligence: false,
      pacingPreset: 'standard',
    });
    const myReel = reel(owner);
    await repoA.addReel(myReel);
    await repoA.addReel(reel(other));
    expect((await repoA.ownedObjectKeys(owner)).sort()).toEqual(
      [mine.objectKey, mine.thumbnailKey, myReel.objectKey, myReel.thumbnailKey].sort(),
    );
    expect(await repoB.removeOwner(owner)).toEqual({ uploads: 1, reels: 1 });
    expect(await repoA.ownedObjectKeys(owner)).toEqual([]);
    expect(await repoA.byKeys([theirs.objectKey])).toHaveLength(1);
    expect((await repoA.listReels(other, 10, 0)).total).toBe(1);
  });

  it('adds a reel once per id, lists the newest first with a total, and soft-deletes only for its owner', async () => {
    const owner = uid();
    const reel = (title: string) => ({
      id: uid(),
      ownerId: owner,
      title,
      description: '',
      objectKey: `reels/${uid()}.mp4`,
      thumbnailKey: '',
      durationSec: 30.5,
      sizeBytes: 5_000_000_000,
      musicUsed: true,
      enableBeatMapping: true,
      enableIntelligence: false,
      pacingPreset: 'standard',
    });
    const [first, second, third] = [reel('first'), reel('second'), reel('third')];
    for (const r of [first, second, third]) {
      await repoA.addReel(r);
      await dbA.query('select pg_sleep(0.01)'); // distinct created_at
    }
    const again = await repoB.addReel({ ...first, title: 'changed' });
    expect(again).toMatchObject({ id: first.id, title: 'first', sizeBytes: 5_000_000_000 });
    expect(again.createdAt).toBeInstanceOf(Date);
    await repoA.addReel({ ...reel('not mine'), ownerId: uid() });

    const page = await repoA.listReels(owner, 2, 0);
    expect(page.total).toBe(3);
    expect(page.reels.map((r) => r.title)).toEqual(['third', 'second']);
    expect((await repoA.listReels(owner, 2, 2)).reels.map((r) => r.title)).toEqual(['first']);

    expect(await repoA.reel(owner, second.id)).toMatchObject({ id: second.id, objectKey: second.objectKey, title: 'second' });
    expect(await repoA.reel(uid(), second.id)).toBeNull();
    expect(await repoA.deleteReel(uid(), second.id)).toBe(false);
    expect(await repoA.deleteReel(owner, second.id)).toBe(true);
    expect(await repoB.reel(owner, second.id)).toBeNull();
    expect(await repoB.deleteReel(owner, second.id)).toBe(false);
    const after = await repoA.listReels(owner, 10, 0);
    expect(after).toMatchObject({ total: 2 });
    expect(after.reels.map((r) => r.title)).toEqual(['third', 'first']);
  });

  describe('claiming pending analyses', () => {
    it('two replicas claiming at the same time get disjoint sets that together cover every pending media', async () => {
      const owner = uid();
      const pending = Array.from({ length: 120 }, () => media(owner));
      for (const m of pending) await repoA.insert(m);
      const done = media(owner, { analysisStatus: 'done' });
      const failed = media(owner, { analysisStatus: 'failed' });
      await repoA.insert(done);
      await repoA.insert(failed);

      // Each replica keeps six claimers busy with small batches until nothing is left.
      const claimer = async (repo: DrizzleMediaRepository, replica: string) => {
        const got: string[] = [];
        for (;;) {
          const batch = await repo.claimPendingAnalyses(replica, 3, LEASE_MS);
          if (!batch.length) return got;
          got.push(...batch.map((m) => m.objectKey));
        }
      };
      const results = await Promise.all([
        ...Array.from({ length: 6 }, () => claimer(repoA, 'replica-a')),
        ...Array.from({ length: 6 }, () => claimer(repoB, 'replica-b')),
      ]);

      const all = results.flat();
      expect(all).toHaveLength(pending.length); // no media claimed twice...
      expect([...all].sort()).toEqual(pending.map((m) => m.objectKey).sort()); // ...and none left out
      const fromA = results.slice(0, 6).flat();
      const fromB = results.slice(6).flat();
      expect(fromA.length).toBeGreaterThan(0);
      expect(fromB.length).toBeGreaterThan(0);
      const rows = await dbA.query<{ object_key: string; analysis_claimed_by: string | null; analysis_claimed_at: Date | null }>(
        'select object_key, analysis_claimed_by, analysis_claimed_at from media_objects where owner_id = $1',
        [owner],
      );
      const byKey = new Map(rows.map((r) => [r.object_key, r]));
      for (const k of fromA) expect(byKey.get(k)?.analysis_claimed_by).toBe('replica-a');
      for (const k of fromB) expect(byKey.get(k)?.analysis_claimed_by).toBe('replica-b');
      expect(byKey.get(done.objectKey)?.analysis_claimed_by).toBeNull();
      expect(byKey.get(failed.objectKey)?.analysis_claimed_by).toBeNull();
    });

    it('claims the oldest first, and only as many as asked', async () => {
      const owner = uid();
      const rows = Array.from({ length: 4 }, () => media(owner));
      for (const m of rows) await repoA.insert(m);
      // Make the insertion order unambiguous: the last inserted is the oldest.
      for (const [i, m] of rows.entries())
        await dbA.query(`update media_objects set created_at = now() - make_interval(mins => $1) where object_key = $2`, [
          i + 1,
          m.objectKey,
        ]);

      const first = await repoA.claimPendingAnalyses('replica-a', 2, LEASE_MS);
      expect(first.map((m) => m.objectKey)).toEqual([rows[3]!.objectKey, rows[2]!.objectKey]);
      expect(first[0]).toMatchObject({ id: rows[3]!.id, ownerId: owner, analysisStatus: 'pending', durationSec: 12.48 });
      expect((await repoB.claimPendingAnalyses('replica-b', 10, LEASE_MS)).map((m) => m.objectKey)).toEqual([
        rows[1]!.objectKey,
        rows[0]!.objectKey,
      ]);
      expect(await repoA.claimPendingAnalyses('replica-a', 10, LEASE_MS)).toEqual([]);
      expect(await repoA.claimPendingAnalyses('replica-a', 0, LEASE_MS)).toEqual([]);
    });

    it('a claim older than the lease is taken over; a fresh one is not, whoever asks', async () => {
      const owner = uid();
      const [dead, live] = [media(owner), media(owner)];
      for (const m of [dead, live]) await repoA.insert(m);
      expect(await repoA.claimPendingAnalyses('replica-dead', 2, LEASE_MS)).toHaveLength(2);
      await dbA.query(
        `update media_objects set analysis_claimed_by = 'replica-live' where object_key = $1`, // still fresh
        [live.objectKey],
      );
      await dbA.query(`update media_objects set analysis_claimed_at = now() - interval '16 minutes' where object_key = $1`, [
        dead.objectKey,
      ]);

      expect((await repoB.claimPendingAnalyses('replica-b', 10, LEASE_MS)).map((m) => m.objectKey)).toEqual([dead.objectKey]);
      expect(await repoB.claimAnalysis(live.objectKey, 'replica-b', LEASE_MS)).toBeNull();
      expect(await repoA.claimAnalysis(live.objectKey, 'replica-live', LEASE_MS)).toBeNull(); // not even its holder re-claims it
      // With a shorter lease, the same claim counts as stale.
      await dbA.query(`update media_objects set analysis_claimed_at = now() - interval '2 minutes' where object_key = $1`, [
        live.objectKey,
      ]);
      expect(await repoB.claimAnalysis(live.objectKey, 'replica-b', 60_000)).toMatchObject({ objectKey: live.objectKey });
    });

    it('of concurrent claims of one upload by key exactly one wins; finished media are never claimed', async () => {
      const owner = uid();
      const m = media(owner);
      await repoA.insert(m);
      const results = await Promise.all(
        Array.from({ length: 12 }, (_, i) => (i % 2 ? repoA : repoB).claimAnalysis(m.objectKey, `replica-${i}`, LEASE_MS)),
      );
      expect(results.filter((r) => r !== null)).toHaveLength(1);
      expect(results.find((r) => r !== null)).toMatchObject({ objectKey: m.objectKey, analysisStatus: 'pending' });

      const finished = media(owner, { analysisStatus: 'done' });
      await repoA.insert(finished);
      expect(await repoA.claimAnalysis(finished.objectKey, 'replica-a', LEASE_MS)).toBeNull();
      expect(await repoA.claimAnalysis('uploads/none.mp4', 'replica-a', LEASE_MS)).toBeNull();
    });
  });

  it('two media-library replicas starting on the same database analyse each pending media exactly once', async () => {
    const owner = uid();
    const pending = Array.from({ length: 10 }, () => media(owner));
    for (const m of pending) await repoA.insert(m);

    const analysed: Array<{ replica: string; key: string }> = [];
    const objects: Objects = {
      withLocalFile: (key, fn) => fn(`/objects/${key}`),
      put: async () => undefined,
      stat: async () => ({ size: 1 }),
      delete: async () => undefined,
      deletePrefix: async () => 0,
    };
    const tools = (replica: string): MediaTools => ({
      analysisVersions: { video: 2, audio: 3 },
      probe: async () => {
        throw new Error('not used');
      },
      frame: async () => Buffer.from('jpeg'),
      thumbnail: async () => Buffer.alloc(0),
      analyse: async (file) => {
        analysed.push({ replica, key: file.replace('/objects/', '') });
        await new Promise((r) => setTimeout(r, 5)); // long enough for the other replica to claim meanwhile
        return { by: replica };
      },
    });
    const a = new MediaService(repoA, objects, tools('a'), quietLogger(), { concurrency: 2, replicaId: 'a' });
    const b = new MediaService(repoB, objects, tools('b'), quietLogger(), { concurrency: 2, replicaId: 'b' });

    await Promise.all([a.resumePending(), b.resumePending()]);
    await Promise.all([a.whenIdle(), b.whenIdle()]);

    expect(analysed).toHaveLength(pending.length);
    expect(analysed.map((x) => x.key).sort()).toEqual(pending.map((m) => m.objectKey).sort());
    expect(analysed.filter((x) => x.replica === 'a').length).toBeGreaterThan(0);
    expect(analysed.filter((x) => x.replica === 'b').length).toBeGreaterThan(0);
    for (const m of await repoA.byKeys(pending.map((p) => p.objectKey)))
      expect(m).toMatchObject({ analysisStatus: 'done', analysis: { by: analysed.find((x) => x.key === m.objectKey)!.replica } });
  });
});
