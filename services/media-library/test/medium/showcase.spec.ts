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
  let now = new Date('2026-03-01T10:00:00Z');

  beforeAll(async () => {
    pg = await createTestDatabase('showcase');
    db = await openDatabase({ url: pg.url, pgliteDir: '', poolSize: 4 });
    await migrate(db, readMigrations(MIGRATIONS));
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'showcase-'));
    store = new LocalObjectStore({ root: dir, signingSecret: 's', publicUrl: 'http://x' });
    media = new DrizzleMediaRepository(db.orm);
    svc = new ShowcaseService(new DrizzleShowcaseRepository(db.orm), store, grabPreviewFrames, quietLogger(), () => now);
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
    const alice = `anon:${'a'.repeat(64)}`;
    const bob = `user:${uid()}`;
    expect(await svc.countView(other.id, alice)).toEqual({ views: 1, counted: true });
    expect(await svc.countView(other.id, bob)).toEqual({ views: 2, counted: true });

    let list = await svc.list('', 10, 'views');
    expect(list.entries.map((x) => x.reel.title)).toEqual(['Match point', 'Sunset ride']);
    expect(list.categories).toEqual(['Sports', 'Travel']);
    expect((await svc.list('Travel', 10, 'recent')).entries.map((x) => x.reel.title)).toEqual(['Sunset ride']);
    const shared = await svc.shared(10, 0);
    expect(shared.total).toBe(2);
    expect(shared.reels.every((s) => s.featured)).toBe(true);

    expect(await svc.setSharing(owner, r.id, false)).toEqual({ shared: false, featured: false });
    await expect(svc.entry(r.id)).rejects.toMatchObject({ reason: 'not_featured' });
    await expect(svc.countView(r.id, alice)).rejects.toMatchObject({ reason: 'not_featured' });
    list = await svc.list('', 10, 'recent');
    expect(list.categories).toEqual(['Sports']);

    await media.deleteReel(owner, other.id);
    expect((await svc.list('', 10, 'recent')).entries).toEqual([]);
    const stats = await svc.stats();
    expect(stats).toEqual({ totalReels: 2, activeCreators30d: 1 });
  });

  it('counts a viewer once per reel per hour, however often they play it, and each viewer once', async () => {
    const owner = uid();
    const r = await reel(owner, 'Harbour at dawn');
    await svc.setSharing(owner, r.id, true);
    await svc.feature(r.id, 'Travel', null);
    const second = await reel(owner, 'Market day');
    await svc.setSharing(owner, second.id, true);
    await svc.feature(second.id, 'Travel', null);
    const carol = `anon:${'c'.repeat(64)}`;
    const dave = `anon:${'d'.repeat(64)}`;
    now = new Date('2026-03-02T10:00:00Z');

    // Many plays by one viewer, some at once (a double click, a reload), count once.
    const burst = await Promise.all(Array.from({ length: 5 }, () => svc.countView(r.id, carol)));
    expect(burst.filter((x) => x.counted)).toHaveLength(1);
    expect((await svc.entry(r.id)).views).toBe(1);
    now = new Date('2026-03-02T10:59:00Z');
    expect(await svc.countView(r.id, carol)).toEqual({ views: 1, counted: false });
    // Another viewer counts, and the same viewer's play of another reel counts there.
    expect(await svc.countView(r.id, dave)).toEqual({ views: 2, counted: true });
    expect(await svc.countView(second.id, carol)).toEqual({ views: 1, counted: true });
    // An hour after the counted play (not after the last one) the viewer counts again.
    now = new Date('2026-03-02T11:00:01Z');
    expect(await svc.countView(r.id, carol)).toEqual({ views: 3, counted: true });
    expect(await svc.countView(r.id, carol)).toEqual({ views: 3, counted: false });

    // Rows outlive their window only until the reel's next play; nothing names a viewer for longer.
    now = new Date('2026-03-02T13:00:00Z');
    expect(await svc.countView(r.id, dave)).toEqual({ views: 4, counted: true });
    const left = await db.query<{ viewer: string }>('select viewer from showcase_views where reel_id = $1', [r.id]);
    expect(left.map((x) => x.viewer)).toEqual([dave]);

    await expect(svc.countView(r.id, '')).rejects.toMatchObject({ reason: 'invalid_viewer' });
    await expect(svc.countView(r.id, '203.0.113.9')).rejects.toMatchObject({ reason: 'invalid_viewer' });
  });

  it('signed-in users rate a showcased reel 1-5 stars, one rating each (a second replaces the first); average and count follow', async () => {
    const owner = uid();
    const r = await reel(owner, 'Harbour at dawn');
    const [ann, ben, cat] = [uid(), uid(), uid()];
    // Not in the showcase yet: nothing to rate.
    await expect(svc.rate(r.id, ann, 5)).rejects.toMatchObject({ reason: 'not_featured' });
    await svc.setSharing(owner, r.id, true);
    await svc.feature(r.id, 'Travel', null);
    expect((await svc.ratings([r.id], ann)).get(r.id)).toEqual({ average: 0, count: 0, mine: 0 });

    expect(await svc.rate(r.id, ann, 5)).toEqual({ average: 5, count: 1, mine: 5 });
    expect(await svc.rate(r.id, ben, 4)).toEqual({ average: 4.5, count: 2, mine: 4 });
    // Ann changes her mind: her 5 becomes a 2, still one vote.
    expect(await svc.rate(r.id, ann, 2)).toEqual({ average: 3, count: 2, mine: 2 });
    for (const bad of [0, 6, 3.5, Number.NaN]) await expect(svc.rate(r.id, cat, bad)).rejects.toMatchObject({ reason: 'invalid_rating' });
    expect((await svc.ratings([r.id], cat)).get(r.id)).toEqual({ average: 3, count: 2, mine: 0 });
    expect((await svc.ratings([r.id], null)).get(r.id)).toEqual({ average: 3, count: 2, mine: 0 });

    // Taken out of the showcase, its ratings go with it.
    await svc.unfeature(r.id);
    await expect(svc.rate(r.id, cat, 3)).rejects.toMatchObject({ reason: 'not_featured' });
    expect((await svc.ratings([r.id], ann)).get(r.id)).toEqual({ average: 0, count: 0, mine: 0 });
  });

  it("creators: owners of showcase reels, with every reel they made and their featured reels' real views, most viewed first", async () => {
    const [ann, ben, cat, dan] = [uid(), uid(), uid(), uid()];
    const featured = async (owner: string, title: string, views: number) => {
      const r = await reel(owner, title);
      await svc.setSharing(owner, r.id, true);
      await svc.feature(r.id, 'Travel', null);
      await db.query('update showcase_entries set views = $1 where reel_id = $2', [views, r.id]);
      return r;
    };
    // Ann: 2 featured (7 + 5 views), 1 not shared, 1 deleted: 4 made.
    await featured(ann, 'Ann 1', 7);
    await featured(ann, 'Ann 2', 5);
    await reel(ann, 'Ann private');
    const gone = await reel(ann, 'Ann deleted');
    await media.deleteReel(ann, gone.id);
    // Ben: one featured reel with 20 views.
    await featured(ben, 'Ben 1', 20);
    // Cat: 12 views, but one of her two featured reels (9 views) is unshared again: 3 views count.
    await featured(cat, 'Cat 1', 3);
    const unshared = await featured(cat, 'Cat 2', 9);
    await svc.setSharing(cat, unshared.id, false);
    // Dan made reels, none of them featured: not a creator of the showcase.
    await reel(dan, 'Dan 1');

    const mine = new Set<string>([ann, ben, cat, dan]);
    const list = (await svc.creators(100)).filter((c) => mine.has(c.ownerId));
    expect(list).toEqual([
      { ownerId: ben, reels: 1, featuredReels: 1, featuredViews: 20 },
      { ownerId: ann, reels: 4, featuredReels: 2, featuredViews: 12 },
      { ownerId: cat, reels: 2, featuredReels: 1, featuredViews: 3 },
    ]);
    // Every creator of the showcase, whoever's, in order of views; the limit holds.
    const all = await svc.creators(100);
    expect(all.map((c) => c.featuredViews)).toEqual([...all.map((c) => c.featuredViews)].sort((x, y) => y - x));
    expect(await svc.creators(2)).toHaveLength(2);
  });
});
