import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Bus, LocalObjectStore } from '@reelsmith/kit';
import { TEST_H264, TEST_NATS_URL, makeTestMedia, natsPrefix, quietLogger, tempDir } from '@reelsmith/kit/testing';
import { planBatches, prepare, type Stage } from '@reelsmith/engine';
import { parseJobRequest, streams, type JobRequest } from '@reelsmith/proto';
import { ChunkTaskService } from '../../src/domain/chunk-task.service';
import { ReelRenderService } from '../../src/domain/reel-render.service';
import { ChunkFailedError, HeavySlot } from '../../src/domain/render.ports';
import { chunkBoard } from '../../src/repositories/chunk-board';
import { chunkQueue } from '../../src/repositories/chunk-queue';
import { engineCalls } from '../../src/repositories/engine';
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
   * A job rendered by the worker's render service with fan-out on and one segment per chunk, in
   * its own folder `name`: the reel and its thumbnail are written there.
   */
  const renderIn = (
    name: string,
    job: { id: string; clips: string[]; music?: string; request: JobRequest },
    onProgress: (p: number, s: Stage) => void = () => undefined,
  ) => {
    const dir = path.join(work.dir, name);
    fs.mkdirSync(dir);
    const store = objectStore();
    const service = new ReelRenderService({
      engine: engineCalls,
      heavy: new HeavySlot(),
      log,
      chunkSegments: 1,
      fanOut: { board: chunkBoard(store, log), queue: chunkQueue(bus), pollMs: 200 },
    });
    const run = service.render({
      job: { id: job.id, ownerId: 'u', request: job.request },
      attempt: 1,
      clips: job.clips,
      music: job.music,
      request: job.request,
      analyses: { clips: job.clips.map(() => undefined) },
      dir,
      signal: new AbortController().signal,
      onProgress,
    });
    return { dir, run };
  };
  const jobRequest = (r: Record<string, unknown>): JobRequest => {
    const parsed = parseJobRequest(r);
    if (!parsed.ok) throw new Error(parsed.problems);
    return parsed.value;
  };
  /** A chunk worker's service over the shared storage. */
  const chunkWorker = (name: string) =>
    new ChunkTaskService({ engine: engineCalls, board: chunkBoard(objectStore(), log), heavy: new HeavySlot(), log, worker: name });
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
        chunkWorker(`worker-${i}`),
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
    const clips = [store.pathOf('uploads/u/a.mp4')];
    const music = path.join(media, 'm.wav');
    const request = jobRequest({
      media_files: ['uploads/u/a.mp4'],
      music_file: 'uploads/u/m.wav',
      enable_intelligence: false,
      enable_beat_mapping: false,
      title_config: { text: 'Chunks', position: 'top' },
    });
    // The plan the service makes, and its batches of one segment each.
    const expected = await prepare({ clips, music, settings: request });
    const batches = planBatches(expected.plan, expected.clips, { maxSegments: 1 });
    expect(batches.length).toBeGreaterThanOrEqual(4);
    const progress: number[] = [];
    const { dir, run } = renderIn('coord', { id: 'job-1', clips, music, request }, (p) => progress.push(p));
    const r = await run;
    // Rendered by the chunk workers, not by the coordinator itself.
    expect(r.chunks?.every((c) => ['worker-0', 'worker-1'].includes(c.worker))).toBe(true);
    expect(r.chunks?.map((c) => c.index)).toEqual(batches.map((_, i) => i));
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
    const work4 = chunkWorker('worker-4');
    await store.put('scratch/job-4/plan/manifest.json', Buffer.from('{"attempt":2,"chunks":4}'));
    const task = (attempt: number) => ({ jobId: 'job-4', planKey: 'plan', attempt, index: 1 });
    // A last delivery of the attempt handed back: the next coordinator retries that chunk.
    await work4.failed(task(1), 'old');
    expect(await store.stat('scratch/job-4/plan/failed.json')).toBeFalsy();
    await work4.failed(task(2), 'ffmpeg failed');
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
    const started = Date.now();
    // The coordinator has its own good copy of the clip; the chunk workers get the broken one.
    const { dir, run: r } = renderIn('coord-3', {
      id: 'job-3',
      clips: [path.join(media, 'a.mp4')],
      request: jobRequest({ media_files: ['uploads/u/broken.mp4'], enable_intelligence: false, enable_beat_mapping: false }),
    });
    // Dead-lettered after its third delivery (1 s, then 2 s of backoff), well before the timeout:
    // the job fails once, by the error's type.
    const failure = await r.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(failure).toBeInstanceOf(ChunkFailedError);
    expect((failure as Error).message).toMatch(/^chunk \d+ failed: /);
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
