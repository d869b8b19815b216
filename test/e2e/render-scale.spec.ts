import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Api, jobRequestOf } from '../support/api';
import { makeClip } from '../support/media';
import { ffmpegsUnder, until } from '../support/processes';
import { ROOT, startSystem, type RunningSystem } from '../support/system';

interface Me {
  user: { credits: number; daily_free_used: boolean };
}

interface AdminJob {
  status: string;
  render_chunks: Array<{ index: number; worker: string; frames: number; seconds: number }>;
}

/** Mono 48 kHz float samples of a file's first sound stream. */
const samples = (file: string) => {
  const out = execFileSync('ffmpeg', ['-v', 'error', '-i', file, '-map', '0:a:0', '-ac', '1', '-ar', '48000', '-f', 'f32le', 'pipe:1'], {
    maxBuffer: 64 * 1024 * 1024,
  });
  return new Float32Array(out.buffer, out.byteOffset, out.length / 4);
};

/**
 * One long reel on several render workers, on the product as `npm start` runs it with
 * RENDER_WORKERS=2 and chunks of one segment (RENDER_CHUNK_SEGMENTS=1), so a short reel becomes
 * several chunk tasks: both workers render chunks of the same reel, a worker killed mid-chunk
 * costs only that chunk, the joined reel has exactly its frames and one continuous sound track,
 * it is charged once; a cancelled reel stops on every worker, refunds once and leaves no chunk.
 */
describe('one reel on many render workers', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'reelsmith-scale-'));
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'reelsmith-scale-work-'));
  const music = path.join(work, 'tone.wav');
  let sys: RunningSystem;
  const pid = (name: string) => sys.state().processes[name]!.pid!;
  const workerNames = ['render-worker', 'render-worker-2'];
  const scratchObjects = (jobId: string) => {
    const dir = path.join(dataDir, 'objects', 'scratch', jobId);
    return fs.existsSync(dir) ? fs.readdirSync(dir, { recursive: true }).map(String) : [];
  };
  /** The chunk records stored so far: which worker rendered which chunk. */
  const records = (jobId: string) => {
    const dir = path.join(dataDir, 'objects', 'scratch', jobId);
    const out = new Map<number, string>();
    if (!fs.existsSync(dir)) return out;
    for (const f of fs.readdirSync(dir, { recursive: true }).map(String))
      if (/chunk-\d+\.json$/.test(f)) {
        try {
          const r = JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')) as { index: number; worker: string };
          out.set(r.index, r.worker);
        } catch {
          // being written
        }
      }
    return out;
  };

  beforeAll(async () => {
    // A steady tone: any gap or click at a chunk join shows as a dip in its level.
    execFileSync('ffmpeg', ['-v', 'error', '-f', 'lavfi', '-i', 'sine=frequency=330:sample_rate=48000:duration=15', '-ac', '2', music]);
    for (let i = 0; i < 2; i++) makeClip(path.join(work, `clip${i}.mp4`), { size: '1280x720', fps: 30, seconds: 9, hue: i * 120 });
    sys = await startSystem(dataDir, {
      RENDER_WORKERS: '2',
      RENDER_THREADS: '1',
      RENDER_FAN_OUT: 'true',
      RENDER_CHUNK_SEGMENTS: '1',
      RENDER_ACK_WAIT_MS: '4000',
      LOG_LEVEL: process.env.SCALE_LOG_LEVEL ?? 'info',
    });
  }, 180_000);
  afterAll(async () => {
    await sys?.stop();
    // The product's log (LOG_LEVEL=info: chunks published, each chunk task, the join) for a failure.
    if (sys) fs.writeFileSync(path.join(os.tmpdir(), 'reelsmith-render-scale.log'), sys.output());
    fs.rmSync(dataDir, { recursive: true, force: true });
    fs.rmSync(work, { recursive: true, force: true });
  });

  const request = (clips: string[], musicKey: string) =>
    jobRequestOf(clips, musicKey, {
      title_config: { enabled: true, text: 'Chunks', font: 'Roboto-Bold.ttf', font_size: 72, position: 'center' },
    });

  it('two workers share the chunks, a worker killed mid-chunk costs only that chunk, and the reel is exact, continuous and charged once; a cancel stops every chunk and refunds once', async () => {
    const api = new Api(sys.baseUrl, dataDir);
    await api.signUp(`scale.${Date.now()}@example.com`);
    // An operator (admin:grant), who reads the job records; the user above stays a paying one.
    const ops = new Api(sys.baseUrl, dataDir);
    const opsEmail = `ops.${Date.now()}@example.com`;
    await ops.signUp(opsEmail);
    const grant = execFileSync(process.execPath, [path.join(ROOT, 'scripts', 'admin.js'), 'grant', opsEmail], {
      cwd: ROOT,
      env: { ...process.env, ...sys.dbEnv, DATA_DIR: dataDir },
    }).toString();
    expect(grant).toContain(opsEmail);
    const clips: string[] = [];
    for (let i = 0; i < 2; i++) clips.push((await api.upload(path.join(work, `clip${i}.mp4`))).body.object_key);
    const song = (await api.upload(music)).body.object_key;
    expect(workerNames.map(pid).every(Boolean)).toBe(true);

    // The day's free video: 15 s of music in 2.5-s segments, six chunks.
    const first = await api.call<{ job_id: string }>('POST', '/jobs/assemble', request(clips, song));
    expect(first.status).toBe(200);
    const jobId = first.body.job_id;
    // Mid-render, once a chunk is stored: kill -9 the second worker while its ffmpeg runs.
    const victim = pid('render-worker-2');
    await until(
      'a stored chunk and a chunk ffmpeg on the second worker',
      () => records(jobId).size >= 1 && ffmpegsUnder(victim).length > 0,
      120_000,
    );
    const storedBefore = new Map(records(jobId));
    process.kill(victim, 'SIGKILL');
    const done = await api.waitForStatus(jobId, (s) => s.status === 'completed' || s.status === 'failed', 240_000);
    expect(done.status).toBe('completed');
    // The job record (an admin's view) names the worker of every chunk: chunks stored before the
    // kill were not rendered again (the same worker), and more than one worker rendered this reel.
    const record = await until(
      'the admin view of the job',
      async () => {
        const r = await ops.call<AdminJob>('GET', `/admin/jobs/${jobId}`);
        return r.status === 200 ? r.body : null;
      },
      10_000,
    );
    expect(record.render_chunks.map((c) => c.index)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(record.render_chunks.reduce((s, c) => s + c.frames, 0)).toBe(450);
    for (const [i, w] of storedBefore) expect(record.render_chunks[i]!.worker).toBe(w);
    expect(new Set(record.render_chunks.map((c) => c.worker)).size).toBeGreaterThanOrEqual(2);
    expect(sys.state().processes['render-worker-2']!.restarts).toBeGreaterThanOrEqual(1);

    // The reel: exactly 15 s of frames, sound for all of it within one AAC frame, no gap: the
    // tone's level stays up in every 10 ms between the fades.
    const reel = fs
      .readdirSync(path.join(dataDir, 'objects', 'reels'), { recursive: true })
      .map(String)
      .find((f) => f.endsWith(`${jobId}.mp4`))!;
    const file = path.join(dataDir, 'objects', 'reels', reel);
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
        file,
      ])
        .toString()
        .trim(),
    );
    expect(frames).toBe(450);
    const sound = samples(file);
    expect(sound.length - 450 * 1600).toBeGreaterThanOrEqual(0);
    expect(sound.length - 450 * 1600).toBeLessThan(1024);
    // The tone's level in every 10 ms between the fades: a gap or a click at a join is a window far
    // from the others (the tone itself is steady: ffmpeg's sine at 1/8 of full scale, RMS 0.088).
    const levels: number[] = [];
    for (let at = Math.round(1.1 * 48000); at + 480 < 13.9 * 48000; at += 480) {
      let sum = 0;
      for (let i = at; i < at + 480; i++) sum += sound[i]! ** 2;
      levels.push(Math.sqrt(sum / 480));
    }
    const median = [...levels].sort((a, b) => a - b)[levels.length >> 1]!;
    expect(median).toBeGreaterThan(0.05);
    expect(Math.min(...levels)).toBeGreaterThan(0.8 * median);
    expect(Math.max(...levels)).toBeLessThan(1.25 * median);
    // Charged once (the free video), scratch gone.
    const me = (await api.call<Me>('GET', '/auth/me')).body.user;
    expect(me).toMatchObject({ daily_free_used: true, credits: 0 });
    await until('the job scratch to go', () => scratchObjects(jobId).length === 0, 10_000);

    // A paid reel, cancelled mid-render: every chunk stops, the credits come back once, no chunk stays.
    expect(await api.buyThousandCredits()).toBe(200);
    const second = await api.call<{ job_id: string }>('POST', '/jobs/assemble', request(clips, song));
    expect(second.status).toBe(200);
    const cancelId = second.body.job_id;
    expect((await api.call<Me>('GET', '/auth/me')).body.user.credits).toBeLessThan(1000);
    const workers = workerNames.map(pid);
    await until(
      'chunk ffmpegs running',
      () => workers.some((w) => ffmpegsUnder(w).length > 0) && scratchObjects(cancelId).length > 0,
      120_000,
    );
    expect((await api.call('POST', `/jobs/${cancelId}/cancel`)).status).toBe(200);
    await until('every worker to stop', () => workers.every((w) => ffmpegsUnder(w).length === 0), 15_000);
    await until('no chunk files', () => scratchObjects(cancelId).length === 0, 15_000);
    await until(
      'no scratch folders',
      () => workers.every((w) => !fs.readdirSync(os.tmpdir()).some((f) => f.startsWith(`reelsmith-job-${w}-`))),
      15_000,
    );
    await new Promise((r) => setTimeout(r, 3000));
    expect((await api.call<Me>('GET', '/auth/me')).body.user.credits).toBe(1000);
    expect((await api.call<{ status: string }>('GET', `/jobs/${cancelId}/status`)).body.status).toBe('cancelled');
    expect(scratchObjects(cancelId)).toEqual([]);
  }, 600_000);
});
