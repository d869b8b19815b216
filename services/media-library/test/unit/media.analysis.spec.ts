import { ANALYSIS_LEASE_MS } from '../../src/domain/media.service';
import { OWNER, record, MP3, setup } from './media.fakes';

describe('background analysis', () => {
  it('runs no more analyses at once than the concurrency, and every upload gets one', async () => {
    for (const concurrency of [1, 2]) {
      const t = setup({ concurrency });
      t.tools.hold = true;
      for (const k of ['a', 'b', 'c', 'd']) {
        t.upload(k, MP3);
        await t.service.registerUpload(OWNER, k, k, 0);
      }
      await new Promise((r) => setImmediate(r));
      expect(t.tools.running).toBe(concurrency);
      t.tools.release();
      await t.service.whenIdle();
      expect(t.tools.maxRunning).toBe(concurrency);
      expect(t.tools.analysed.sort()).toEqual(['a', 'b', 'c', 'd']);
    }
  });

  it('at start, analyses what was left pending, oldest first, including claims of a replica that died a lease ago', async () => {
    const t = setup();
    t.repo.seedPending('old-dead-claim', { by: 'gone', at: Date.parse('2026-04-01T09:00:00Z') - ANALYSIS_LEASE_MS - 1 });
    t.repo.seedPending('unclaimed-1');
    t.repo.seedPending('held-by-live-replica', { by: 'replica-b', at: Date.parse('2026-04-01T08:59:00Z') });
    t.repo.seedPending('unclaimed-2');
    await t.repo.insert({ ...record('finished', 'video'), analysisStatus: 'done' });
    for (const k of t.repo.rows.keys()) t.objects.files.set(k, { size: 1 });

    await t.service.resumePending();
    await t.service.whenIdle();

    expect(t.tools.analysed).toEqual(['old-dead-claim', 'unclaimed-1', 'unclaimed-2']);
    expect(t.repo.rows.get('held-by-live-replica')).toMatchObject({ analysisStatus: 'pending', claimedBy: 'replica-b' });
    expect(t.repo.rows.get('unclaimed-2')).toMatchObject({ analysisStatus: 'done', claimedBy: 'replica-a' });
  });

  it('at start, analyses again what an older engine analysed, newest first, keeping the old one in use meanwhile and on failure', async () => {
    const t = setup();
    const done = async (key: string, kind: 'video' | 'audio', analysis: unknown) => {
      await t.repo.insert(record(key, kind));
      await t.repo.setAnalysis(key, 'done', analysis);
      t.objects.files.set(key, { size: 1 });
    };
    await done('old-music', 'audio', { version: 2, beats: [1] });
    await done('current-clip', 'video', { version: 2, times: [] });
    await done('broken-music', 'audio', { version: 1, beats: [2] });
    await done('newer-music', 'audio', { version: 2, beats: [3] });
    t.tools.failing.add('broken-music');
    t.tools.hold = true;
    const refresh = t.service.refreshStale();
    await new Promise((r) => setImmediate(r));
    // While it runs, the old analysis is still there and still 'done': a plan need not wait.
    expect(t.repo.rows.get('old-music')).toMatchObject({ analysisStatus: 'done', analysis: { version: 2, beats: [1] } });
    t.tools.release();
    expect(await refresh).toEqual({ refreshed: 2, failed: 1 });
    expect(t.tools.analysed).toEqual(['newer-music', 'broken-music', 'old-music']);
    expect(t.repo.rows.get('old-music')).toMatchObject({ analysisStatus: 'done', analysis: { kind: 'audio', key: 'old-music' } });
    expect(t.repo.rows.get('broken-music')).toMatchObject({ analysisStatus: 'done', analysis: { version: 1, beats: [2] } });
    expect(t.repo.rows.get('current-clip')).toMatchObject({ analysisStatus: 'done', analysis: { version: 2, times: [] } });
  });

  it('two replicas starting together analyse each pending media exactly once', async () => {
    const t = setup();
    const keys = Array.from({ length: 9 }, (_, i) => `pending-${i}`);
    for (const k of keys) {
      t.repo.seedPending(k);
      t.objects.files.set(k, { size: 1 });
    }
    const a = t.replica('replica-a', 2);
    const b = t.replica('replica-b', 1);

    await Promise.all([a.resumePending(), b.resumePending()]);
    await Promise.all([a.whenIdle(), b.whenIdle()]);

    expect(t.tools.analysed).toHaveLength(keys.length);
    expect([...t.tools.analysed].sort()).toEqual(keys);
    const by = (id: string) => [...t.repo.rows.values()].filter((r) => r.claimedBy === id).length;
    expect(by('replica-a')).toBeGreaterThan(0);
    expect(by('replica-b')).toBeGreaterThan(0);
  });

  it('an upload that a starting replica already claimed is not analysed again here', async () => {
    const t = setup();
    const other = t.replica('replica-b');
    t.tools.hold = true;
    t.upload('first', MP3);
    t.upload('second', MP3);
    await t.service.registerUpload(OWNER, 'first', 'first', 0); // runs, held
    await t.service.registerUpload(OWNER, 'second', 'second', 0); // queued here, not claimed yet
    await other.resumePending(); // the other replica starts and takes "second"
    t.tools.release();
    await Promise.all([t.service.whenIdle(), other.whenIdle()]);

    expect([...t.tools.analysed].sort()).toEqual(['first', 'second']);
    expect(t.repo.rows.get('second')).toMatchObject({ analysisStatus: 'done', claimedBy: 'replica-b' });
  });

  it('draining finishes the running analysis and leaves queued uploads pending and unclaimed', async () => {
    const t = setup();
    t.tools.hold = true;
    for (const k of ['a', 'b', 'c']) {
      t.upload(k, MP3);
      await t.service.registerUpload(OWNER, k, k, 0);
    }
    const drained = t.service.drain();
    t.tools.release();
    await drained;

    expect(t.tools.analysed).toEqual(['a']);
    expect(t.repo.rows.get('a')).toMatchObject({ analysisStatus: 'done' });
    for (const k of ['b', 'c']) expect(t.repo.rows.get(k)).toMatchObject({ analysisStatus: 'pending', claimedBy: null });

    // An upload arriving during shutdown is not started either; the next replica to start takes all three.
    t.upload('d', MP3);
    await t.service.registerUpload(OWNER, 'd', 'd', 0);
    const next = t.replica('replica-next');
    await next.resumePending();
    await next.whenIdle();
    expect(t.tools.analysed.sort()).toEqual(['a', 'b', 'c', 'd']);
  });
});
