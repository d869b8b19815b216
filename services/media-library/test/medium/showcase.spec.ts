import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { LocalObjectStore, migrate, openDatabase, readMigrations, type Database } from '@reelsmith/kit';
import { createTestDatabase, quietLogger, type TestDatabase } from '@reelsmith/kit/testing';
import { DrizzleMediaRepository } from '../../src/repositories/media.repository';
import { DrizzleShowcaseRepository } from '../../src/repositories/showcase.repository';
import { grabPreviewFrames } from '../../src/repositories/showcase-frames';
import { ShowcaseService } from '../../src/domain/showcase.service';

const MIGRATIONS = path.join(__dirname, '..', '..', 'migrations');
const uid = () => crypto.randomUUID();

/** The showcase on real PostgreSQL, real files and real ffmpeg frames. */
describe('showcase against real PostgreSQL', () => {
  let pg: TestDatabase;
  let db: Database;
  let dir: string;
  let store: LocalObjectStore;
  let media: DrizzleMediaRepository;
  let svc: ShowcaseService;

  beforeAll(async () => {
    pg = await createTestDatabase('showcase');
    db = await openDatabase({ url: pg.url, pgliteDir: '', poolSize: 4 });
    await migrate(db, readMigrations(MIGRATIONS));
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'showcase-'));
    store = new LocalObjectStore({ root: dir, signingSecret: 's', publicUrl: 'http://x' });
    media = new DrizzleMediaRepository(db.orm);
    svc = new ShowcaseService(new DrizzleShowcaseRepository(db.orm), store, grabPreviewFrames, quietLogger());
    const clip = path.join(dir, 'src.mp4');
    execFileSync('ffmpeg', ['-v', 'error', '-f', 'lavfi', '-i', 'testsrc=size=320x180:rate=30:duration=3', '-pix_fmt', 'yuv420p', clip]);
    await store.put('reels/u/clip.mp4', fs.readFileSync(clip));
  });
  afterAll(async () => {
    await db?.close();
    await pg?.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const reel = async (ownerId: string, title: string) =>
    media.addReel({
      id: uid(),
      ownerId,
      title,
      description: '',
      objectKey: 'reels/u/clip.mp4',
      thumbnailKey: '',
      durationSec: 3,
      sizeBytes: 1000,
      musicUsed: false,
      enableBeatMapping: true,
      enableIntelligence: true,
      pacingPreset: 'standard',
    });

  it('features only what the owner shared, serves it with three frames, counts plays, and unsharing takes it out', async () => {
    const owner = uid();
    const r = await reel(owner, 'Sunset ride');
    await expect(svc.feature(r.id, 'Travel', null)).rejects.toMatchObject({ reason: 'not_shared' });
    await expect(svc.setSharing(uid(), r.id, true)).rejects.toMatchObject({ reason: 'reel_not_found' }); // not the owner
    expect(await svc.setSharing(owner, r.id, true)).toEqual({ shared: true, featured: false });

    const e = await svc.feature(r.id, '  Travel ', uid());
    expect(e.category).toBe('Travel');
    expect(e.previewKeys).toHaveLength(3);
    for (const k of e.previewKeys) expect((await store.stat(k))!.size).toBeGreaterThan(1000);
    await expect(svc.feature(r.id, '<script>', null)).rejects.toMatchObject({ reason: 'invalid_category' });

    const other = await reel(owner, 'Match point');
    await svc.setSharing(owner, other.id, true);
    await svc.feature(other.id, 'Sports', null);
    expect(await svc.countView(other.id)).toBe(1);
    expect(await svc.countView(other.id)).toBe(2);

    let list = await svc.list('', 10, 'views');
    expect(list.entries.map((x) => x.reel.title)).toEqual(['Match point', 'Sunset ride']);
    expect(list.categories).toEqual(['Sports', 'Travel']);
    expect((await svc.list('Travel', 10, 'recent')).entries.map((x) => x.reel.title)).toEqual(['Sunset ride']);
    const shared = await svc.shared(10, 0);
    expect(shared.total).toBe(2);
    expect(shared.reels.every((s) => s.featured)).toBe(true);

    expect(await svc.setSharing(owner, r.id, false)).toEqual({ shared: false, featured: false });
    await expect(svc.entry(r.id)).rejects.toMatchObject({ reason: 'not_featured' });
    await expect(svc.countView(r.id)).rejects.toMatchObject({ reason: 'not_featured' });
    list = await svc.list('', 10, 'recent');
    expect(list.categories).toEqual(['Sports']);

    await media.deleteReel(owner, other.id);
    expect((await svc.list('', 10, 'recent')).entries).toEqual([]);
    const stats = await svc.stats();
    expect(stats).toEqual({ totalReels: 2, activeCreators30d: 1 });
  });
});
