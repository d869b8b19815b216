import { EngineError, type EngineErrorCode, type Stage as EngineStage } from '@reelsmith/engine';
import { quietLogger } from '@reelsmith/kit/testing';
import { parseJobRequest, type JobRequest } from '@reelsmith/proto';
import {
  RenderJobService,
  type JobInputs,
  type JobReporter,
  type ReelStore,
  type RenderInput,
  type RenderedFiles,
  type Renderer,
  type ReportStage,
  type Scratch,
  type StoredReel,
  type WorkerJob,
} from '../../src/domain/render-job.service';
import { ChunkFailedError } from '../../src/domain/render.ports';

/**
 * RenderJobService.run with its repositories (the orchestrator reporter, the job's files, the
 * reel store, the scratch folders, the engine) replaced by in-memory fakes. Each test builds its
 * own world; nothing is shared between cases.
 */

const request = (): JobRequest => {
  const r = parseJobRequest({ media_files: ['uploads/u1/a.mp4', 'uploads/u1/b.mp4'], music_file: 'uploads/u1/song.mp3' });
  if (!r.ok) throw new Error(r.problems);
  return r.value;
};

type Report =
  | { kind: 'started'; attempt: number }
  | { kind: 'progress'; attempt: number; stage: ReportStage; percent: number }
  | { kind: 'completed'; attempt: number; reel: StoredReel & { durationSec: number } }
  | { kind: 'failed'; attempt: number; reason: string };

/** The orchestrator as the worker sees it: it answers `started` and records every report. */
class FakeOrchestrator implements JobReporter {
  readonly reports: Report[] = [];
  /** What `started` answers: the job, or null when it must not run. */
  job: WorkerJob | null;
  acceptCompletion = true;
  constructor(readonly jobId: string) {
    this.job = { id: jobId, ownerId: 'u1', request: request() };
  }
  async started(jobId: string, attempt: number) {
    expect(jobId).toBe(this.jobId);
    this.reports.push({ kind: 'started', attempt });
    return this.job;
  }
  progress(jobId: string, attempt: number, stage: ReportStage, percent: number) {
    expect(jobId).toBe(this.jobId);
    this.reports.push({ kind: 'progress', attempt, stage, percent });
  }
  async completed(jobId: string, attempt: number, reel: StoredReel & { durationSec: number }) {
    expect(jobId).toBe(this.jobId);
    this.reports.push({ kind: 'completed', attempt, reel });
    return this.acceptCompletion;
  }
  async failed(jobId: string, attempt: number, reason: string) {
    expect(jobId).toBe(this.jobId);
    this.reports.push({ kind: 'failed', attempt, reason });
  }
  kinds() {
    return this.reports.map((r) => r.kind);
  }
  of<K extends Report['kind']>(kind: K) {
    return this.reports.filter((r): r is Extract<Report, { kind: K }> => r.kind === kind);
  }
}

/** Scratch folders that exist only in memory: what was made and is still there. */
class FakeScratch implements Scratch {
  private n = 0;
  readonly live = new Set<string>();
  readonly made: string[] = [];
  async create() {
    const dir = `/scratch/job-${++this.n}`;
    this.live.add(dir);
    this.made.push(dir);
    return dir;
  }
  async remove(dir: string) {
    this.live.delete(dir);
  }
}

/** The job's inputs, written "into" the scratch folder; `fail` makes the fetch throw. */
class FakeInputs implements JobInputs {
  fail?: unknown;
  async fetch(job: WorkerJob, dir: string) {
    if (this.fail) throw this.fail;
    return {
      clips: job.request.media_files.map((_, i) => `${dir}/in-${i}.mp4`),
      music: job.request.music_file ? `${dir}/in-music.mp3` : undefined,
      analyses: { clips: job.request.media_files.map(() => undefined) },
    };
  }
}

/** Object storage for reels: keys as the real store names them. */
class FakeStore implements ReelStore {
  readonly saved: Array<{ jobId: string; files: RenderedFiles }> = [];
  fail?: unknown;
  async save(job: WorkerJob, files: RenderedFiles) {
    if (this.fail) throw this.fail;
    this.saved.push({ jobId: job.id, files });
    return { outputKey: `reels/${job.ownerId}/${job.id}.mp4`, thumbnailKey: `reels/${job.ownerId}/${job.id}.jpg`, sizeBytes: 4_200_000 };
  }
}

/** The engine: reports the given ticks, then finishes or throws. */
class FakeEngine implements Renderer {
  readonly inputs: RenderInput[] = [];
  ticks: Array<[number, EngineStage]> = [
    [0, 'probing'],
    [0, 'analysing'],
    [50, 'rendering'],
    [100, 'finalizing'],
  ];
  /** Called before each tick (a test moves its clock here). */
  beforeTick: () => void = () => undefined;
  fail?: unknown;
  async render(input: RenderInput): Promise<RenderedFiles> {
    this.inputs.push(input);
    for (const [p, stage] of this.ticks) {
      this.beforeTick();
      input.onProgress(p, stage);
    }
    if (this.fail) throw this.fail;
    return { output: `${input.dir}/reel.mp4`, thumbnail: `${input.dir}/reel.jpg`, durationSec: 31.5 };
  }
}

function world(jobId = 'job-1', progressIntervalMs?: number, heartbeatMs?: number) {
  const reporter = new FakeOrchestrator(jobId);
  const scratch = new FakeScratch();
  const inputs = new FakeInputs();
  const store = new FakeStore();
  const engine = new FakeEngine();
  const service = new RenderJobService({
    reporter,
    inputs,
    store,
    scratch,
    renderer: engine,
    log: quietLogger(),
    progressIntervalMs,
    heartbeatMs,
  });
  const run = (attempt = 1, signal = new AbortController().signal) => service.run(jobId, attempt, signal);
  return { reporter, scratch, inputs, store, engine, service, run };
}

afterEach(() => jest.restoreAllMocks());

describe('RenderJobService.run: a render that succeeds', () => {
  it('reports started, then progress, then completed once with the stored reel key, and acks (done)', async () => {
    const w = world('job-ok');
    expect(await w.run(1)).toEqual({ kind: 'done' });

    const kinds = w.reporter.kinds();
    expect(kinds[0]).toBe('started');
    expect(kinds.at(-1)).toBe('completed');
    expect(kinds.filter((k) => k === 'progress').length).toBeGreaterThan(0);
    expect(kinds.indexOf('completed')).toBeGreaterThan(kinds.lastIndexOf('progress'));
    expect(kinds).not.toContain('failed');
    expect(w.reporter.of('completed')).toEqual([
      {
        kind: 'completed',
        attempt: 1,
        reel: { outputKey: 'reels/u1/job-ok.mp4', thumbnailKey: 'reels/u1/job-ok.jpg', sizeBytes: 4_200_000, durationSec: 31.5 },
      },
    ]);
    // Every report carries the delivery it belongs to, so the orchestrator can ignore stale ones.
    expect(w.reporter.reports.every((r) => r.attempt === 1)).toBe(true);
    // The engine's stages reach the orchestrator in its own vocabulary, in order.
    expect(w.reporter.of('progress').map((r) => r.stage)).toEqual(['preparing', 'analysing', 'rendering', 'finalizing']);
    expect(w.scratch.live.size).toBe(0);
  });

  it('renders what the orchestrator handed over, in the scratch folder, and stores that render', async () => {
    const w = world('job-files');
    await w.run(2);
    const input = w.engine.inputs[0]!;
    expect(w.scratch.made).toHaveLength(1);
    expect(input.dir).toBe(w.scratch.made[0]);
    expect(input.request).toEqual(request());
    expect(input.clips).toEqual([`${input.dir}/in-0.mp4`, `${input.dir}/in-1.mp4`]);
    expect(input.music).toBe(`${input.dir}/in-music.mp3`);
    expect(w.store.saved).toEqual([
      { jobId: 'job-files', files: { output: `${input.dir}/reel.mp4`, thumbnail: `${input.dir}/reel.jpg`, durationSec: 31.5 } },
    ]);
    expect(w.scratch.live.size).toBe(0);
  });

  it('still acks when the orchestrator refuses the completion (the job failed meanwhile), without reporting a failure', async () => {
    const w = world('job-late');
    w.reporter.acceptCompletion = false;
    expect(await w.run(1)).toEqual({ kind: 'done' });
    expect(w.reporter.of('completed')).toHaveLength(1);
    expect(w.reporter.of('failed')).toEqual([]);
    expect(w.scratch.live.size).toBe(0);
  });
});

describe('RenderJobService.run: media that cannot be rendered', () => {
  it.each<EngineErrorCode>(['NOT_MEDIA', 'NO_VIDEO', 'NO_AUDIO', 'INPUT_EMPTY', 'LIMIT_EXCEEDED', 'INVALID_SETTINGS'])(
    '%s from the engine: the job is reported failed with the message once and the delivery is rejected, not retried',
    async (code) => {
      const w = world(`job-${code}`);
      const message = `a.mp4: ${code} (the user's own words for it)`;
      w.engine.fail = new EngineError(code, message, 'a.mp4');
      expect(await w.run(1)).toEqual({ kind: 'rejected', code });
      expect(w.reporter.of('failed')).toEqual([{ kind: 'failed', attempt: 1, reason: message }]);
      expect(w.reporter.of('completed')).toEqual([]);
      expect(w.store.saved).toEqual([]);
      expect(w.scratch.made).toHaveLength(1);
      expect(w.scratch.live.size).toBe(0);
    },
  );

  it('an input gone from storage (INPUT_NOT_FOUND while fetching) fails the job without starting the engine', async () => {
    const w = world('job-missing');
    w.inputs.fail = new EngineError('INPUT_NOT_FOUND', 'a.mp4 was not found', 'a.mp4');
    expect(await w.run(3)).toEqual({ kind: 'rejected', code: 'INPUT_NOT_FOUND' });
    expect(w.engine.inputs).toEqual([]);
    expect(w.reporter.of('failed')).toEqual([{ kind: 'failed', attempt: 3, reason: 'a.mp4 was not found' }]);
    expect(w.scratch.live.size).toBe(0);
  });
});

describe('RenderJobService.run: crashes and outages', () => {
  it.each([
    [
      'the engine crashes (RENDER_FAILED)',
      (w: ReturnType<typeof world>) => (w.engine.fail = new EngineError('RENDER_FAILED', 'ffmpeg exited 139')),
    ],
    ['the engine times out (TIMEOUT)', (w: ReturnType<typeof world>) => (w.engine.fail = new EngineError('TIMEOUT', 'render timed out'))],
    ['object storage is down while fetching', (w: ReturnType<typeof world>) => (w.inputs.fail = new Error('connect ECONNREFUSED'))],
    ['object storage is down while storing the reel', (w: ReturnType<typeof world>) => (w.store.fail = new Error('503 Slow Down'))],
  ])('%s: the error is thrown (the message is redelivered with backoff), nothing is reported failed', async (_, breakIt) => {
    const w = world('job-flaky');
    breakIt(w);
    const err = (w.engine.fail ?? w.inputs.fail ?? w.store.fail) as Error;
    await expect(w.run(1)).rejects.toBe(err);
    expect(w.reporter.of('failed')).toEqual([]);
    expect(w.reporter.of('completed')).toEqual([]);
    expect(w.scratch.made).toHaveLength(1);
    expect(w.scratch.live.size).toBe(0);
  });

  it('a redelivery after an outage starts afresh in a new scratch folder and completes', async () => {
    const w = world('job-retry');
    w.store.fail = new Error('503 Slow Down');
    await expect(w.run(1)).rejects.toThrow('503');
    w.store.fail = undefined;
    expect(await w.run(2)).toEqual({ kind: 'done' });
    expect(w.scratch.made).toHaveLength(2);
    expect(w.scratch.live.size).toBe(0);
    expect(w.reporter.of('completed')).toEqual([expect.objectContaining({ attempt: 2 })]);
  });

  it('giveUp after the last delivery reports the job failed (so the orchestrator refunds it), with no reason of ours shown', async () => {
    const w = world('job-doomed');
    w.engine.fail = new EngineError('RENDER_FAILED', 'ffmpeg exited 139');
    await expect(w.run(5)).rejects.toThrow('ffmpeg exited 139');
    await w.service.giveUp('job-doomed', 5, w.engine.fail);
    expect(w.reporter.of('failed')).toEqual([{ kind: 'failed', attempt: 5, reason: '' }]);
    expect(w.scratch.live.size).toBe(0);
  });
});

describe('RenderJobService.run: a chunk of a long reel that failed for good', () => {
  it('fails the job once with no reason of ours (one refund) and drops the delivery, told by the error type', async () => {
    const w = world('job-chunk');
    w.engine.fail = new ChunkFailedError('chunk 3 failed: ffmpeg exited 1');
    expect(await w.run(2)).toEqual({ kind: 'rejected', code: 'RENDER_FAILED' });
    expect(w.reporter.of('failed')).toEqual([{ kind: 'failed', attempt: 2, reason: '' }]);
    expect(w.scratch.live.size).toBe(0);
  });

  it('an error that only carries the name is not taken for one: it is thrown and retried', async () => {
    const w = world('job-named');
    const lookalike = Object.assign(new Error('chunk 3 failed'), { name: 'ChunkFailedError' });
    w.engine.fail = lookalike;
    await expect(w.run(1)).rejects.toBe(lookalike);
    expect(w.reporter.of('failed')).toEqual([]);
  });
});

describe('RenderJobService.run: shutdown hands the job back', () => {
  it('a render cancelled by shutdown is handed back for redelivery, not failed', async () => {
    const w = world('job-drain');
    const controller = new AbortController();
    // SIGTERM mid-render: the consumer aborts, and the engine answers with CANCELLED.
    w.engine.render = async (input) => {
      w.engine.inputs.push(input);
      controller.abort();
      expect(input.signal.aborted).toBe(true);
      throw new EngineError('CANCELLED', 'render cancelled');
    };
    expect(await w.run(1, controller.signal)).toEqual({ kind: 'handed_back' });
    expect(w.reporter.of('failed')).toEqual([]);
    expect(w.reporter.of('completed')).toEqual([]);
    expect(w.scratch.live.size).toBe(0);
  });

  it('a delivery that arrives while stopping is handed back without taking the job', async () => {
    const w = world('job-too-late');
    const controller = new AbortController();
    controller.abort();
    expect(await w.run(1, controller.signal)).toEqual({ kind: 'handed_back' });
    expect(w.reporter.reports).toEqual([]);
    expect(w.scratch.made).toEqual([]);
  });
});

describe('RenderJobService.run: a job that must not run', () => {
  it('is skipped when the orchestrator says it finished, was cancelled, or a later delivery took it', async () => {
    const w = world('job-finished');
    w.reporter.job = null;
    expect(await w.run(2)).toEqual({ kind: 'skipped' });
    expect(w.reporter.kinds()).toEqual(['started']);
    expect(w.engine.inputs).toEqual([]);
    expect(w.store.saved).toEqual([]);
    expect(w.scratch.made).toEqual([]);
  });
});

describe('RenderJobService.run: progress', () => {
  it('is throttled: a long render with an engine tick every 100 ms reports about every 500 ms, not every tick', async () => {
    const w = world('job-long', 500);
    let now = 1_000_000;
    jest.spyOn(Date, 'now').mockImplementation(() => now);
    w.engine.ticks = [
      [0, 'probing'],
      ...Array.from({ length: 100 }, (_, i): [number, EngineStage] => [i, 'rendering']),
      [100, 'finalizing'],
    ];
    w.engine.beforeTick = () => (now += 100);

    expect(await w.run(1)).toEqual({ kind: 'done' });
    const progress = w.reporter.of('progress');
    const rendering = progress.filter((r) => r.stage === 'rendering');
    // 100 ticks over 10 s at one report per 500 ms: 20 reports, not 100.
    expect(rendering).toHaveLength(20);
    expect(rendering[0]?.percent).toBe(0);
    // What the user sees only moves forward.
    const percents = rendering.map((r) => r.percent);
    expect(percents).toEqual([...percents].sort((a, b) => a - b));
    // A new stage is reported at once, even inside the interval.
    expect(progress.map((r) => r.stage)).toEqual(['preparing', ...rendering.map(() => 'rendering'), 'finalizing']);
  });

  it('does not repeat the same value, and lets a stage change through at once', async () => {
    const w = world('job-repeat', 60_000);
    w.engine.ticks = [
      [10, 'rendering'],
      [10, 'rendering'],
      [11, 'rendering'],
      [11, 'finalizing'],
      [12, 'finalizing'],
    ];
    await w.run(1);
    expect(w.reporter.of('progress').map((r) => [r.stage, r.percent])).toEqual([
      ['rendering', 10],
      ['finalizing', 11],
    ]);
  });
});

describe('RenderJobService.run: heartbeat', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  /** An engine that reports one tick and then works silently until the test lets it finish. */
  const slowEngine = (w: ReturnType<typeof world>) => {
    let entered!: () => void;
    let finish!: (error?: unknown) => void;
    const inside = new Promise<void>((r) => (entered = r));
    w.engine.render = async (input) => {
      input.onProgress(40, 'rendering');
      entered();
      const error = await new Promise<unknown>((r) => (finish = r));
      if (error) throw error;
      return { output: `${input.dir}/reel.mp4`, thumbnail: `${input.dir}/reel.jpg`, durationSec: 12 };
    };
    return { inside, finish: (error?: unknown) => finish(error) };
  };

  it('a slow encode still shows the user it is alive: the latest progress is re-sent every heartbeat, and stops with the job', async () => {
    const w = world('job-slow', 500, 10_000);
    const engine = slowEngine(w);
    const running = w.run(1);
    await engine.inside;
    expect(w.reporter.of('progress')).toEqual([{ kind: 'progress', attempt: 1, stage: 'rendering', percent: 40 }]);

    jest.advanceTimersByTime(30_000);
    expect(w.reporter.of('progress')).toHaveLength(4);
    expect(new Set(w.reporter.of('progress').map((r) => `${r.stage} ${r.percent}`))).toEqual(new Set(['rendering 40']));

    engine.finish();
    expect(await running).toEqual({ kind: 'done' });
    // Nothing keeps reporting a finished job.
    const sent = w.reporter.of('progress').length;
    jest.advanceTimersByTime(60_000);
    expect(w.reporter.of('progress')).toHaveLength(sent);
    expect(w.reporter.kinds().at(-1)).toBe('completed');
  });

  it.each([
    ['bad media', new EngineError('NO_VIDEO', 'no video stream'), { kind: 'rejected', code: 'NO_VIDEO' }],
    ['a crash', new EngineError('RENDER_FAILED', 'ffmpeg exited 139'), 'thrown'],
    ['shutdown', new EngineError('CANCELLED', 'render cancelled'), { kind: 'handed_back' }],
  ] as const)('stops after %s too', async (_, error, outcome) => {
    const w = world('job-slow-fail', 500, 10_000);
    const engine = slowEngine(w);
    const running = w.run(1);
    await engine.inside;
    engine.finish(error);
    if (outcome === 'thrown') await expect(running).rejects.toBe(error);
    else expect(await running).toEqual(outcome);
    const sent = w.reporter.of('progress').length;
    jest.advanceTimersByTime(60_000);
    expect(w.reporter.of('progress')).toHaveLength(sent);
    expect(w.scratch.live.size).toBe(0);
  });
});
