import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Api, jobRequestOf } from '../support/api';
import { makeClip, makeSong } from '../support/media';
import { descendants, ffmpegsUnder, until } from '../support/processes';
import { sharedSystem, SHARED_START_MS, type SharedSystem } from '../support/shared-system';

interface Me {
  user: { credits: number; daily_free_used: boolean };
}
interface Status {
  job_id: string;
  status: string;
  progress: number;
  created_at: string;
}

/**
 * Cancelling a job on the product as `npm start` runs it: the running render's ffmpeg is stopped
 * and its scratch folder removed, the job reads cancelled, the credits come back exactly once, and
 * a finished job cannot be cancelled. GET /jobs?active=1 lists only jobs still running.
 */
describe('cancelling a job end to end (issue 20)', () => {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'reelsmith-cancel-work-'));
  const music = path.join(work, 'song.mp3');
  let sys: SharedSystem;

  beforeAll(async () => {
    makeSong(music, '0.7*sin(2*PI*55*t)*exp(-25*mod(t\\,0.5))', 40);
    // Four 12-second 720p clips: under 40 s of music the render takes long enough to stop it mid-way.
    for (let i = 0; i < 4; i++) makeClip(path.join(work, `clip${i}.mp4`), { size: '1280x720', fps: 30, seconds: 12, hue: i * 90 });
    sys = await sharedSystem();
  }, SHARED_START_MS + 60_000);
  afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

  const request = (clips: string[], musicKey?: string) =>
    jobRequestOf(clips, musicKey, { pacing_preset: 'high-energy', enable_beat_mapping: Boolean(musicKey) });

  it('stops the render, reads cancelled, gives the credits back once; a finished job answers 409', async () => {
    const api = new Api(sys.baseUrl, sys.dataDir);
    await api.signUp(`cancel.${Date.now()}@example.com`);
    const clips: string[] = [];
    for (let i = 0; i < 4; i++) {
      const up = await api.upload(path.join(work, `clip${i}.mp4`));
      expect(up.status).toBe(201);
      clips.push(up.body.object_key);
    }
    const song = (await api.upload(music)).body.object_key;

    // A short job that completes (it takes the day's free video).
    const short = await api.call<{ job_id: string }>('POST', '/jobs/assemble', request(clips.slice(0, 1)));
    expect(short.status).toBe(200);
    const done = await api.waitForStatus(short.body.job_id, (s) => s.status === 'completed' || s.status === 'failed', 240_000);
    expect(done.status).toBe('completed');

    // Credits for the long one (sandbox card).
    expect(await api.buyThousandCredits()).toBe(200);
    const before = (await api.call<Me>('GET', '/auth/me')).body.user;
    expect(before.credits).toBe(1000);

    // A long job (four clips under 40 s of music), cancelled mid-render.
    const long = await api.call<{ job_id: string }>('POST', '/jobs/assemble', request(clips, song));
    expect(long.status).toBe(200);
    const jobId = long.body.job_id;
    const reserved = (await api.call<Me>('GET', '/auth/me')).body.user.credits;
    expect(reserved).toBeLessThan(1000);
    await api.waitForStatus(jobId, (s) => s.status === 'processing', 120_000);
    const worker = sys.state().processes['render-worker']!.pid!;
    const scratch = () => fs.readdirSync(os.tmpdir()).filter((f) => f.startsWith(`reelsmith-job-${worker}-`));
    // Mid-render: the worker's ffmpeg is running and its scratch folder exists.
    const ffmpegs = await until(
      'the render ffmpeg',
      () => {
        const found = ffmpegsUnder(worker);
        return found.length ? found : null;
      },
      120_000,
    );
    expect(scratch().length).toBeGreaterThan(0);

    // Only the running job is active, newest first.
    const active = await api.call<{ jobs: Status[] }>('GET', '/jobs?active=1');
    expect(active.status).toBe(200);
    expect(active.body.jobs.map((j) => [j.job_id, j.status])).toEqual([[jobId, 'processing']]);

    const cancelled = await api.call<Status>('POST', `/jobs/${jobId}/cancel`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ job_id: jobId, status: 'cancelled' });

    // The worker stops: its ffmpeg is gone and the scratch folder removed, within seconds.
    // An ffmpeg that has exited but is not yet reaped is a zombie with an empty command line, still the
    // worker's child for a moment; wait for those very pids to be gone, not only for the name.
    await until(
      'ffmpeg to exit and be reaped',
      () => {
        const now = descendants(worker);
        return now.every((d) => !/(^|\/)ffmpeg /.test(d.cmd) && !ffmpegs.some((p) => p.pid === d.pid));
      },
      15_000,
    );
    await until('the scratch folder to go', () => scratch().length === 0, 15_000);
    expect(sys.state().processes['render-worker']!.pid).toBe(worker);

    // Credits back, exactly once: the balance is what it was before the job, and stays so.
    expect((await api.call<Me>('GET', '/auth/me')).body.user.credits).toBe(before.credits);
    expect((await api.call<Status>('GET', `/jobs/${jobId}/status`)).body.status).toBe('cancelled');
    const again = await api.call<{ detail: string }>('POST', `/jobs/${jobId}/cancel`);
    expect(again.status).toBe(409);
    expect(again.body.detail).toBe('This job has already finished.');
    const finished = await api.call<{ detail: string }>('POST', `/jobs/${short.body.job_id}/cancel`);
    expect(finished.status).toBe(409);
    expect(finished.body.detail).toBe('This job has already finished.');
    await new Promise((r) => setTimeout(r, 3000));
    expect((await api.call<Me>('GET', '/auth/me')).body.user.credits).toBe(before.credits);
    expect((await api.call<Status>('GET', `/jobs/${jobId}/status`)).body.status).toBe('cancelled');

    // Nothing is active any more; the recent list has both, newest first. No reel was listed.
    expect((await api.call<{ jobs: Status[] }>('GET', '/jobs?active=1')).body.jobs).toEqual([]);
    const recent = await api.call<{ jobs: Status[] }>('GET', '/jobs');
    expect(recent.body.jobs.map((j) => [j.job_id, j.status])).toEqual([
      [jobId, 'cancelled'],
      [short.body.job_id, 'completed'],
    ]);
    const lib = await api.call<{ videos: Array<{ id: string }> }>('GET', '/library');
    expect(lib.body.videos.map((v) => v.id)).toEqual([short.body.job_id]);

    // Someone else cannot cancel (or see) the job.
    const other = new Api(sys.baseUrl, sys.dataDir);
    await other.signUp(`other.${Date.now()}@example.com`);
    expect((await other.call('POST', `/jobs/${short.body.job_id}/cancel`)).status).toBe(404);
    expect((await other.call<{ jobs: Status[] }>('GET', '/jobs')).body.jobs).toEqual([]);
  }, 600_000);
});
