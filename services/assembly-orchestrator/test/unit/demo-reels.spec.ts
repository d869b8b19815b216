import type { JobRequestInput } from '@reelsmith/proto';
import { quietLogger } from '@reelsmith/kit/testing';
import { DEMO_PLANS, DemoReels, type DemoReelPorts, type StarterClip } from '../../src/domain/demo-reels';

const OWNER = '00000000-0000-4000-8000-00000000de30';

/** A fake job path: jobs finish after two polls; one plan can be made to fail. */
function fakes(opts: { showcase?: number; clipsAfterPolls?: number; failPlan?: string; unreachableFor?: number; growing?: boolean } = {}) {
  let sizeCalls = 0;
  const clips: StarterClip[] = ['a', 'b', 'c', 'd', 'e'].map((k) => ({ objectKey: `library/${k}.mp4`, durationSec: 10 }));
  let clipPolls = 0;
  const jobs = new Map<string, { key: string; request: JobRequestInput; polls: number }>();
  const log: string[] = [];
  const featured: Array<[string, string, string]> = [];
  const ports: DemoReelPorts = {
    showcaseSize: async () => {
      if (++sizeCalls <= (opts.unreachableFor ?? 0)) throw new Error('14 UNAVAILABLE: connect ECONNREFUSED');
      return opts.showcase ?? 0;
    },
    // growing: the import adds one clip per poll, as the first start's starter import does.
    starterClips: async () => (++clipPolls > (opts.clipsAfterPolls ?? 0) ? (opts.growing ? clips.slice(0, clipPolls) : clips) : []),
    createJob: async (owner, request, key) => {
      const id = `job-${key}`;
      if (!jobs.has(id)) jobs.set(id, { key, request, polls: 0 });
      // Nothing else running: the task submits one job at a time.
      expect([...jobs.values()].filter((j) => j.polls < 2 && j.key !== key)).toEqual([]);
      log.push(`create ${owner} ${key}`);
      return id;
    },
    jobOutcome: async (id) => {
      const j = jobs.get(id)!;
      j.polls++;
      if (j.polls < 2) return 'pending';
      return opts.failPlan && j.key.endsWith(opts.failPlan) ? 'failed' : 'completed';
    },
    feature: async (owner, reel, category) => void featured.push([owner, reel, category]),
    sleep: async () => undefined,
  };
  return { ports, jobs, log, featured, clipPolls: () => clipPolls };
}

const task = (ports: DemoReelPorts) =>
  new DemoReels(ports, { ownerId: OWNER, pollMs: 1, clipWaitMs: 60_000, jobWaitMs: 60_000, clipsPerReel: 3 }, quietLogger());

describe('first-start demo reels', () => {
  it('waits for the starter library, then renders four reels one at a time as the system account and features each in its category', async () => {
    const f = fakes({ clipsAfterPolls: 3 });
    const featured = await task(f.ports).run();
    // Four polls until the clips are there, then one before each later reel.
    expect(f.clipPolls()).toBe(7);
    expect(featured).toHaveLength(4);
    expect(f.log).toEqual(DEMO_PLANS.map((p) => `create ${OWNER} first-start-demo-${p.key}`));
    const categories = f.featured.map(([, , c]) => c);
    expect(new Set(categories).size).toBe(4);
    expect(f.featured.every(([o]) => o === OWNER)).toBe(true);
    const requests = [...f.jobs.values()].map((j) => j.request);
    expect(new Set(requests.map((r) => r.pacing_preset))).toEqual(new Set(['relaxed', 'standard', 'high-energy']));
    expect(requests.map((r) => r.media_files)).toEqual([
      ['library/a.mp4', 'library/b.mp4', 'library/c.mp4'],
      ['library/d.mp4', 'library/e.mp4', 'library/a.mp4'],
      ['library/b.mp4', 'library/c.mp4', 'library/d.mp4'],
      ['library/e.mp4', 'library/a.mp4', 'library/b.mp4'],
    ]);
  });

  it('does not start on the first clip of a starter import still running: each reel gets its own clips', async () => {
    const f = fakes({ growing: true });
    await task(f.ports).run();
    const files = [...f.jobs.values()].map((j) => j.request.media_files ?? []);
    // Three clips (a reel's worth) before the first reel, not the first clip alone.
    expect(files[0]).toEqual(['library/a.mp4', 'library/b.mp4', 'library/c.mp4']);
    // The later reels take their windows of the grown list: no two reels alike.
    expect(new Set(files.map((m) => m.join())).size).toBe(4);
    // The second reel asked again: four clips by then, its window starts at the fourth.
    expect(files[1]).toEqual(['library/d.mp4', 'library/a.mp4', 'library/b.mp4']);
  });

  it('takes a small library as it is once no new clip comes', async () => {
    const f = fakes();
    const two = {
      ...f.ports,
      starterClips: async () => [
        { objectKey: 'library/a.mp4', durationSec: 10 },
        { objectKey: 'library/b.mp4', durationSec: 10 },
      ],
    };
    expect(await task(two).run()).toHaveLength(4);
  });

  it('keeps asking while media-library is not serving yet (first start), then makes the reels', async () => {
    const f = fakes({ unreachableFor: 3 });
    expect(await task(f.ports).run()).toHaveLength(4);
  });

  it('does nothing when the showcase already has reels', async () => {
    const f = fakes({ showcase: 2 });
    expect(await task(f.ports).run()).toEqual([]);
    expect(f.log).toEqual([]);
    expect(f.clipPolls()).toBe(0);
  });

  it('goes on past a failed reel and features the others', async () => {
    const f = fakes({ failPlan: 'high-energy' });
    expect(await task(f.ports).run()).toHaveLength(3);
    expect(f.featured.map(([, , c]) => c)).not.toContain('Action');
  });

  it('gives up when no clips appear in time', async () => {
    const f = fakes({ clipsAfterPolls: Number.MAX_SAFE_INTEGER });
    const t = new DemoReels(f.ports, { ownerId: OWNER, pollMs: 1, clipWaitMs: 0, jobWaitMs: 1000 }, quietLogger());
    expect(await t.run()).toEqual([]);
    expect(f.log).toEqual([]);
  });
});
