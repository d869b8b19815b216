import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Bus, LocalObjectStore } from '@reelsmith/kit';
import { TEST_H264, TEST_NATS_URL, makeTestMedia, natsPrefix, quietLogger, tempDir } from '@reelsmith/kit/testing';
import { parseSettings, planBatches, prepare, thumbnailTime } from '@reelsmith/engine';
import { streams, type JobRequest } from '@reelsmith/proto';
import { ChunkWork, HeavySlot, type CoordinateInput } from '../../src/repositories/chunks';
import { scratchDirs } from '../../src/repositories/job-files';
import { RenderChunksConsumer } from '../../src/transport/chunks.consumer';

// One long reel over two workers' chunk consumers, on real NATS (the RENDER stream's
// render.chunks work queue), object storage on disk and ffmpeg: the coordinator publishes the
// chunks, both consumers render them, the join has exactly the planned frames, and the job's
// scratch objects and folders are gone afterwards.
describe('a long reel in chunks over two workers', () => {
  const work = tempDir('chunks');
  let bus: Bus;
  const consumers: RenderChunksConsumer[] = [];
  /** The object storage every worker and coordinator of these tests shares. */
  const objectStore = () =>
    new LocalObjectStore({ root: path.join(work.dir, 'objects'), signingSecret: 'x'.repeat(32), publicUrl: 'http://localhost' });
  /**
   * A coordinator's call for one reel, as the engine renderer makes it (engine.renderer.ts), in
   * its own folder `name`: the reel and its thumbnail are written there.
   */
  const coordinateIn = (
    coordinator: ChunkWork,
    name: string,
    job: { id: string; request: JobRequest },
    prepared: Awaited<ReturnType<typeof prepare>>,
    more: Pick<CoordinateInput, 'batches' | 'thumbnailAtSec' | 'timeoutMs' | 'onProgress'>,
  ) => {
    const dir = path.join(work.dir, name);
    fs.mkdirSync(dir);
    const run = coordinator.coordinate({
      job: { ...job, ownerId: 'u' },
      attempt: 1,
      clips: prepared.clips,
      music: prepared.music,
      plan: prepared.plan,
      settings: prepared.settings,
      dir,
      output: path.join(dir, 'reel.mp4'),
      thumbnail: path.join(dir, 'reel.jpg'),
      signal: new AbortController().signal,
      ...more,
    });
    return { dir, run };
  };
  const media = path.join(work.dir, 'media');
  const scratchRoot = path.join(work.dir, 'scratch');
  const log = quietLogger();
  // Two workers' chunk consumers on the RENDER stream, shared by every test here.
  beforeAll(async () => {
    fs.mkdirSync(media);
    makeTestMedia(path.join(media, 'a.mp4'), ['testsrc2=s=640x360:r=30:d=8'], TEST_H264);
    makeTestMedia(path.join(media, 'm.wav'), ['sine=frequency=330:sample_rate=48000:duration=10'], ['-ac', '2']);
    fs.mkdirSync(scratchRoot);
    bus = await Bus.connect({ url: TEST_NATS_URL, name: 'chunks-test', log: quietLogger(), prefix: natsPrefix() });
    await bus.ensureStream(streams.RENDER);
    for (let i = 0; i < 2; i++) {
      const c = new RenderChunksConsumer(
        bus,
        new ChunkWork({ store: objectStore(), bus, log, heavy: new HeavySlot() }),
        scratchDirs(scratchRoot, 4_000_000 + i),
        { ackWaitMs: 10_000, maxDeliver: 3, concurrency: 1 },
        log,
      );
      await c.start();
      consumers.push(c);
    }
  });
  afterAll(async () => {
    for (const c of consumers) await c.stop();
    await bus?.deleteStream(streams.RENDER);
    await bus?.close();
    work.remove();
  });

  it('fans out, renders every chunk once, joins exactly, and leaves no scratch', async () => {
    const store = objectStore();
    await store.put('uploads/u/a.mp4', fs.readFileSync(path.join(media, 'a.mp4')));
    const coordinator = new ChunkWork({ store, bus, log, heavy: new HeavySlot(), pollMs: 200 });

    const request = {
      media_files: ['uploads/u/a.mp4'],
      music_file: 'uploads/u/m.wav',
      enable_intelligence: false,
      enable_beat_mapping: false,
    } as unknown as JobRequest;
    const prepared = await prepare({
      clips: [store.pathOf('uploads/u/a.mp4')],
      music: path.join(media, 'm.wav'),
      settings: { enable_intelligence: false, enable_beat_mapping: false, title_config: { text: 'Chunks', position: 'top' } },
    });
    const batches = planBatches(prepared.plan, prepared.clips, { maxSegments: 1 });
    expect(batches.length).toBeGreaterThanOrEqual(4);
    const progress: number[] = [];
    const { dir, run } = coordinateIn(
      coordinator,
      'coord',
      { id: 'job-1', request: { ...request, ...parseSettings({}) } as JobRequest },
      prepared,
      {
        batches,
        thumbnailAtSec: thumbnailTime(prepared.settings, prepared.plan.totalSec),
        timeoutMs: 300_000,
        onProgress: (p) => progress.push(p),
      },
    );
    const r = await run;
    expect(r.chunks.map((c) => c.index)).toEqual(batches.map((_, i) => i));
    // Counting frames as the e2e render-scale spec does: each package's tests stay self-contained.
    const frames = Number(
      execFileSync('ffprobe', [
        '-v',
        'error',
        '-count_frames',
        '-select_streams',
        'v:0',
        '-show_entries',
        'stream=nb_read_frames',
        '-of',
        'csv=p=0',
        path.join(dir, 'reel.mp4'),
      ])
        .toString()
        .trim(),
    );
    expect(frames).toBe(batches.reduce((s, b) => s + b.frames, 0));
    expect(fs.statSync(path.join(dir, 'reel.jpg')).size).toBeGreaterThan(0);
    expect(progress.at(-1)).toBeGreaterThanOrEqual(95);
    expect(fs.existsSync(path.join(work.dir, 'objects', 'scratch', 'job-1'))).toBe(false);
    expect(fs.readdirSync(scratchRoot)).toEqual([]);
  }, 300_000);

  it('drops the scratch of a job that ended without a reel, with no coordinator left (a cancel or a failure)', async () => {
    const store = objectStore();
    // What a coordinator killed for good leaves: its manifest and a stored chunk with its record.
    await store.put('scratch/job-2/plan/manifest.json', Buffer.from('{"attempt":3,"chunks":4}'));
    await store.put('scratch/job-2/plan/chunk-0000.mp4', Buffer.from('not a real chunk'));
    await store.put('scratch/job-2/plan/chunk-0000.json', Buffer.from('{"index":0}'));
    const dir = path.join(work.dir, 'objects', 'scratch', 'job-2');
    expect(fs.existsSync(dir)).toBe(true);
    // The orchestrator fails the job (its watchdog gave up on the coordinator) and says so.
    bus.publishCore('jobCancel', { jobId: 'job-2', userId: 'u', cancelledAtUnixMs: BigInt(Date.now()) });
    const end = Date.now() + 10_000;
    while (fs.existsSync(dir) && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
    expect(fs.existsSync(dir)).toBe(false);
  }, 30_000);

  it("counts a chunk's failure only for the attempt being coordinated", async () => {
    const store = objectStore();
    const work4 = new ChunkWork({ store, bus, log: quietLogger(), heavy: new HeavySlot() });
    await store.put('scratch/job-4/plan/manifest.json', Buffer.from('{"attempt":2,"chunks":4}'));
    const task = (attempt: number) => ({ jobId: 'job-4', planKey: 'plan', attempt, index: 1 }) as Parameters<ChunkWork['chunkFailed']>[0];
    // A last delivery of the attempt handed back: the next coordinator retries that chunk.
    await work4.chunkFailed(task(1), 'old');
    expect(await store.stat('scratch/job-4/plan/failed.json')).toBeFalsy();
    await work4.chunkFailed(task(2), 'ffmpeg failed');
    expect(JSON.parse(fs.readFileSync(store.pathOf('scratch/job-4/plan/failed.json'), 'utf8'))).toEqual({
      index: 1,
      reason: 'ffmpeg failed',
    });
    await work4.dropJob('job-4');
  });

  it('fails the render once when a chunk fails on every delivery, and leaves no scratch', async () => {
    const store = objectStore();
    // The workers fetch the clip from storage, where it is not a video: every delivery of every
    // chunk fails (a worker with a broken disk, a clip damaged after upload).
    await store.put('uploads/u/broken.mp4', Buffer.from('this is not a video'));
    const prepared = await prepare({
      clips: [path.join(media, 'a.mp4')],
      settings: { enable_intelligence: false, enable_beat_mapping: false },
    });
    const batches = planBatches(prepared.plan, prepared.clips, { maxSegments: 1 });
    const coordinator = new ChunkWork({ store, bus, log: quietLogger(), heavy: new HeavySlot(), pollMs: 200 });
    const started = Date.now();
    const { dir, run: r } = coordinateIn(
      coordinator,
      'coord-3',
      { id: 'job-3', request: { media_files: ['uploads/u/broken.mp4'], ...parseSettings({}) } as unknown as JobRequest },
      prepared,
      { batches, thumbnailAtSec: 0, timeoutMs: 120_000, onProgress: () => undefined },
    );
    // Dead-lettered after its third delivery (1 s, then 2 s of backoff), well before the timeout.
    await expect(r).rejects.toThrow(/^chunk \d+ failed: /);
    expect(Date.now() - started).toBeLessThan(60_000);
    expect(fs.existsSync(path.join(dir, 'reel.mp4'))).toBe(false);
    // The other chunks' deliveries find the job ended and stop (a failure note written as the job
    // ended is dropped again): no scratch object and no worker folder stays.
    const scratchObjects = path.join(work.dir, 'objects', 'scratch', 'job-3');
    const end = Date.now() + 15_000;
    const left = () => fs.existsSync(scratchObjects) || fs.readdirSync(scratchRoot).length > 0;
    while (left() && Date.now() < end) await new Promise((res) => setTimeout(res, 100));
    expect(fs.existsSync(scratchObjects)).toBe(false);
    expect(fs.readdirSync(scratchRoot)).toEqual([]);
  }, 120_000);
});
