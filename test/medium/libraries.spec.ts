import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { ErrorCode } from '@reelsmith/kit';
import { SYSTEM_ACCOUNT } from '@reelsmith/proto';
import { libraryStarterClips } from '../../services/assembly-orchestrator/src/repositories/demo-reels.adapters';
import { listLibraryFiles } from '../../services/media-library/src/repositories/library-files';
import type { UploadInfo } from '../../web/src/api/types.js' with { 'resolution-mode': 'import' };
import { librariesStack, ORIGIN, type MusicList, type VideoList } from './libraries.stack';

const DAY = 24 * 3600_000;

/**
 * The stock libraries for real, on the stack of libraries.stack.ts: media-library importing
 * ffmpeg-made files, the gateway's routes over gRPC to it, and stand-ins for identity and billing.
 */
describe('stock libraries and My Reels through the gateway', () => {
  const stack = librariesStack();
  const { data, input, store, signIn, call } = stack;

  it('imports a folder: categories from subfolders, a bad file skipped by name, the same content again changes nothing', async () => {
    const files = listLibraryFiles(input);
    expect(files.map((f) => f.relative)).not.toContain(path.join('nature', 'Forest Walk.mp4.LICENSE.txt'));
    const first = await stack.lib.importMany(files);
    expect(first).toEqual({
      imported: 6,
      duplicates: 0,
      failed: [{ file: path.join('junk', 'broken.mp4'), error: expect.stringContaining('broken.mp4') }],
    });
    const again = await stack.lib.importMany(files);
    expect(again.imported).toBe(0);
    expect(again.duplicates).toBe(6);

    const v = await call<VideoList>('GET', '/video-library-detailed');
    expect(v.status).toBe(200);
    expect(v.body.files.map((f) => f.filename)).toEqual(['Forest Walk.mp4', 'loose-clip.mp4', 'Night Traffic.mp4', 'river.mp4']);
    expect(v.body.total).toBe(4);
    expect(v.body.categories).toEqual(['city', 'general', 'nature']);
    expect(v.body.files.find((f) => f.filename === 'loose-clip.mp4')?.category).toBe('general');
    const m = await call<MusicList>('GET', '/music-library-detailed');
    // Listed by title: the file name without its extension.
    expect(m.body.files.map((f) => [f.filename, f.title, f.category])).toEqual([
      ['fast-140.mp3', 'fast-140', 'beats'],
      ['slow-90.mp3', 'slow-90', 'beats'],
    ]);
    const bpm = Object.fromEntries(m.body.files.map((f) => [f.filename, f.bpm]));
    expect(Math.abs(bpm['slow-90.mp3']! - 90)).toBeLessThan(3);
    expect(Math.abs(bpm['fast-140.mp3']! - 140)).toBeLessThan(4);
  }, 120_000);

  it('searches case-insensitively on filename or category, filters by category and pages with a total of the matches', async () => {
    const byName = await call<VideoList>('GET', '/video-library-detailed?q=FOREST');
    expect(byName.body.files.map((f) => f.filename)).toEqual(['Forest Walk.mp4']);
    expect(byName.body.total).toBe(1);
    const byCategory = await call<VideoList>('GET', '/video-library-detailed?q=natu');
    expect(byCategory.body.files.map((f) => f.filename)).toEqual(['Forest Walk.mp4', 'river.mp4']);
    const blank = await call<VideoList>('GET', '/video-library-detailed?q=%20%20');
    expect(blank.body.total).toBe(4);
    const inCity = await call<VideoList>('GET', '/video-library-detailed?category=city');
    expect(inCity.body.files.map((f) => f.filename)).toEqual(['Night Traffic.mp4']);
    const literal = await call<VideoList>('GET', '/video-library-detailed?q=%25');
    expect(literal.body.total).toBe(0);
    const page1 = await call<VideoList>('GET', '/video-library-detailed?limit=3&offset=0');
    const page2 = await call<VideoList>('GET', '/video-library-detailed?limit=3&offset=3');
    expect(page1.body.files).toHaveLength(3);
    expect(page2.body.files).toHaveLength(1);
    expect(page2.body.total).toBe(4);
    expect(new Set([...page1.body.files, ...page2.body.files].map((f) => f.key)).size).toBe(4);
  });

  it('serves thumbnails, preview frames and clips by cacheable URL (no inline images in the list)', async () => {
    const list = await call<VideoList>('GET', '/video-library-detailed');
    expect(list.bytes).toBeLessThan(100_000);
    const f = list.body.files[0]!;
    expect(f.preview_frames).toHaveLength(3);
    for (const url of [f.thumbnail_url, ...f.preview_frames]) {
      const r = await fetch(`${stack.base}${url}`);
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toBe('image/jpeg');
      expect(r.headers.get('cache-control')).toContain('immutable');
      const bytes = Buffer.from(await r.arrayBuffer());
      expect(bytes.subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]));
    }
    const clip = await fetch(`${stack.base}${f.url}`);
    expect(clip.status).toBe(200);
    expect(Number(clip.headers.get('content-length'))).toBe(f.size);
  });

  it('streams a music preview with HTTP Range (206) and refuses an unsatisfiable range (416)', async () => {
    const { token } = signIn();
    const m = await call<MusicList>('GET', '/music-library-detailed');
    const track = m.body.files[0]!;
    const cached = await call<{ preview_url: string }>('POST', `/music-library/cache/${track.key}`, token);
    expect(cached.status).toBe(200);
    const url = `${stack.base}${cached.body.preview_url}`;
    const whole = Buffer.from(await (await fetch(url)).arrayBuffer());
    expect(whole.length).toBe(track.size);
    const part = await fetch(url, { headers: { range: 'bytes=100-199' } });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 100-199/${track.size}`);
    expect(part.headers.get('content-type')).toBe('audio/mpeg');
    expect(Buffer.from(await part.arrayBuffer())).toEqual(whole.subarray(100, 200));
    const tail = await fetch(url, { headers: { range: 'bytes=-10' } });
    expect(Buffer.from(await tail.arrayBuffer())).toEqual(whole.subarray(whole.length - 10));
    expect((await fetch(url, { headers: { range: `bytes=${track.size}-` } })).status).toBe(416);

    const analysis = await call<{ bpm: number; beats: number[]; peaks: number[] }>('GET', `/music-library/analysis/${track.key}`);
    expect(analysis.body.beats.length).toBeGreaterThan(10);
    expect(analysis.body.peaks.length).toBeGreaterThan(100);
    expect(Math.max(...analysis.body.peaks)).toBeGreaterThan(0.3);
  });

  it("lists a user's doubled library track at double its tempo for them only: another user and a signed-out visitor see it as analysed", async () => {
    const alice = signIn();
    const bob = signIn();
    const bpms = (l: Pick<MusicList, 'files'>) => Object.fromEntries(l.files.map((f) => [f.filename, f.bpm]));
    const analysed = await call<MusicList>('GET', '/music-library-detailed');
    const found = bpms(analysed.body);
    const mine = await call<{ files: Array<MusicList['files'][number] & { s3_key: string }> }>('GET', '/music-library', alice.token);
    expect(bpms(mine.body)).toEqual(found);
    const slow = mine.body.files.find((f) => f.filename === 'slow-90.mp3')!;

    const doubled = await call<Required<Pick<UploadInfo, 'music'>>>('POST', '/uploads/tempo', alice.token, {
      key: slow.s3_key,
      action: 'double',
    });
    expect(doubled.status).toBe(200);
    expect(doubled.body.music.tempo_corrections).toEqual(['double']);
    // The plan preview's tempo, to the tenth the library lists: twice the one found.
    const planned = Math.round(doubled.body.music.tempo_bpm * 10) / 10;
    expect(Math.abs(planned - 2 * found['slow-90.mp3']!)).toBeLessThanOrEqual(0.2);

    // Alice: the doubled track at the plan's tempo, in both lists, a search and a one-track page;
    // the other track as analysed. Her answer is hers: private, and varies with the sign-in.
    for (const route of [
      '/music-library-detailed',
      '/music-library',
      '/music-library-detailed?q=SLOW',
      '/music-library?limit=1&offset=1',
    ]) {
      const r = await call<MusicList>('GET', route, alice.token);
      expect([route, r.status]).toEqual([route, 200]);
      const expected = { 'slow-90.mp3': planned, 'fast-140.mp3': found['fast-140.mp3'] };
      expect([route, bpms(r.body)]).toEqual([
        route,
        Object.fromEntries(r.body.files.map((f) => [f.filename, expected[f.filename as keyof typeof expected]])),
      ]);
      expect(r.body.files.map((f) => f.filename)).toContain('slow-90.mp3');
      expect(r.headers.get('cache-control')).toBe('private, no-cache');
      expect(r.headers.get('vary')).toMatch(/authorization/i);
      expect(r.headers.get('etag')).toBeNull();
    }
    // Bob and a signed-out visitor: the tempo as analysed.
    for (const [who, token, route] of [
      ['bob', bob.token, '/music-library-detailed'],
      ['bob', bob.token, '/music-library'],
      ['signed out', undefined, '/music-library-detailed'],
    ] as const) {
      const r = await call<MusicList>('GET', route, token);
      expect([who, route, bpms(r.body)]).toEqual([who, route, found]);
      expect(r.headers.get('vary')).toMatch(/authorization/i);
      expect(r.headers.get('cache-control') ?? '').not.toMatch(/public/);
    }

    // Reset: Alice's list is the analysed one again.
    expect((await call('POST', '/uploads/tempo', alice.token, { key: slow.s3_key, action: 'reset' })).status).toBe(200);
    expect(bpms((await call<MusicList>('GET', '/music-library-detailed', alice.token)).body)).toEqual(found);
  });

  it('selects library items for a job: the cap by plan, the object keys a job names, unknown keys 404', async () => {
    const free = signIn('free');
    const paid = signIn('standard');
    const { body: list } = await call<VideoList>('GET', '/video-library-detailed');
    const keys = list.files.map((f) => f.key);
    expect((await call('POST', '/video-library/select', undefined, { video_keys: keys })).status).toBe(401);
    const ok = await call<{ selected_videos: Array<{ key: string; object_key: string; filename: string }> }>(
      'POST',
      '/video-library/select',
      free.token,
      {
        video_keys: keys,
      },
    );
    expect(ok.status).toBe(200);
    expect(ok.body.selected_videos.map((v) => v.key)).toEqual(keys);
    expect(ok.body.selected_videos[0]!.object_key).toMatch(/^library\/video\//);

    const many = Array.from({ length: 21 }, (_, i) => keys[i % keys.length]! + i.toString(16).padStart(2, '0'));
    const capped = await call<{ detail: string }>('POST', '/video-library/select', free.token, { video_keys: many });
    expect(capped.status).toBe(400);
    expect(capped.body.detail).toBe('Free plan allows up to 20 video selections.');
    // Paid: 21 is within the cap, so the request gets as far as the keys (which do not exist).
    expect((await call('POST', '/video-library/select', paid.token, { video_keys: many })).status).toBe(404);

    const music = await call<{ object_key: string }>('POST', '/music-library/select', free.token, { filename: 'slow-90.mp3' });
    expect(music.body.object_key).toMatch(/^library\/audio\/.+\.mp3$/);
    expect((await call('POST', '/music-library/select', free.token, { filename: 'nope.mp3' })).status).toBe(404);
  });

  it("lets a job use library keys and the user's own uploads, and refuses another user's upload as not found", async () => {
    const alice = crypto.randomUUID();
    const bob = crypto.randomUUID();
    const uploadKey = `uploads/${crypto.randomUUID()}.mp4`;
    await store.put(uploadKey, fs.readFileSync(path.join(input, 'city', 'Night Traffic.mp4')));
    await stack.client.registerUpload({
      ownerId: bob,
      objectKey: uploadKey,
      displayName: 'bob.mp4',
      sizeCapBytes: BigInt(600 * 1024 * 1024),
    });
    const { body } = await call<VideoList>('GET', '/video-library-detailed?q=river');
    const libKey = (await stack.client.getLibraryItems({ kind: 'video', keys: [body.files[0]!.key] })).items[0]!.objectKey;
    const mine = await stack.client.getMedia({ ownerId: bob, objectKeys: [libKey, uploadKey] });
    expect(mine.items.map((i) => [i.objectKey, i.library])).toEqual([
      [libKey, true],
      [uploadKey, false],
    ]);
    expect(mine.items[0]!.analysisStatus).toBe('done');
    await expect(stack.client.getMedia({ ownerId: alice, objectKeys: [libKey, uploadKey] })).rejects.toMatchObject({
      code: ErrorCode.NOT_FOUND,
    });
  });

  it('gives the first-start demo task the video library as clips, which the system account may use in a job', async () => {
    const clips = await libraryStarterClips(stack.client)();
    const { body } = await call<VideoList>('GET', '/video-library-detailed');
    expect(clips).toHaveLength(body.files.length);
    expect(clips.length).toBeGreaterThan(0);
    for (const c of clips) {
      expect(c.objectKey).toMatch(/^library\/video\//);
      expect(c.durationSec).toBeGreaterThan(1.5);
    }
    // The job path checks clips through GetMedia as the owner: the system account owns no uploads.
    const got = await stack.client.getMedia({ ownerId: SYSTEM_ACCOUNT.id, objectKeys: clips.map((c) => c.objectKey) });
    expect(got.items.map((i) => [i.objectKey, i.kind, i.library])).toEqual(clips.map((c) => [c.objectKey, 'video', true]));
  });

  it('lists reels with their expiry by plan and thumbnail links; deleting one kills its link; the sweeper deletes expired reels', async () => {
    const { token, id: owner } = signIn();
    const made = async (plan: string, cycle: string) => {
      const id = crypto.randomUUID();
      const objectKey = `outputs/${id}.mp4`;
      const thumbnailKey = `outputs/${id}.jpg`;
      await store.put(objectKey, Buffer.from('mp4 bytes'));
      await store.put(thumbnailKey, Buffer.from([0xff, 0xd8, 0xff, 0xd9]));
      await stack.client.addReel({
        plan,
        billingCycle: cycle,
        reel: {
          id,
          ownerId: owner,
          title: `reel ${plan}`,
          objectKey,
          thumbnailKey,
          durationSec: 5,
          sizeBytes: 9n,
          pacingPreset: 'standard',
          musicUsed: true,
        },
      });
      return { id, objectKey };
    };
    const before = Date.now();
    const free = await made('free', '');
    const yearly = await made('standard', 'yearly');
    const corporate = await made('corporate', 'monthly');
    type Reels = {
      videos: Array<{
        id: string;
        download_url: string;
        thumbnail: { url: string } | null;
        expires_at: string | null;
        share_to_showcase: boolean;
      }>;
    };
    // The card's 'Share to showcase' toggle starts as the owner left it.
    expect((await call('PUT', `/library/${yearly.id}/showcase`, token, { shared: true })).status).toBe(200);
    const list = await call<Reels>('GET', '/library', token);
    expect(list.status).toBe(200);
    const byId = Object.fromEntries(list.body.videos.map((v) => [v.id, v]));
    expect([byId[free.id]!.share_to_showcase, byId[yearly.id]!.share_to_showcase]).toEqual([false, true]);
    const days = (iso: string | null) => (iso ? (Date.parse(iso) - before) / DAY : null);
    expect(days(byId[free.id]!.expires_at)).toBeCloseTo(7, 1);
    expect(days(byId[yearly.id]!.expires_at)).toBeCloseTo(365, 1);
    expect(byId[corporate.id]!.expires_at).toBeNull();
    expect((await fetch(byId[free.id]!.thumbnail!.url.replace(ORIGIN, stack.base))).status).toBe(200);

    // Another user cannot see, play or delete it.
    const other = signIn();
    expect((await call('POST', `/library/${free.id}/access`, other.token)).status).toBe(404);
    expect((await call('DELETE', `/library/${free.id}`, other.token)).status).toBe(404);
    expect((await call('POST', `/library/${free.id}/access`, token)).status).toBe(200);

    const link = byId[corporate.id]!.download_url.replace(ORIGIN, stack.base);
    expect((await fetch(link)).status).toBe(200);
    expect((await call('DELETE', `/library/${corporate.id}`, token)).status).toBe(200);
    expect((await fetch(link)).status).toBe(404);

    // Eight days on: the free reel is past its week, the yearly one is not.
    expect(await stack.reels.expireReels(new Date(Date.now() + 8 * DAY))).toBe(1);
    expect(await store.stat(free.objectKey)).toBeNull();
    expect(await store.stat(yearly.objectKey)).not.toBeNull();
    const after = await call<Reels>('GET', '/library', token);
    expect(after.body.videos.map((v) => v.id)).toEqual([yearly.id]);
  });

  it('lets an admin add to and remove from the library; others may not', async () => {
    const admin = signIn('free', true);
    const user = signIn();
    const form = () => {
      const f = new FormData();
      f.append('category', 'Admin Picks');
      f.append('file', new Blob([fs.readFileSync(path.join(input, 'nature', 'river.mp4'))]), 'river-again.mp4');
      return f;
    };
    const denied = await fetch(`${stack.base}/api/v1/admin/library`, {
      method: 'POST',
      headers: { authorization: `Bearer ${user.token}` },
      body: form(),
    });
    expect(denied.status).toBe(403);
    // The same content as an imported clip: nothing new.
    const dup = await fetch(`${stack.base}/api/v1/admin/library`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin.token}` },
      body: form(),
    });
    expect(dup.status).toBe(201);
    const dupBody = (await dup.json()) as { outcome: string; key: string };
    expect(dupBody.outcome).toBe('duplicate');
    expect((await call('DELETE', `/admin/library/${dupBody.key}`, user.token)).status).toBe(403);
    expect((await call('DELETE', `/admin/library/${dupBody.key}`, admin.token)).status).toBe(200);
    const list = await call<VideoList>('GET', '/video-library-detailed?q=river');
    expect(list.body.total).toBe(0);
    const staged = fs.readdirSync(path.join(data.dir, 'objects', 'library', 'incoming'), { recursive: true, withFileTypes: true });
    expect(staged.filter((e) => e.isFile())).toEqual([]);
  });
});
