import { ErrorCode } from '@reelsmith/kit';
import { reelRetentionMs } from '../../src/domain/reels.service';
import { OWNER, OTHER, record, reel, setup, failure } from './media.fakes';

describe('reading media and reels', () => {
  it("returns the caller's media in the order asked, and refuses another owner's", async () => {
    const t = setup();
    for (const k of ['k1', 'k2']) await t.repo.insert(record(k, 'video'));
    await t.repo.insert({ ...record('theirs', 'video'), ownerId: OTHER });

    expect((await t.service.media(OWNER, ['k2', 'k1'])).map((m) => m.objectKey)).toEqual(['k2', 'k1']);
    for (const keys of [
      ['k1', 'theirs'],
      ['k1', 'missing'],
    ])
      expect(await failure(t.service.media(OWNER, keys))).toMatchObject({
        code: ErrorCode.NOT_FOUND,
        reason: 'media_not_found',
        message: 'One of the selected files was not found. Please upload it again.',
      });
  });

  it('pages reels 50 by default and 100 at most, and deletes only your own reel', async () => {
    const t = setup();
    const calls: Array<[number, number]> = [];
    const list = t.repo.listReels.bind(t.repo);
    t.repo.listReels = (o, limit, offset) => {
      calls.push([limit, offset]);
      return list(o, limit, offset);
    };
    await t.reels.listReels(OWNER, 0, 0);
    await t.reels.listReels(OWNER, 500, -3);
    await t.reels.listReels(OWNER, 20, 40);
    expect(calls).toEqual([
      [50, 0],
      [100, 0],
      [20, 40],
    ]);

    await t.reels.addReel({ ...reel('r1'), thumbnailKey: '', musicUsed: true, enableBeatMapping: true });
    expect(await failure(t.reels.deleteReel(OTHER, 'r1'))).toMatchObject({ code: ErrorCode.NOT_FOUND, message: 'Reel not found.' });
    await t.reels.deleteReel(OWNER, 'r1');
    expect(await failure(t.reels.deleteReel(OWNER, 'r1'))).toMatchObject({ reason: 'reel_not_found' });
  });
});

describe("deleting a user's data (account deletion)", () => {
  it('removes every upload and reel of the owner with their objects, and nothing of anyone else', async () => {
    const t = setup();
    await t.reels.addReel(reel('mine', OWNER));
    await t.reels.addReel(reel('theirs', OTHER));
    await t.repo.insert({ ...record('uploads/mine.mp4', 'video'), ownerId: OWNER, thumbnailKey: 'uploads/mine.jpg' });
    await t.repo.insert({ ...record('uploads/theirs.mp4', 'video'), ownerId: OTHER, thumbnailKey: '' });
    for (const k of [
      'reels/mine.mp4',
      'reels/mine.jpg',
      'reels/theirs.mp4',
      'reels/theirs.jpg',
      'uploads/mine.mp4',
      'uploads/mine.jpg',
      'uploads/theirs.mp4',
      'frames/uploads/mine.mp4/500.jpg',
      'frames/uploads/mine.mp4/9000.jpg',
      'frames/uploads/theirs.mp4/500.jpg',
    ])
      await t.objects.put(k, Buffer.from(k));

    expect(await t.service.deleteUserData(OWNER)).toEqual({ uploads: 1, reels: 1 });

    expect([...t.objects.files.keys()].sort()).toEqual([
      'frames/uploads/theirs.mp4/500.jpg',
      'reels/theirs.jpg',
      'reels/theirs.mp4',
      'uploads/theirs.mp4',
    ]);
    expect((await t.reels.listReels(OWNER, 10, 0)).reels).toEqual([]);
    expect((await t.reels.listReels(OTHER, 10, 0)).reels.map((r) => r.id)).toEqual(['theirs']);
  });
});

describe('deleting a reel', () => {
  const store = async (t: ReturnType<typeof setup>, ...keys: string[]) => {
    for (const k of keys) await t.objects.put(k, Buffer.from(k));
  };

  it("removes the reel's video and thumbnail from storage and from the library, and nothing else", async () => {
    const t = setup();
    await t.reels.addReel(reel('r1'));
    await t.reels.addReel(reel('r2'));
    await store(t, 'reels/r1.mp4', 'reels/r1.jpg', 'reels/r2.mp4', 'reels/r2.jpg', 'uploads/source.mp4');

    await t.reels.deleteReel(OWNER, 'r1');

    expect([...t.objects.files.keys()].sort()).toEqual(['reels/r2.jpg', 'reels/r2.mp4', 'uploads/source.mp4']);
    expect((await t.reels.listReels(OWNER, 10, 0)).reels.map((r) => r.id)).toEqual(['r2']);
  });

  it("leaves another owner's reel and its objects alone", async () => {
    const t = setup();
    await t.reels.addReel(reel('theirs', OTHER));
    await store(t, 'reels/theirs.mp4', 'reels/theirs.jpg');
    expect(await failure(t.reels.deleteReel(OWNER, 'theirs'))).toMatchObject({ code: ErrorCode.NOT_FOUND, reason: 'reel_not_found' });
    expect([...t.objects.files.keys()].sort()).toEqual(['reels/theirs.jpg', 'reels/theirs.mp4']);
  });

  it('when storage fails the reel stays listed, and deleting again finishes', async () => {
    const t = setup();
    await t.reels.addReel({ ...reel('r1'), thumbnailKey: '' });
    await store(t, 'reels/r1.mp4');
    const del = t.objects.delete.bind(t.objects);
    t.objects.delete = async () => {
      throw new Error('storage down');
    };
    await expect(t.reels.deleteReel(OWNER, 'r1')).rejects.toThrow('storage down');
    expect((await t.reels.listReels(OWNER, 10, 0)).total).toBe(1);

    t.objects.delete = del;
    await t.reels.deleteReel(OWNER, 'r1');
    expect(t.objects.files.size).toBe(0);
    expect((await t.reels.listReels(OWNER, 10, 0)).total).toBe(0);
  });
});

describe('reel retention by plan', () => {
  const DAY = 24 * 3600_000;

  it('keeps reels 7 days free, 30/365 days Standard, 90/730 days Mid-Tier, Corporate without limit', () => {
    expect(reelRetentionMs('free', '')).toBe(7 * DAY);
    expect(reelRetentionMs('standard', 'monthly')).toBe(30 * DAY);
    expect(reelRetentionMs('standard', 'yearly')).toBe(365 * DAY);
    expect(reelRetentionMs('mid-tier', 'monthly')).toBe(90 * DAY);
    expect(reelRetentionMs('mid-tier', 'yearly')).toBe(730 * DAY);
    expect(reelRetentionMs('corporate', 'yearly')).toBeNull();
  });

  it('the sweeper deletes reels past their expiry with their objects, and leaves the others', async () => {
    const t = setup();
    const made = new Date('2026-01-01T00:00:00Z');
    await t.reels.addReel(reel('week'), 'free', '', made);
    await t.reels.addReel(reel('month'), 'standard', 'monthly', made);
    await t.reels.addReel(reel('forever'), 'corporate', 'monthly', made);
    for (const id of ['week', 'month', 'forever']) {
      await t.objects.put(`reels/${id}.mp4`, Buffer.from(id));
      await t.objects.put(`reels/${id}.jpg`, Buffer.from(id));
    }
    expect(await t.reels.expireReels(new Date(made.getTime() + 6 * DAY))).toBe(0);
    expect(await t.reels.expireReels(new Date(made.getTime() + 8 * DAY))).toBe(1);
    expect(await t.reels.expireReels(new Date(made.getTime() + 400 * DAY))).toBe(1);
    expect([...t.objects.files.keys()].sort()).toEqual(['reels/forever.jpg', 'reels/forever.mp4']);
    expect((await t.reels.listReels(OWNER, 10, 0)).reels.map((r) => r.id)).toEqual(['forever']);
  });
});
