import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { LocalObjectStore, migrate, newObjectKey, openDatabase, readMigrations, type Database } from '@reelsmith/kit';
import { createTestDatabase, makeTestMedia, quietLogger, TEST_H264, tempDir, type TestDatabase } from '@reelsmith/kit/testing';
import { MediaService } from '../../src/domain/media.service';
import { ReelsService } from '../../src/domain/reels.service';
import { engineTools } from '../../src/repositories/media-tools';
import { DrizzleMediaRepository } from '../../src/repositories/media.repository';

const OWNER = '33333333-3333-4333-8333-333333333333';

/** An upload as the gateway leaves it: real files, local object storage, then RegisterUpload. */
describe('registering real uploads: ffprobe, ffmpeg thumbnail and analysis, PostgreSQL', () => {
  const tmp = tempDir('media-upload');
  let pg: TestDatabase;
  let db: Database;
  let store: LocalObjectStore;
  let service: MediaService;
  let reels: ReelsService;
  let clip: Buffer;

  beforeAll(async () => {
    // 2 s of 160x120 test pattern with a 440 Hz tone, H.264 + AAC in MP4.
    const file = path.join(tmp.dir, 'clip.mp4');
    makeTestMedia(
      file,
      ['testsrc=size=160x120:rate=25:duration=2', 'sine=frequency=440:duration=2'],
      [...TEST_H264, '-c:a', 'aac', '-shortest'],
    );
    clip = fs.readFileSync(file);
    pg = await createTestDatabase('media_upload');
    db = await openDatabase({ url: pg.url, pgliteDir: '', poolSize: 4 });
    await migrate(db, readMigrations(path.join(__dirname, '..', '..', 'migrations')));
    store = new LocalObjectStore({
      root: path.join(tmp.dir, 'objects'),
      signingSecret: 'test-signing-secret',
      publicUrl: 'http://localhost:8080',
    });
    service = new MediaService(new DrizzleMediaRepository(db.orm), store, engineTools, quietLogger());
    reels = new ReelsService(new DrizzleMediaRepository(db.orm), store, quietLogger());
  }, 60_000);
  afterAll(async () => {
    await service?.drain();
    await db?.close();
    await pg?.drop();
    tmp.remove();
  });

  it('a video gets its metadata, a JPEG thumbnail and, shortly after, its analysis', async () => {
    const key = newObjectKey('uploads', '.mp4');
    await store.put(key, clip);

    const m = await service.registerUpload(OWNER, key, 'Beach day.mp4', 0);

    expect(m).toMatchObject({ kind: 'video', width: 160, height: 120, videoCodec: 'h264', audioCodec: 'aac', sizeBytes: clip.length });
    expect(m.durationSec).toBeCloseTo(2, 0);
    const thumb = await store.stat(m.thumbnailKey);
    expect(thumb?.size).toBeGreaterThan(0);
    const jpeg = fs.readFileSync(store.pathOf(m.thumbnailKey));
    expect([...jpeg.subarray(0, 2)]).toEqual([0xff, 0xd8]);

    await service.whenIdle();
    const [after] = await service.media(OWNER, [key]);
    expect(after!.analysisStatus).toBe('done');
    expect(after!.analysis).toMatchObject({ durationSec: expect.any(Number), score: expect.any(Array) });
  });

  it('a text file named .mp4 is refused with its name, deleted, and not recorded', async () => {
    const key = newObjectKey('uploads', '.mp4');
    await store.put(key, Buffer.from('this is not a video\n'));

    await expect(service.registerUpload(OWNER, key, 'notes.mp4', 0)).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: expect.stringMatching(/^notes\.mp4: /),
    });
    expect(await store.stat(key)).toBeNull();
    await expect(service.media(OWNER, [key])).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it("deleting a reel removes its video and thumbnail files from disk and the reel from the library; another reel's stay", async () => {
    const reel = (id: string) => ({
      id,
      ownerId: OWNER,
      title: 'Holiday',
      description: '',
      objectKey: `outputs/${id}.mp4`,
      thumbnailKey: `outputs/${id}.jpg`,
      durationSec: 2,
      sizeBytes: clip.length,
      musicUsed: false,
      enableBeatMapping: false,
      enableIntelligence: false,
      pacingPreset: 'standard',
    });
    const [gone, kept] = [reel(crypto.randomUUID()), reel(crypto.randomUUID())];
    for (const r of [gone, kept]) {
      await reels.addReel(r);
      await store.put(r.objectKey, clip);
      await store.put(r.thumbnailKey, Buffer.from([0xff, 0xd8, 0xff]));
    }

    await reels.deleteReel(OWNER, gone.id);

    expect(fs.existsSync(store.pathOf(gone.objectKey))).toBe(false);
    expect(fs.existsSync(store.pathOf(gone.thumbnailKey))).toBe(false);
    expect(await store.stat(kept.objectKey)).not.toBeNull();
    expect(await store.stat(kept.thumbnailKey)).not.toBeNull();
    const ids = (await reels.listReels(OWNER, 100, 0)).reels.map((r) => r.id);
    expect(ids).toContain(kept.id);
    expect(ids).not.toContain(gone.id);
    await expect(reels.deleteReel(OWNER, gone.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});
