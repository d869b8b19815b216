import { quietLogger } from '@reelsmith/kit/testing';
import { ChunkTaskService } from '../../src/domain/chunk-task.service';
import type { ChunkBoard } from '../../src/domain/render.ports';

/** A board whose job ends (its manifest and scratch dropped) while a chunk's failure is being written. */
function board(endsWhileWriting: boolean) {
  let coordinated: number | null = 2;
  const dropped: string[] = [];
  const b: Partial<ChunkBoard> = {
    coordinatedAttempt: async () => coordinated,
    markFailed: async () => {
      if (endsWhileWriting) coordinated = null;
      throw new Error("ENOENT: no such file or directory, rename '…/failed.json.part'");
    },
    dropJob: async (jobId) => void dropped.push(jobId),
  };
  return { b: b as ChunkBoard, dropped };
}

const service = (b: ChunkBoard) =>
  new ChunkTaskService({ board: b, engine: {} as never, heavy: {} as never, log: quietLogger(), worker: 'test/1' });
const ref = { jobId: 'job-1', attempt: 2, planKey: 'k', index: 3 };

describe('a chunk that fails on its last delivery (ChunkTaskService.failed)', () => {
  it('is no error when the job ended while its failure was being written: the job is dropped again', async () => {
    const { b, dropped } = board(true);
    await expect(service(b).failed(ref, 'ffmpeg failed')).resolves.toBeUndefined();
    expect(dropped).toEqual(['job-1']);
  });

  it('still reports a failure that could not be written while the job goes on', async () => {
    const { b, dropped } = board(false);
    await expect(service(b).failed(ref, 'ffmpeg failed')).rejects.toThrow('ENOENT');
    expect(dropped).toEqual([]);
  });
});
