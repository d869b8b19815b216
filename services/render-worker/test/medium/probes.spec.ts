import fs from 'node:fs';
import path from 'node:path';
import { TEST_H264, makeTestMedia, quietLogger, tempDir } from '@reelsmith/kit/testing';
import { prepare, probe, renderReel } from '@reelsmith/engine';
import { parseJobRequest, type JobRequest } from '@reelsmith/proto';
import { ReelRenderService } from '../../src/domain/reel-render.service';
import { HeavySlot } from '../../src/domain/render.ports';
import { engineCalls } from '../../src/repositories/engine';

// Every call of the engine's probe, counted (the real one runs).
jest.mock('../../../../packages/engine/src/probe', () => {
  const actual = jest.requireActual<typeof import('../../../../packages/engine/src/probe')>('../../../../packages/engine/src/probe');
  return { ...actual, probe: jest.fn(actual.probe) };
});

/**
 * How many times a job's inputs are probed: the worker prepares a job once (to choose one pass or
 * chunks) and renders from that preparation, one probe per input, half of what preparing again
 * inside the render cost.
 */
describe('the render worker probes each input once per job', () => {
  const work = tempDir('probes');
  const clips = [path.join(work.dir, 'a.mp4'), path.join(work.dir, 'b.mp4')];
  const music = path.join(work.dir, 'song.wav');
  const probeCalls = probe as jest.MockedFunction<typeof probe>;

  beforeAll(() => {
    makeTestMedia(clips[0]!, ['testsrc2=s=320x180:r=30:d=2'], TEST_H264);
    makeTestMedia(clips[1]!, ['testsrc=s=320x180:r=25:d=2'], TEST_H264);
    makeTestMedia(music, ['sine=frequency=440:sample_rate=44100:duration=2'], ['-ac', '2']);
  });
  afterAll(() => work.remove());

  const probes = () => probeCalls.mock.calls.length;
  const request = (): JobRequest => {
    const r = parseJobRequest({
      media_files: ['uploads/u/a.mp4', 'uploads/u/b.mp4'],
      music_file: 'uploads/u/song.wav',
      pacing_preset: 'standard',
      // Probing is the same with or without analyses; without them the renders are quick.
      enable_intelligence: false,
      enable_beat_mapping: false,
    });
    if (!r.ok) throw new Error(r.problems);
    return r.value;
  };
  const fresh = (name: string) => {
    probeCalls.mockClear();
    const dir = path.join(work.dir, name);
    fs.mkdirSync(dir);
    return dir;
  };

  it('a job of two clips and a song: 3 probes, where preparing again in the render made 6', async () => {
    const inputs = clips.length + 1;

    // The worker's path: the render service prepares (to choose one pass or chunks), then renders.
    const dir = fresh('worker');
    const files = await new ReelRenderService({ engine: engineCalls, heavy: new HeavySlot(), log: quietLogger() }).render({
      job: { id: 'job-1', ownerId: 'u', request: request() },
      attempt: 1,
      clips,
      music,
      request: request(),
      analyses: { clips: [undefined, undefined] },
      dir,
      signal: new AbortController().signal,
      onProgress: () => undefined,
    });
    expect(fs.statSync(files.output).size).toBeGreaterThan(0);
    const worker = probes();

    // The same job prepared, then rendered with only the plan handed over: every input probed again.
    const before = fresh('twice');
    const settings = request();
    const prepared = await prepare({ clips, music, settings });
    await renderReel({ clips, music, settings, plan: prepared.plan, output: path.join(before, 'reel.mp4'), tmpRoot: before });
    const twice = probes();

    expect({ worker, twice }).toEqual({ worker: inputs, twice: 2 * inputs });
  }, 180_000);
});
