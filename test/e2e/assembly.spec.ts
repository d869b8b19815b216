import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { io as connect, type Socket } from 'socket.io-client';
import { Api, jobRequestOf } from '../support/api';
import { BEAT_120, makeSong } from '../support/media';
import { sharedSystem, SHARED_START_MS, type SharedSystem } from '../support/shared-system';

const MEDIA = path.resolve(__dirname, '..', '..', '..', 'shared', 'media');

function ffprobe(file: string) {
  const j = JSON.parse(
    execFileSync('ffprobe', [
      '-v',
      'error',
      '-show_entries',
      'format=duration:stream=codec_type,codec_name,width,height,r_frame_rate',
      '-of',
      'json',
      file,
    ]).toString(),
  ) as {
    format: { duration: string };
    streams: Array<{ codec_type: string; codec_name: string; width?: number; height?: number; r_frame_rate?: string }>;
  };
  return {
    duration: Number(j.format.duration),
    video: j.streams.find((s) => s.codec_type === 'video')!,
    audio: j.streams.find((s) => s.codec_type === 'audio'),
  };
}

const listFiles = (dir: string): string[] =>
  fs.existsSync(dir)
    ? fs
        .readdirSync(dir, { withFileTypes: true })
        .flatMap((e) => (e.isDirectory() ? listFiles(path.join(dir, e.name)) : [path.join(dir, e.name)]))
    : [];

describe('assembly end to end, on the system as npm start runs it', () => {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'reelsmith-assembly-work-'));
  const music = path.join(work, 'song.mp3');
  let sys: SharedSystem;

  beforeAll(async () => {
    makeSong(music, `(1+0.6*lt(mod(t\\,2)\\,0.5))*${BEAT_120}`, 16);
    // The shared product hands a silent worker's job to another after 10 s (a worker killed below).
    sys = await sharedSystem();
  }, SHARED_START_MS + 60_000);
  afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

  const request = (clips: string[], musicKey?: string) =>
    jobRequestOf(clips, musicKey, {
      output_filename: 'my_reel.mp4',
      enable_beat_mapping: true,
      enable_intelligence: true,
      title_config: { enabled: true, text: 'Road Trip', font: 'Roboto-Bold.ttf', font_size: 72, position: 'center' },
    });

  it('signs up, uploads three clips and music, assembles with live progress, downloads the reel, and uses the free video once', async () => {
    const api = new Api(sys.baseUrl, sys.dataDir);
    const email = `maker.${Date.now()}@example.com`;
    await api.signUp(email);

    const uploads = [];
    for (const f of ['car-detection.mp4', 'walk.mkv', 'bottle-detection.mp4']) {
      const r = await api.upload(path.join(MEDIA, f));
      expect([f, r.status]).toEqual([f, 201]);
      expect(r.body.kind).toBe('video');
      expect(r.body.object_key).toMatch(/^uploads\/[0-9a-f-]{36}\/\d{4}-\d{2}-\d{2}\/[0-9a-f-]{36}\.(mp4|mkv)$/);
      uploads.push(r.body.object_key);
    }
    const song = await api.upload(music);
    expect(song.status).toBe(201);
    expect(song.body.kind).toBe('audio');

    // Live progress over Socket.IO, token checked at the handshake.
    const body = request(uploads, song.body.object_key);
    const created = await api.call<{ job_id: string }>('POST', '/jobs/assemble', body, { 'idempotency-key': 'first-reel' });
    expect(created.status).toBe(200);
    const jobId = created.body.job_id;
    const progress: number[] = [];
    const statuses: string[] = [];
    const socket: Socket = connect(sys.baseUrl, {
      path: '/ws',
      transports: ['websocket'],
      auth: { token: api.token },
      query: { job_id: jobId },
    });
    const finished = new Promise<{ status: string; download_url: string | null }>((resolve) => {
      const onData = (m: { data: { status: string; progress: number; download_url?: string | null } }) => {
        progress.push(m.data.progress);
        statuses.push(m.data.status);
        if (m.data.status === 'completed' && m.data.download_url) resolve(m.data as { status: string; download_url: string });
        if (m.data.status === 'failed') resolve(m.data as { status: string; download_url: null });
      };
      socket.on('job_update', onData);
      socket.on('job_status', onData);
    });

    // The same request with the same Idempotency-Key is the same job.
    const again = await api.call<{ job_id: string }>('POST', '/jobs/assemble', body, { 'idempotency-key': 'first-reel' });
    expect(again.body.job_id).toBe(jobId);

    // The limit's timer is cleared once the job has finished: a pending one would keep Jest's
    // process up for the rest of its four minutes after the lane's last spec.
    let limit: NodeJS.Timeout | undefined;
    const final = await Promise.race([
      finished,
      new Promise<never>((_, rej) => (limit = setTimeout(() => rej(new Error(`no completion; saw ${statuses.join(',')}`)), 240_000))),
    ]).finally(() => clearTimeout(limit));
    socket.close();
    expect(final.status).toBe('completed');
    expect(progress.length).toBeGreaterThan(3);
    for (let i = 1; i < progress.length; i++) expect(progress[i]!).toBeGreaterThanOrEqual(progress[i - 1]!);
    expect(progress.at(-1)).toBe(100);

    const status = await api.waitForStatus(jobId, (s) => s.status === 'completed');
    expect(status).toMatchObject({ status: 'completed', progress: 100 });
    // /downloads/{id} sends the owner to a signed, expiring link.
    const dl = await api.call('GET', `/downloads/${jobId}`);
    expect(dl.status).toBe(302);
    const link = new URL(dl.headers.get('location')!);
    expect(link.searchParams.get('expires')).toBeTruthy();
    const file = path.join(work, 'reel.mp4');
    const res = await fetch(link.toString().replace('localhost', '127.0.0.1'));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toContain('my_reel.mp4');
    fs.writeFileSync(file, Buffer.from(await res.arrayBuffer()));
    const p = ffprobe(file);
    expect(Math.abs(p.duration - 16)).toBeLessThan(0.15);
    expect(p.video).toMatchObject({ codec_name: 'h264', width: 1920, height: 1080, r_frame_rate: '30/1' });
    expect(p.audio?.codec_name).toBe('aac');

    // The reel is listed, with its flags and thumbnail.
    const lib = await api.call<{
      videos: Array<{
        id: string;
        music_used: boolean;
        enable_beat_mapping: boolean;
        pacing_preset: string;
        thumbnail: { url: string; format: string };
      }>;
      status: string;
    }>('GET', '/library');
    expect(lib.body.status).toBe('success');
    expect(lib.body.videos.map((v) => v.id)).toEqual([jobId]);
    expect(lib.body.videos[0]).toMatchObject({ music_used: true, enable_beat_mapping: true, pacing_preset: 'standard' });
    // The thumbnail is a link (lists stay small), to a JPEG.
    const thumbUrl = new URL(lib.body.videos[0]!.thumbnail.url, sys.baseUrl);
    const thumb = Buffer.from(await (await fetch(thumbUrl.toString().replace('localhost', '127.0.0.1'))).arrayBuffer());
    expect(thumb.subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]));

    // The daily free video was used exactly once: the next job is refused.
    const me = await api.call<{ user: { daily_free_used: boolean; last_free_use: string } }>('GET', '/auth/me');
    expect(me.body.user.daily_free_used).toBe(true);
    expect(me.body.user.last_free_use).toBe(new Date().toISOString().slice(0, 10));
    const refused = await api.call('POST', '/jobs/assemble', request(uploads.slice(0, 1)));
    expect(refused.status).toBe(402);
    expect(refused.body).toMatchObject({ detail: 'Insufficient credits or daily limit reached' });

    // Someone else cannot see, download or use any of it.
    const other = new Api(sys.baseUrl, sys.dataDir);
    await other.signUp(`other.${Date.now()}@example.com`);
    expect((await other.call('GET', `/jobs/${jobId}/status`)).status).toBe(404);
    expect((await other.call('GET', `/downloads/${jobId}`)).status).toBe(404);
    expect((await other.call('POST', '/jobs/assemble', request(uploads))).status).toBe(404);
    expect((await other.call<{ videos: unknown[] }>('GET', '/library')).body.videos).toEqual([]);
    expect((await other.call('DELETE', `/library/${jobId}`)).status).toBe(404);
  }, 420_000);

  it('refuses a corrupt upload with a 4xx and keeps nothing of it', async () => {
    const api = new Api(sys.baseUrl, sys.dataDir);
    await api.signUp(`corrupt.${Date.now()}@example.com`);
    const me = (await api.call<{ user: { id: string } }>('GET', '/auth/me')).body.user.id;
    const objects = path.join(sys.dataDir, 'objects');
    const before = new Set(listFiles(objects));
    const fake = path.join(work, 'holiday.mp4');
    fs.writeFileSync(fake, 'not really a video\n'.repeat(1000));
    const r = await api.upload(fake);
    expect(r.status).toBe(400);
    expect(r.body.detail).toContain('holiday.mp4');
    // Other work of the product may store objects meanwhile (the first test's reel, the starter
    // library); nothing of this user's upload is among them.
    const added = listFiles(objects).filter((f) => !before.has(f));
    expect(added.filter((f) => f.includes(me) || fs.statSync(f).size === fs.statSync(fake).size)).toEqual([]);
    // No file at all, or a job without clips, gets the spec's message.
    expect((await api.call('POST', '/jobs/assemble', request([]))).body).toMatchObject({
      detail: 'Please add at least one video file or select from library.',
    });
  }, 60_000);

  it('refuses control characters in a job request with 400 and charges nothing', async () => {
    const api = new Api(sys.baseUrl, sys.dataDir);
    await api.signUp(`nul.${Date.now()}@example.com`);
    const clip = (await api.upload(path.join(MEDIA, 'car-detection.mp4'))).body.object_key;
    const base = request([clip]);
    for (const body of [
      { ...base, title_config: { ...base.title_config, text: 'Road\u0000Trip' } },
      { ...base, output_filename: 'reel\u0000.mp4' },
    ]) {
      const r = await api.call<{ detail: string }>('POST', '/jobs/assemble', body);
      expect(r.status).toBe(400);
      expect(r.body.detail).toContain('control characters');
    }
    // The daily free video is still there, and no job was made.
    const me = await api.call<{ user: { daily_free_used: boolean } }>('GET', '/auth/me');
    expect(me.body.user.daily_free_used).toBe(false);
    expect((await api.call<{ videos: unknown[] }>('GET', '/library')).body.videos).toEqual([]);
  }, 60_000);

  it('finishes a job exactly once when its render worker is killed mid-render', async () => {
    const api = new Api(sys.baseUrl, sys.dataDir);
    await api.signUp(`crash.${Date.now()}@example.com`);
    const clips = [];
    for (const f of ['car-detection.mp4', 'one-by-one-person-detection.mp4'])
      clips.push((await api.upload(path.join(MEDIA, f))).body.object_key);
    const song = (await api.upload(music)).body.object_key;
    const { body } = await api.call<{ job_id: string }>('POST', '/jobs/assemble', {
      ...request(clips, song),
      pacing_preset: 'high-energy',
    });
    const jobId = body.job_id;
    await api.waitForStatus(jobId, (s) => s.status === 'processing', 60_000);
    const worker = sys.state().processes['render-worker']!.pid!;
    process.kill(worker, 'SIGKILL');
    const done = await api.waitForStatus(jobId, (s) => s.status === 'completed' || s.status === 'failed', 300_000);
    expect(done.status).toBe('completed');
    expect(sys.state().processes['render-worker']!.restarts).toBeGreaterThanOrEqual(1);
    const lib = await api.call<{ videos: Array<{ id: string }> }>('GET', '/library');
    expect(lib.body.videos.map((v) => v.id)).toEqual([jobId]);
    // One charge: the free video is taken once and the next request is refused.
    expect((await api.call('POST', '/jobs/assemble', request(clips))).status).toBe(402);
  }, 420_000);

  it('hands the job back when its render worker is stopped with SIGTERM, and another finishes it', async () => {
    const api = new Api(sys.baseUrl, sys.dataDir);
    await api.signUp(`drain.${Date.now()}@example.com`);
    const clips = [];
    for (const f of ['car-detection.mp4', 'testvideo.mp4']) clips.push((await api.upload(path.join(MEDIA, f))).body.object_key);
    const song = (await api.upload(music)).body.object_key;
    const { body } = await api.call<{ job_id: string }>('POST', '/jobs/assemble', {
      ...request(clips, song),
      pacing_preset: 'high-energy',
    });
    // Mid-render: a worker that is already storing its result may finish it, which is also fine.
    await api.waitForStatus(body.job_id, (s) => s.status === 'processing' && s.progress >= 12, 60_000);
    const before = sys.state().processes['render-worker']!;
    process.kill(before.pid!, 'SIGTERM');
    const done = await api.waitForStatus(body.job_id, (s) => s.status === 'completed' || s.status === 'failed', 300_000);
    expect(done.status).toBe('completed');
    expect(sys.state().processes['render-worker']!.pid).not.toBe(before.pid);
    const lib = await api.call<{ videos: Array<{ id: string }> }>('GET', '/library');
    expect(lib.body.videos.map((v) => v.id)).toEqual([body.job_id]);
  }, 420_000);

  it('fails and refunds a job whose input ffmpeg cannot read, with the failure in its status', async () => {
    const api = new Api(sys.baseUrl, sys.dataDir);
    await api.signUp(`broken.${Date.now()}@example.com`);
    const up = await api.upload(path.join(MEDIA, 'walk.mkv'));
    expect(up.status).toBe(201);
    // The stored file goes bad after it was accepted (disk fault, partial copy...).
    const stored = path.join(sys.dataDir, 'objects', up.body.object_key);
    fs.writeFileSync(stored, fs.readFileSync(stored).subarray(0, 600));
    const { body } = await api.call<{ job_id: string }>('POST', '/jobs/assemble', request([up.body.object_key]));
    const done = await api.waitForStatus(body.job_id, (s) => s.status === 'completed' || s.status === 'failed', 120_000);
    expect(done.status).toBe('failed');
    expect(done.message.length).toBeGreaterThan(5);
    expect(done.download_url).toBeNull();
    // Refunded: the free video is available again.
    const me = await api.call<{ user: { daily_free_used: boolean } }>('GET', '/auth/me');
    expect(me.body.user.daily_free_used).toBe(false);
  }, 180_000);
});
