import { quietLogger } from '@reelsmith/kit/testing';
import { MediaService } from '../../src/domain/media.service';
import { ReelsService, type DeletionFacts } from '../../src/domain/reels.service';
import { OWNER, reel, setup } from './media.fakes';

/** Facts as published, each with what storage and the list held at that moment. */
function recording(t: ReturnType<typeof setup>) {
  const seen: Array<{ fact: string; objects: number; listed: number }> = [];
  const at = async (fact: string) =>
    void seen.push({ fact, objects: t.objects.files.size, listed: (await t.repo.listReels(OWNER, 100, 0)).total });
  const facts: DeletionFacts = {
    reelDeleted: (ownerId, id) => at(`reel_deleted ${ownerId} ${id}`),
    userDataDeleted: (ownerId) => at(`user_data_deleted ${ownerId}`),
  };
  return { seen, facts };
}

describe('deletions are published for the gateways (events.media.*)', () => {
  it("a reel's deletion: after its objects are gone, before it leaves the list (a failed publish is finished by deleting again)", async () => {
    const t = setup();
    const r = recording(t);
    const reels = new ReelsService(t.repo, t.objects, quietLogger(), r.facts);
    await reels.addReel(reel('r1'));
    await t.objects.put('reels/r1.mp4', Buffer.from('v'));
    await reels.deleteReel(OWNER, 'r1');
    expect(r.seen).toEqual([{ fact: `reel_deleted ${OWNER} r1`, objects: 0, listed: 1 }]);
  });

  it('each reel the retention sweep deletes', async () => {
    const t = setup();
    const r = recording(t);
    const reels = new ReelsService(t.repo, t.objects, quietLogger(), r.facts);
    const made = new Date('2026-01-01T00:00:00Z');
    await reels.addReel(reel('old'), 'free', '', made);
    await reels.addReel(reel('kept'), 'corporate', 'monthly', made);
    expect(await reels.expireReels(new Date(made.getTime() + 30 * 24 * 3600_000))).toBe(1);
    expect(r.seen.map((s) => s.fact)).toEqual([`reel_deleted ${OWNER} old`]);
  });

  it("a user's data: once, after their objects are gone", async () => {
    const t = setup();
    const r = recording(t);
    const reels = new ReelsService(t.repo, t.objects, quietLogger());
    const service = new MediaService(t.repo, t.objects, t.tools, quietLogger(), { facts: r.facts });
    await reels.addReel(reel('r1'));
    await t.objects.put('reels/r1.mp4', Buffer.from('v'));
    await service.deleteUserData(OWNER);
    expect(r.seen).toEqual([{ fact: `user_data_deleted ${OWNER}`, objects: 0, listed: 1 }]);
  });
});
