import { DomainError, ErrorCode } from '@reelsmith/kit';
import { OWNER, OTHER, H264_MP4, MP3, THUMB, setup, failure } from './media.fakes';

describe('registering an upload', () => {
  it('records a video with its metadata and a JPEG thumbnail, then analyses it in the background', async () => {
    const t = setup();
    t.upload('uploads/a.mp4', H264_MP4, 4096);

    const m = await t.service.registerUpload(OWNER, 'uploads/a.mp4', 'Beach day.mp4', 0);

    expect(m).toMatchObject({
      ownerId: OWNER,
      objectKey: 'uploads/a.mp4',
      kind: 'video',
      displayName: 'Beach day.mp4',
      sizeBytes: 4096,
      durationSec: 12.5,
      width: 1920,
      height: 1080,
      videoCodec: 'h264',
      audioCodec: 'aac',
      thumbnailKey: 'thumbs/uploads/a.mp4.jpg',
      analysisStatus: 'pending',
    });
    expect(t.objects.files.get('thumbs/uploads/a.mp4.jpg')).toMatchObject({ body: THUMB, contentType: 'image/jpeg' });
    await t.service.whenIdle();
    expect((await t.service.media(OWNER, ['uploads/a.mp4']))[0]).toMatchObject({
      analysisStatus: 'done',
      analysis: { kind: 'video', key: 'uploads/a.mp4' },
    });
  });

  it('records audio without a thumbnail', async () => {
    const t = setup();
    t.upload('uploads/song.mp3', MP3);
    const m = await t.service.registerUpload(OWNER, 'uploads/song.mp3', 'song.mp3', 0);
    expect(m).toMatchObject({ kind: 'audio', thumbnailKey: '', audioCodec: 'mp3' });
    expect([...t.objects.files.keys()]).toEqual(['uploads/song.mp3']);
    await t.service.whenIdle();
  });

  it('names a nameless upload "upload" and cuts long names at 200 characters', async () => {
    const t = setup();
    t.upload('uploads/a.mp3', MP3);
    t.upload('uploads/b.mp3', MP3);
    expect((await t.service.registerUpload(OWNER, 'uploads/a.mp3', '', 0)).displayName).toBe('upload');
    expect((await t.service.registerUpload(OWNER, 'uploads/b.mp3', 'n'.repeat(300), 0)).displayName).toBe('n'.repeat(200));
    await t.service.whenIdle();
  });

  it('a missing upload is NOT_FOUND', async () => {
    const t = setup();
    expect(await failure(t.service.registerUpload(OWNER, 'uploads/none.mp4', 'x.mp4', 0))).toMatchObject({
      code: ErrorCode.NOT_FOUND,
      message: 'The uploaded file was not found.',
    });
  });

  it('a file over the plan cap is refused and deleted; a cap of 0 means no cap', async () => {
    const t = setup();
    t.upload('uploads/big.mp4', H264_MP4, 5001);
    expect(await failure(t.service.registerUpload(OWNER, 'uploads/big.mp4', 'big.mp4', 5000))).toMatchObject({
      code: ErrorCode.PAYLOAD_TOO_LARGE,
      reason: 'too_large',
      message: 'The file is larger than your plan allows.',
    });
    expect(t.objects.files.has('uploads/big.mp4')).toBe(false);
    expect(t.repo.rows.size).toBe(0);

    t.upload('uploads/exact.mp4', H264_MP4, 5000);
    await expect(t.service.registerUpload(OWNER, 'uploads/exact.mp4', 'exact.mp4', 5000)).resolves.toMatchObject({ sizeBytes: 5000 });
    t.upload('uploads/huge.mp4', H264_MP4, 10 ** 12);
    await expect(t.service.registerUpload(OWNER, 'uploads/huge.mp4', 'huge.mp4', 0)).resolves.toMatchObject({ sizeBytes: 10 ** 12 });
    await t.service.whenIdle();
  });

  it.each([
    ['a Flash video', { ...H264_MP4, formatName: 'flv' }],
    ['an Ogg audio file', { ...MP3, formatName: 'ogg' }],
    ['a WAV that claims to be video', { ...H264_MP4, formatName: 'wav' }],
  ])('%s is refused with the list of formats, and deleted', async (_what, probe) => {
    const t = setup();
    t.upload('uploads/f', probe);
    expect(await failure(t.service.registerUpload(OWNER, 'uploads/f', 'holiday.flv', 0))).toMatchObject({
      code: ErrorCode.INVALID_ARGUMENT,
      reason: 'unsupported_format',
      message: 'holiday.flv: unsupported format. Use MP4, MOV, AVI or MKV video, or MP3, WAV, AAC or M4A audio.',
    });
    expect(t.objects.files.has('uploads/f')).toBe(false);
    expect(t.repo.rows.size).toBe(0);
    expect(t.tools.analysed).toEqual([]);
  });

  it.each([
    ['avi', 'video'],
    ['matroska,webm', 'video'],
    ['wav', 'audio'],
    ['aac', 'audio'],
    ['mov,mp4,m4a,3gp,3g2,mj2', 'audio'],
  ] as const)('accepts %s %s', async (formatName, kind) => {
    const t = setup();
    t.upload('uploads/ok', { ...(kind === 'video' ? H264_MP4 : MP3), formatName });
    await expect(t.service.registerUpload(OWNER, 'uploads/ok', 'ok', 0)).resolves.toMatchObject({ kind });
    await t.service.whenIdle();
  });

  it("an unreadable file is refused with the tool's message and deleted", async () => {
    const t = setup();
    t.upload('uploads/junk.mp4', new DomainError(ErrorCode.INVALID_ARGUMENT, 'junk.mp4: no audio or video stream', 'unsupported_media'));
    expect(await failure(t.service.registerUpload(OWNER, 'uploads/junk.mp4', 'junk.mp4', 0))).toMatchObject({
      message: 'junk.mp4: no audio or video stream',
    });
    expect(t.objects.files.has('uploads/junk.mp4')).toBe(false);
  });

  it('an outage while probing is passed on as it is, and the upload deleted', async () => {
    const t = setup();
    t.upload('uploads/a.mp4', new Error('spawn ffprobe ENOENT'));
    await expect(t.service.registerUpload(OWNER, 'uploads/a.mp4', 'a.mp4', 0)).rejects.toThrow('spawn ffprobe ENOENT');
    expect(t.objects.files.has('uploads/a.mp4')).toBe(false);
  });

  it('a failed analysis marks the media failed; the upload itself stays usable', async () => {
    const t = setup();
    t.upload('uploads/a.mp4', H264_MP4);
    t.tools.failing.add('uploads/a.mp4');
    await t.service.registerUpload(OWNER, 'uploads/a.mp4', 'a.mp4', 0);
    await t.service.whenIdle();
    expect((await t.service.media(OWNER, ['uploads/a.mp4']))[0]).toMatchObject({ analysisStatus: 'failed', analysis: null });
  });
});

describe('uploads no job uses', () => {
  it("are limited to twice the plan's cap in all, and stop counting once a job uses them", async () => {
    const t = setup();
    t.upload('uploads/1.mp4', H264_MP4, 4000);
    t.upload('uploads/2.mp4', H264_MP4, 4000);
    t.upload('uploads/3.mp4', H264_MP4, 4000);
    await t.service.registerUpload(OWNER, 'uploads/1.mp4', '1.mp4', 5000);
    await t.service.registerUpload(OWNER, 'uploads/2.mp4', '2.mp4', 5000);
    const refused = await failure(t.service.registerUpload(OWNER, 'uploads/3.mp4', '3.mp4', 5000));
    expect(refused).toMatchObject({ code: ErrorCode.PAYLOAD_TOO_LARGE, reason: 'upload_quota' });
    expect(refused.message).toContain('unused uploads are deleted after 24 hours');
    expect(t.objects.files.has('uploads/3.mp4')).toBe(false);
    // Another user's uploads are theirs to count.
    t.upload('uploads/other.mp4', H264_MP4, 4000);
    await t.service.registerUpload(OTHER, 'uploads/other.mp4', 'o.mp4', 5000);
    // A job used the first two: room again.
    await t.service.markUsed(OWNER, ['uploads/1.mp4', 'uploads/2.mp4']);
    t.upload('uploads/3.mp4', H264_MP4, 4000);
    await expect(t.service.registerUpload(OWNER, 'uploads/3.mp4', '3.mp4', 5000)).resolves.toMatchObject({ sizeBytes: 4000 });
    await t.service.whenIdle();
  });

  it('are deleted with their thumbnail and cached timeline frames after 24 hours; used and younger ones stay', async () => {
    const t = setup();
    for (const k of ['old-unused', 'old-used', 'young'].map((n) => `uploads/${n}.mp4`)) t.upload(k, H264_MP4);
    for (const k of [
      'frames/uploads/old-unused.mp4/500.jpg',
      'frames/uploads/old-unused.mp4/4100.jpg',
      'frames/uploads/old-used.mp4/500.jpg',
    ])
      await t.objects.put(k, THUMB);
    await t.service.registerUpload(OWNER, 'uploads/old-unused.mp4', 'a.mp4', 0);
    await t.service.registerUpload(OWNER, 'uploads/old-used.mp4', 'b.mp4', 0);
    await t.service.markUsed(OWNER, ['uploads/old-used.mp4']);
    t.advance(20 * 3600_000);
    await t.service.registerUpload(OWNER, 'uploads/young.mp4', 'c.mp4', 0);
    await t.service.whenIdle();
    t.advance(4 * 3600_000 + 1000);
    expect(await t.service.expireUnused(new Date(Date.parse('2026-04-01T09:00:00Z') + 24 * 3600_000 + 1000))).toBe(1);
    expect(t.objects.files.has('uploads/old-unused.mp4')).toBe(false);
    expect(t.objects.files.has('thumbs/uploads/old-unused.mp4.jpg')).toBe(false);
    expect([...t.objects.files.keys()].filter((k) => k.startsWith('frames/'))).toEqual(['frames/uploads/old-used.mp4/500.jpg']);
    expect([...t.repo.rows.keys()].sort()).toEqual(['uploads/old-used.mp4', 'uploads/young.mp4']);
    expect(t.objects.files.has('uploads/old-used.mp4')).toBe(true);
  });
});
