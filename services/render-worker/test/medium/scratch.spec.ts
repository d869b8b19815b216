import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { tempDir } from '@reelsmith/kit/testing';
import { SCRATCH_PREFIX, scratchDirs } from '../../src/repositories/job-files';

// A worker killed mid-job leaves its scratch folder behind; the next worker to start removes it.
describe('scratch folders on a real disk', () => {
  const work = tempDir('scratch');
  afterAll(() => work.remove());

  it('at start, sweeps the folders and filter-graph files of dead workers and keeps those of a live one', async () => {
    const dead = spawnSync(process.execPath, ['-e', '0']).pid!; // exited already
    const live = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)']);
    try {
      const make = (pid: number) => {
        const dir = fs.mkdtempSync(path.join(work.dir, `${SCRATCH_PREFIX}${pid}-`));
        fs.writeFileSync(path.join(dir, 'input-0.mp4'), Buffer.alloc(1024 * 1024)); // what a killed render leaves
        return dir;
      };
      const deadDir = make(dead);
      const liveDir = make(live.pid!);
      const unrelated = path.join(work.dir, 'someone-elses-folder');
      fs.mkdirSync(unrelated);

      // The long filter graphs the engine gave ffmpeg in files (exec.ts), of the same two workers.
      const filters = path.join(work.dir, 'tmp');
      fs.mkdirSync(filters);
      const filterFile = (pid: number) => path.join(filters, `reelsmith-filters-${pid}-0123456789ab.txt`);
      for (const pid of [dead, live.pid!]) fs.writeFileSync(filterFile(pid), '[0:v]null[v]');

      const starting = scratchDirs(work.dir, 4_000_000, filters); // a pid no process has
      expect(await starting.sweep()).toBe(2);
      expect(fs.existsSync(deadDir)).toBe(false);
      expect(fs.existsSync(liveDir)).toBe(true);
      expect(fs.existsSync(unrelated)).toBe(true);
      expect([fs.existsSync(filterFile(dead)), fs.existsSync(filterFile(live.pid!))]).toEqual([false, true]);

      // A job's own folder goes when it ends.
      const mine = await starting.create();
      expect(path.basename(mine).startsWith(`${SCRATCH_PREFIX}4000000-`)).toBe(true);
      await starting.remove(mine);
      expect(fs.existsSync(mine)).toBe(false);
    } finally {
      live.kill();
    }
  });
});
