import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { tempDir } from '@reelsmith/kit/testing';
import type { Peers } from '../../services/gateway/src/repositories/clients';
import { STACK_ORIGIN, startJobStack, type Json, type JobStack } from '../support/job-stack';
import { ffmpeg as ff, makeClip } from '../support/media';

const SECRET = 'plan-routes-signing-secret-0123456789';

/**
 * The issue 20 routes through the gateway with the real services behind them: media-library
 * (probe, thumbnails, upload-time analysis, frames), billing and the orchestrator, each on its own
 * PostgreSQL, over gRPC; local-disk storage shared with the gateway. Identity is a stand-in (a
 * token names a user). No render worker runs: a job stays queued until it is cancelled.
 */
describe('edit plan, upload info and cancel routes through the gateway (issue 20)', () => {
  const data = tempDir('plan-routes');
  let stack: JobStack;
  let peers: Peers;
  let base: string;
  const signIn = () => stack.signIn();

  beforeAll(async () => {
    stack = await startJobStack({ dataDir: data.dir, signingSecret: SECRET, metricsName: 'gateway_plan_routes' });
    ({ peers, base } = stack);
  }, 180_000);

  afterAll(async () => {
    await stack?.stop();
    data.remove();
  });

  const call = async <T = Json>(method: string, route: string, token: string, body?: unknown) => {
    const r = await fetch(`${base}/api/v1${route}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: r.status, body: (await r.json()) as T };
  };
  const upload = (token: string, file: string) => stack.upload(token, file);
  /** A signed link as the browser follows it (the links name the public origin). */
  const fetchLink = (url: string) => fetch(url.replace(STACK_ORIGIN, base));
  const ready = async (token: string, key: string) => {
    const end = Date.now() + 90_000;
    for (;;) {
      const r = await call('GET', `/uploads/info?key=${encodeURIComponent(key)}`, token);
      expect(r.status).toBe(200);
      if (r.body.analysis === 'ready') return r.body;
      if (r.body.analysis === 'failed' || Date.now() > end) throw new Error(`analysis of ${key}: ${JSON.stringify(r.body)}`);
      await new Promise((res) => setTimeout(res, 500));
    }
  };

  let owner = '';
  const clips: string[] = [];
  let song = '';
  const request = (over: Json = {}) => ({
    media_files: clips,
    music_file: song,
    pacing_preset: 'standard',
    enable_beat_mapping: true,
    enable_intelligence: true,
    ...over,
  });

  it("uploads answer with a thumbnail; /uploads/info gives the probe and, once analysed, the music's beats and waveform; not to anyone else", async () => {
    owner = signIn();
    for (const [name, hue, sec] of [
      ['one.mp4', 0, 6],
      ['two.mp4', 120, 5],
    ] as const) {
      const file = path.join(data.dir, name);
      makeClip(file, { size: '320x240', fps: 25, seconds: sec, hue });
      const up = await upload(owner, file);
      expect(up).toMatchObject({ kind: 'video', width: 320, height: 240, thumbnail_url: expect.stringContaining('/files/') });
      const thumb = Buffer.from(await (await fetchLink(up.thumbnail_url as string)).arrayBuffer());
      expect(thumb.subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]));
      clips.push(up.object_key as string);
    }
    const mp3 = path.join(data.dir, 'song.mp3');
    ff('-f', 'lavfi', '-i', "aevalsrc='0.8*sin(2*PI*60*t)*exp(-12*mod(t,0.5))':s=22050:d=10", '-c:a', 'libmp3lame', '-b:a', '64k', mp3);
    const up = await upload(owner, mp3);
    expect(up).toMatchObject({ kind: 'audio', thumbnail_url: null });
    song = up.object_key as string;

    for (const c of clips)
      expect(await ready(owner, c)).toMatchObject({ kind: 'video', width: 320, height: 240, thumbnail_url: expect.any(String) });
    const info = await ready(owner, song);
    expect(info).toMatchObject({ kind: 'audio', thumbnail_url: null, analysis: 'ready' });
    expect(Math.abs(info.duration_sec - 10)).toBeLessThan(0.2);
    expect(info.music.tempo_bpm).toBeGreaterThan(100);
    expect(info.music.beats.length).toBeGreaterThan(10);
    expect(info.music.peaks.length).toBeGreaterThan(100);
    for (const p of info.music.peaks as number[]) expect(p >= 0 && p <= 1).toBe(true);

    const stranger = signIn();
    for (const key of [clips[0]!, song]) {
      const r = await call('GET', `/uploads/info?key=${encodeURIComponent(key)}`, stranger);
      expect(r.status).toBe(404);
    }
  }, 180_000);

  it('/jobs/plan answers a plan on the frame grid, an estimate and segment thumbnails that load as JPEGs; nothing is reserved', async () => {
    const r = await call('POST', '/jobs/plan', owner, request());
    expect(r.status).toBe(200);
    const { plan, estimate, music } = r.body;
    expect(estimate.credits).toBeGreaterThan(0);
    expect(plan).toMatchObject({ fps: 30, aspect: '16:9', beat_aligned: true });
    expect(plan.segments.length).toBeGreaterThan(2);
    expect(plan.segments[0].start).toBe(0);
    expect(plan.segments.at(-1).end).toBeCloseTo(plan.total_sec, 6);
    expect(music).toMatchObject({ beats: expect.any(Array), downbeats: expect.any(Array) });
    expect(music.beats.length).toBeGreaterThan(10);
    // The song's form for the window in the preview: sections in order, each starting on a bar line
    // of the analysed song and ending inside it.
    const sections = music.sections as Array<{ start: number; end: number; kind: string; energy: number }>;
    expect(sections.length).toBeGreaterThan(0);
    const bars = music.downbeats as number[];
    for (const [i, sec] of sections.entries()) {
      expect(sec.end).toBeGreaterThan(sec.start);
      expect(sec.end).toBeLessThanOrEqual(music.duration_sec + 1e-6);
      expect(sec.energy >= 0 && sec.energy <= 1).toBe(true);
      if (i > 0) {
        expect(sec.start).toBeGreaterThanOrEqual(sections[i - 1]!.end - 1e-6);
        expect(Math.min(...bars.map((b) => Math.abs(b - sec.start)))).toBeLessThan(0.01);
      }
    }
    const urls = new Set<string>();
    for (const s of plan.segments) {
      expect(s.clip === 0 || s.clip === 1).toBe(true);
      urls.add(s.thumbnail_url as string);
    }
    for (const url of urls) {
      const res = await fetchLink(url);
      expect(res.status).toBe(200);
      const jpeg = Buffer.from(await res.arrayBuffer());
      expect(jpeg.subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]));
    }
    // The frames are cached under the upload (deleted with it).
    expect(fs.existsSync(path.join(data.dir, 'objects', 'frames', clips[0]!))).toBe(true);

    // Re-roll keeps the locked segment; a re-roll of a segment that does not exist is a 400.
    const rr = await call('POST', '/jobs/plan', owner, { ...request(), plan, reroll: [1], locked: [0], seed: 3 });
    expect(rr.status).toBe(200);
    const { thumbnail_url: _a, ...first } = plan.segments[0];
    const { thumbnail_url: _b, ...kept } = rr.body.plan.segments[0];
    expect(kept).toEqual(first);
    const bad = await call('POST', '/jobs/plan', owner, { ...request(), plan, reroll: [99] });
    expect(bad.status).toBe(400);
    expect(bad.body.detail).toContain('reroll');

    // Planning reserved nothing: the free video is still there.
    const acct = await peers.billing.getAccount({ userId: stack.userId(owner) });
    expect(acct.account!.dailyFreeUsed).toBe(false);
  }, 120_000);

  it('a tempo correction (POST /uploads/tempo) is kept with the upload and re-plans on the corrected beats; bad ones are clear 400s', async () => {
    const tempo = (body: Json, token = owner) => call('POST', '/uploads/tempo', token, body);
    const before = await call('POST', '/jobs/plan', owner, request());
    const found = before.body.music as Json;
    expect(found).toMatchObject({ beats_per_bar: 4, tempo_corrections: [] });
    expect(found.analysed_bpm).toBeCloseTo(found.tempo_bpm, 6);

    // Bad input, each with its own clear message (nothing stored).
    const cases: [Json, number, RegExp][] = [
      [{ key: song, action: 'tap', taps: [1, 1.5, 2] }, 400, /Tap at least 4 times/],
      [{ key: song, action: 'tap' }, 400, /times you tapped/],
      [{ key: song, action: 'tap', taps: [1, 1.5, 1.2, 2] }, 400, /must increase/],
      [{ key: song, action: 'tap', taps: [1, 1.05, 1.1, 1.15] }, 400, /1200 BPM/],
      [{ key: song, action: 'tap', taps: [20, 20.5, 21, 21.5] }, 400, /within the track/],
      [{ key: song, action: 'halve', taps: [1, 2, 3, 4] }, 400, /Only the tap action/],
      [{ key: song, action: 'triple' }, 400, /action/],
      [{ action: 'double' }, 400, /key/],
      [{ key: clips[0], action: 'double' }, 400, /Only a music track/],
    ];
    for (const [body, status, detail] of cases) {
      const r = await tempo(body);
      expect([JSON.stringify(body), r.status, r.body.detail]).toEqual([JSON.stringify(body), status, expect.stringMatching(detail)]);
    }
    expect((await tempo({ key: song, action: 'double' }, signIn())).status).toBe(404);

    // Double: twice the tempo, the cuts move onto the new beats, and the choice is kept.
    const doubled = await tempo({ key: song, action: 'double' });
    expect(doubled.status).toBe(200);
    expect(doubled.body.music.tempo_bpm).toBeCloseTo(2 * found.tempo_bpm, 0);
    expect(doubled.body.music).toMatchObject({ tempo_corrections: ['double'], analysed_bpm: found.analysed_bpm });
    const after = await call('POST', '/jobs/plan', owner, request());
    const music = after.body.music as Json;
    expect(music.tempo_corrections).toEqual(['double']);
    expect(music.tempo_bpm).toBeCloseTo(2 * found.tempo_bpm, 0);
    const cuts = (r: Json) => (r.body.plan.segments as Json[]).slice(1).map((s) => s.start as number);
    expect(cuts(after)).not.toEqual(cuts(before));
    // Every cut on a corrected beat (within half a frame), and some on a beat that was not there before.
    for (const c of cuts(after))
      expect(Math.min(...(music.beats as number[]).map((b) => Math.abs(b - c)))).toBeLessThanOrEqual(1 / 60 + 1e-6);
    // Four beats a segment at twice the tempo: segments half as long, so about twice as many.
    expect(cuts(after).length).toBeGreaterThanOrEqual(Math.floor(1.6 * cuts(before).length));
    expect((await ready(owner, song)).music).toMatchObject({ tempo_corrections: ['double'] });

    // Shift, then tap along at the analysed tempo on the analysed beats: the tap replaces the rest.
    expect((await tempo({ key: song, action: 'shift' })).body.music.tempo_corrections).toEqual(['double', 'shift']);
    const beats = found.beats as number[];
    const tapped = await tempo({ key: song, action: 'tap', taps: beats.slice(4, 10).map((b) => b + 0.02) });
    expect(tapped.status).toBe(200);
    expect(tapped.body.music.tempo_corrections).toEqual(['tap']);
    // Snapped onto the analysed beats.
    expect(tapped.body.music.beats.length).toBe(beats.length);
    (tapped.body.music.beats as number[]).forEach((b, i) => expect(Math.abs(b - beats[i]!)).toBeLessThan(1e-3));

    // Reset: the beats as analysed, the plan as before.
    const reset = await tempo({ key: song, action: 'reset' });
    expect(reset.body.music).toMatchObject({ tempo_corrections: [], beats: found.beats });
    expect(cuts(await call('POST', '/jobs/plan', owner, request()))).toEqual(cuts(before));
  }, 120_000);

  it('/jobs/assemble refuses an invalid plan with a 400 naming the first problem, and reserves nothing', async () => {
    const { body } = await call('POST', '/jobs/plan', owner, request());
    const plan = body.plan as Json;
    const segs = plan.segments as Json[];
    // Segment 1 reads past the end of its clip.
    const broken = { ...plan, segments: segs.map((s, i) => (i === 1 ? { ...s, out: 99, in: 99 - (s.out - s.in) } : s)) };
    const r = await call('POST', '/jobs/assemble', owner, { ...request(), plan: broken });
    expect(r.status).toBe(400);
    expect(r.body.detail).toMatch(/^plan\.segments\[1\]: /);
    expect(r.body.detail).toContain('past the end of clip');
    // A gap between segments is named as such.
    const gap = { ...plan, segments: segs.map((s, i) => (i === 2 ? { ...s, start: s.start + 1 / 30 } : s)) };
    const g = await call('POST', '/jobs/assemble', owner, { ...request(), plan: gap });
    expect(g.status).toBe(400);
    expect(g.body.detail).toMatch(/^plan\.segments\[2\]: /);
    expect((await peers.billing.getAccount({ userId: stack.userId(owner) })).account!.dailyFreeUsed).toBe(false);
  }, 60_000);

  it("a job is listed while active and cancelled by its owner only: someone else's cancel is a 404, a second cancel a 409", async () => {
    const { body } = await call('POST', '/jobs/plan', owner, request());
    const created = await call('POST', '/jobs/assemble', owner, { ...request(), plan: body.plan });
    expect(created.status).toBe(200);
    const id = created.body.job_id as string;
    expect((await peers.billing.getAccount({ userId: stack.userId(owner) })).account!.dailyFreeUsed).toBe(true);
    const active = await call('GET', '/jobs?active=1', owner);
    expect(active.body.jobs.map((j: Json) => [j.job_id, j.status])).toEqual([[id, 'queued']]);
    expect(active.body.jobs[0].created_at).toMatch(/^\d{4}-\d{2}-\d{2}T/);

    const stranger = signIn();
    const theirs = await call('POST', `/jobs/${id}/cancel`, stranger);
    expect(theirs.status).toBe(404);
    expect((await call('GET', '/jobs', stranger)).body.jobs).toEqual([]);

    const cancelled = await call('POST', `/jobs/${id}/cancel`, owner);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ job_id: id, status: 'cancelled', download_url: null });
    expect((await peers.billing.getAccount({ userId: stack.userId(owner) })).account!.dailyFreeUsed).toBe(false);
    const again = await call('POST', `/jobs/${id}/cancel`, owner);
    expect(again.status).toBe(409);
    expect(again.body.detail).toBe('This job has already finished.');
    expect((await call('GET', '/jobs?active=1', owner)).body.jobs).toEqual([]);
    expect((await call('GET', '/jobs', owner)).body.jobs.map((j: Json) => [j.job_id, j.status])).toEqual([[id, 'cancelled']]);
    expect((await call('POST', `/jobs/${crypto.randomUUID()}/cancel`, owner)).status).toBe(404);
  }, 60_000);
});
