import { FinishedJobs, etagOf, notModified, type FinishedJobsLimits } from '../../src/domain/finished-jobs';
import { jobStatusViews, jobStatuses, type JobStatusFacts, type LinkSigner } from '../../src/domain/job-status';
import { LiveJobs } from '../../src/domain/live-jobs';

const LIMITS: FinishedJobsLimits = { maxEntries: 3, linkReuseMs: 50 * 60_000, maxTombstones: 100 };

/** An object store that counts stats and signatures; `gone` keys are deleted. */
function store() {
  const counts = { stat: 0, sign: 0 };
  const gone = new Set<string>();
  const signer: LinkSigner = {
    stat: async (key) => {
      counts.stat++;
      return gone.has(key) ? null : { size: 1 };
    },
    signedUrl: async (key) => `https://files.example/${key}?sig=${++counts.sign}`,
  };
  return { counts, gone, signer };
}

const facts = (jobId: string, status = 'completed'): JobStatusFacts => ({
  jobId,
  status,
  progress: 100,
  message: status,
  outputKey: `outputs/${jobId}.mp4`,
  outputFilename: 'reel.mp4',
  createdAtMs: 1_700_000_000_000,
});

/** The status route's reader over a fake orchestrator that knows `jobs` (by id: owner and status). */
function setup(jobs: Record<string, { owner: string; status?: string }>, now = () => 1000) {
  const s = store();
  const finished = new FinishedJobs(LIMITS, now);
  const orchestrator = { calls: 0 };
  const read = jobStatuses({
    views: jobStatusViews(s.signer),
    live: new LiveJobs({ maxEntries: 100, activeTtlMs: 60_000, finishedTtlMs: 0 }, now),
    finished,
    fetch: async (jobId, ownerId) => {
      orchestrator.calls++;
      const j = jobs[jobId];
      if (!j || j.owner !== ownerId) throw new Error('NOT_FOUND');
      return facts(jobId, j.status);
    },
  });
  return { ...s, finished, orchestrator, read };
}

describe('the status of a finished job from memory', () => {
  it('builds a finished view once: later polls ask no one, stat nothing and sign nothing', async () => {
    const t = setup({ j1: { owner: 'u1' } });
    const first = await t.read('j1', 'u1');
    expect(first.view.download_url).toContain('outputs/j1.mp4');
    for (let i = 0; i < 5; i++) expect(await t.read('j1', 'u1')).toEqual(first);
    expect({ orchestrator: t.orchestrator.calls, ...t.counts }).toEqual({ orchestrator: 1, stat: 1, sign: 1 });
    expect(first.etag).toBe(etagOf(JSON.stringify(first.view)));
    expect(JSON.parse(first.json!)).toEqual(first.view);
    expect(first.maxAgeSec).toBe(0); // holds a link: the client must ask again (and gets 304)
  });

  it("is only the owner's: another user is sent to the orchestrator (which refuses)", async () => {
    const t = setup({ j1: { owner: 'u1' } });
    await t.read('j1', 'u1');
    await expect(t.read('j1', 'intruder')).rejects.toThrow('NOT_FOUND');
  });

  it('has no link on the next poll after the reel-deleted event, without a stat', async () => {
    const t = setup({ j1: { owner: 'u1' } });
    expect((await t.read('j1', 'u1')).view.download_url).not.toBeNull();
    t.finished.reelDeleted('j1');
    const after = await t.read('j1', 'u1');
    expect(after.view).toMatchObject({ status: 'completed', download_url: null });
    expect(t.counts.stat).toBe(1);
    expect(after.maxAgeSec).toBeGreaterThan(0); // a deleted reel stays deleted
  });

  it('drops every view of an owner whose data was deleted, and only theirs', async () => {
    const t = setup({ a: { owner: 'u1' }, b: { owner: 'u1' }, c: { owner: 'u2' } });
    for (const [id, owner] of [
      ['a', 'u1'],
      ['b', 'u1'],
      ['c', 'u2'],
    ])
      await t.read(id!, owner!);
    t.finished.ownerDeleted('u1');
    expect(t.finished.size).toBe(1);
    expect((await t.read('a', 'u1')).view.download_url).toBeNull();
    expect((await t.read('c', 'u2')).view.download_url).not.toBeNull();
  });

  it('a view being built while the reel is deleted is answered once but not kept', async () => {
    const t = setup({ j1: { owner: 'u1' } });
    const slowStat = t.signer.stat;
    t.signer.stat = async (key) => {
      const r = await slowStat(key);
      t.finished.reelDeleted('j1'); // the event arrives between the stat and the signature
      return r;
    };
    await t.read('j1', 'u1');
    t.signer.stat = slowStat;
    expect((await t.read('j1', 'u1')).view.download_url).toBeNull();
  });

  it('signs the link again once it is near its expiry', async () => {
    let now = 1000;
    const t = setup({ j1: { owner: 'u1' } }, () => now);
    const first = await t.read('j1', 'u1');
    now += LIMITS.linkReuseMs - 1;
    expect((await t.read('j1', 'u1')).view.download_url).toBe(first.view.download_url);
    now += 1;
    const again = await t.read('j1', 'u1');
    expect(again.view.download_url).not.toBe(first.view.download_url);
    expect(again.etag).not.toBe(first.etag);
  });

  it('keeps failed and cancelled jobs too, for long; a live job is not kept', async () => {
    const t = setup({ f: { owner: 'u1', status: 'failed' }, p: { owner: 'u1', status: 'processing' } });
    const failed = await t.read('f', 'u1');
    expect(failed.maxAgeSec).toBeGreaterThanOrEqual(60);
    await t.read('f', 'u1');
    const live = await t.read('p', 'u1');
    expect(live.etag).toBeUndefined();
    expect(t.finished.get('p', 'u1')).toBeUndefined();
    expect(t.orchestrator.calls).toBe(2); // the failed job's second poll asked no one
  });

  it('holds at most maxEntries, dropping the least recently read', async () => {
    const t = setup({ a: { owner: 'u' }, b: { owner: 'u' }, c: { owner: 'u' }, d: { owner: 'u' } });
    for (const id of ['a', 'b', 'c']) await t.read(id, 'u');
    await t.read('a', 'u'); // a is read again: b is now the oldest
    await t.read('d', 'u');
    expect(t.finished.size).toBe(3);
    expect(t.finished.get('b', 'u')).toBeUndefined();
    expect(t.finished.get('a', 'u')).toBeDefined();
  });
});

describe('If-None-Match', () => {
  it('matches the ETag in a list, weak or strong, or *', () => {
    expect(notModified('"x", "abc"', '"abc"')).toBe(true);
    expect(notModified('W/"abc"', '"abc"')).toBe(true);
    expect(notModified('*', '"abc"')).toBe(true);
    expect(notModified('"abd"', '"abc"')).toBe(false);
    expect(notModified(undefined, '"abc"')).toBe(false);
  });
});
