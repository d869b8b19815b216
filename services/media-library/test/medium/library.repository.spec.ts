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

  it('finds the items an older engine analysed, and records a new analysis with its tempo', async () => {
    const old = item('audio', { version: 2, bpm: 86 });
    const current = item('audio', { version: 3, bpm: 90 });
    const clip = item('video', { version: 2 });
    const oldClip = item('video', { version: 1 });
    const failed = item('audio', null, 'failed');
    for (const i of [old, current, clip, oldClip, failed]) expect(await repo.insertItem(i)).toBe(true);
    const stale = await repo.staleItems({ video: 2, audio: 3 });
    expect(stale.map((i) => i.key).sort()).toEqual([old.key, oldClip.key].sort());
    await repo.setItemAnalysis(old.key, 'done', { version: 3, bpm: 172 }, 172);
    const [after] = await repo.itemsByKeys('audio', [old.key]);
    expect([after!.bpm, after!.analysis]).toEqual([172, { version: 3, bpm: 172 }]);
    expect((await repo.staleItems({ video: 2, audio: 3 })).map((i) => i.key)).toEqual([oldClip.key]);
  });
});
