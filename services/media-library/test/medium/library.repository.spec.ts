import crypto from 'node:crypto';
import path from 'node:path';
import { migrate, openDatabase, readMigrations, type Database } from '@reelsmith/kit';
import { createTestDatabase, type TestDatabase } from '@reelsmith/kit/testing';
import type { LibraryItem } from '../../src/domain/library.service';
import { DrizzleLibraryRepository } from '../../src/repositories/library.repository';

const MIGRATIONS = path.join(__dirname, '..', '..', 'migrations');

function item(kind: 'video' | 'audio', analysis: unknown, status: 'done' | 'failed' = 'done'): LibraryItem {
  const key = crypto.randomUUID().slice(0, 24);
  return {
    id: crypto.randomUUID(),
    key,
    kind,
    filename: `${key}.${kind === 'audio' ? 'mp3' : 'mp4'}`,
    category: 'general',
    contentHash: crypto.randomUUID(),
    objectKey: `library/${kind}/${key}`,
    sizeBytes: 1,
    durationSec: 10,
    width: 0,
    height: 0,
    videoCodec: '',
    audioCodec: '',
    thumbnailKey: '',
    previewFrameKeys: [],
    bpm: 86,
    peaks: [],
    analysisStatus: status,
    analysis,
  };
}

describe('library repository against real PostgreSQL', () => {
  let pg: TestDatabase;
  let db: Database;
  let repo: DrizzleLibraryRepository;
  beforeEach(async () => {
    pg = await createTestDatabase('library');
    db = await openDatabase({ url: pg.url, pgliteDir: '', poolSize: 2 });
    await migrate(db, readMigrations(MIGRATIONS));
    repo = new DrizzleLibraryRepository(db.orm);
  });
  afterEach(async () => {
    await db?.close();
    await pg?.drop();
  });

  it('hands each item an older engine analysed to one replica, records its new analysis and tempo, and the stamp moves', async () => {
    const old = item('audio', { version: 2, bpm: 86 });
    const current = item('audio', { version: 3, bpm: 90 });
    const clip = item('video', { version: 2 });
    const oldClip = item('video', { version: 1 });
    const failed = item('audio', null, 'failed');
    for (const i of [old, current, clip, oldClip, failed]) expect(await repo.insertItem(i)).toBe(true);
    const versions = { video: 2, audio: 3 };
    // Two replicas claiming at once get different items, then nothing.
    const claims = await Promise.all([repo.claimStaleItem(versions, 'a', 60_000), repo.claimStaleItem(versions, 'b', 60_000)]);
    expect(claims.map((c) => c?.key).sort()).toEqual([old.key, oldClip.key].sort());
    expect(await repo.claimStaleItem(versions, 'c', 60_000)).toBeNull();

    const before = await repo.stamp();
    await repo.setItemAnalysis(old.key, 'done', { version: 3, bpm: 172 }, 172);
    const [after] = await repo.itemsByKeys('audio', [old.key]);
    expect([after!.bpm, after!.analysis]).toEqual([172, { version: 3, bpm: 172 }]);
    // Another replica's catalogue sees the new tempo: the stamp it polls has moved.
    expect(await repo.stamp()).not.toBe(before);
    // Also for an update whose time is older than one already seen (two replicas' statements
    // committing in the other order than they started).
    const seen = await repo.stamp();
    await db.query(`update library_items set updated_at = now() - interval '1 minute', bpm = 91 where key = $1`, [current.key]);
    expect(await repo.stamp()).not.toBe(seen);
    // The clip's claim is held by a replica that died: after the lease, another takes it over.
    expect(await repo.claimStaleItem(versions, 'c', 60_000)).toBeNull();
    expect((await repo.claimStaleItem(versions, 'c', 0))?.key).toBe(oldClip.key);
    await repo.setItemAnalysis(oldClip.key, 'done', { version: 2 }, 0);
    expect(await repo.claimStaleItem(versions, 'c', 0)).toBeNull();
  });
});
