import { quietLogger } from '@reelsmith/kit/testing';
import { answerMessage } from '../../src/domain/clip-states';
import {
  MarketplaceService,
  type ClipRecord,
  type MarketplaceRepository,
  type MarketplaceTx,
  type PayoutRecord,
} from '../../src/domain/marketplace.service';

/** In-memory storage: one transaction at a time, as the row lock makes it for one clip. */
function fakes() {
  const clips = new Map<string, ClipRecord>();
  const payouts = new Map<string, PayoutRecord>();
  const events: Array<{ subject: string; msgId: string }> = [];
  const objects = new Map<string, Buffer>();
  const grants: Array<{ userId: string; credits: number; key: string }> = [];
  let queue = Promise.resolve();
  const tx: MarketplaceTx = {
    lockClip: async (id) => (clips.has(id) ? { ...clips.get(id)! } : null),
    updateClip: async (id, f) => {
      const c = { ...clips.get(id)!, ...f };
      clips.set(id, c);
      return { ...c };
    },
    insertPayout: async (p) => void payouts.set(p.id, p),
    lockPayout: async (id) => payouts.get(id) ?? null,
    markPayoutPaid: async (id, at) => {
      const p = { ...payouts.get(id)!, state: 'paid' as const, paidAt: at };
      payouts.set(id, p);
      return p;
    },
    emit: async (subject, _m, msgId) => void events.push({ subject, msgId }),
  };
  const repo: MarketplaceRepository = {
    clipByUploadKey: async (k) => [...clips.values()].find((c) => c.uploadKey === k) ?? null,
    insertClip: async (c) => {
      if ([...clips.values()].some((x) => x.uploadKey === c.uploadKey)) return false;
      clips.set(c.id, c);
      return true;
    },
    clip: async (id) => clips.get(id) ?? null,
    clips: async () => [...clips.values()].filter((c) => c.status !== 'removed'),
    openOffers: async (u) => [...clips.values()].filter((c) => c.userId === u && c.status.endsWith('_offered')),
    pendingGrants: async () => [...clips.values()].filter((c) => c.grantState === 'pending'),
    payouts: async () => [...payouts.values()],
    transaction: <T>(fn: (t: MarketplaceTx) => Promise<T>) => {
      const run = queue.then(() => fn(tx));
      queue = run.then(
        () => undefined,
        () => undefined,
      );
      return run;
    },
  };
  let n = 0;
  const svc = new MarketplaceService(
    repo,
    {
      copy: async (from, to) => {
        const b = objects.get(from);
        if (!b) return null;
        objects.set(to, b);
        return { size: b.length };
      },
      delete: async (k) => void objects.delete(k),
    },
    { email: async () => 'owner@example.com' },
    { grant: async (userId, credits, key) => void grants.push({ userId, credits, key }) },
    { offerMade: async () => undefined },
    {
      clip: () => `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`,
      payout: () => `10000000-0000-4000-8000-${String(++n).padStart(12, '0')}`,
    },
    quietLogger(),
  );
  return { svc, clips, payouts, events, objects, grants };
}

const OWNER = '20000000-0000-4000-8000-000000000001';
const optIn = (uploadKey = 'uploads/a/clip.mp4') => ({
  uploadKey,
  userId: OWNER,
  jobId: '30000000-0000-4000-8000-000000000001',
  filename: 'clip.mp4',
  sizeBytes: 3,
  thumbnailKey: '',
  consentedAt: new Date('2026-11-23T10:00:00Z'),
});

describe('MarketplaceService', () => {
  it('records an opted-in upload once, in its own copy; a vanished upload is not recorded', async () => {
    const f = fakes();
    f.objects.set('uploads/a/clip.mp4', Buffer.from('abc'));
    expect(await f.svc.optIn(optIn())).toBe('recorded');
    expect(await f.svc.optIn(optIn())).toBe('duplicate');
    const [clip] = (await f.svc.list()).clips;
    expect(clip).toMatchObject({
      status: 'pending',
      userEmail: 'owner@example.com',
      objectKey: expect.stringMatching(/^marketplace\/clips\/.+\.mp4$/),
    });
    expect(await f.svc.optIn(optIn('uploads/a/gone.mp4'))).toBe('missing');
    expect((await f.svc.list()).total).toBe(1);
  });

  it('offers default to $0.10 and 50 credits, refuse silly amounts and non-pending clips', async () => {
    const f = fakes();
    f.objects.set('uploads/a/clip.mp4', Buffer.from('abc'));
    await f.svc.optIn(optIn());
    const id = [...f.clips.keys()][0]!;
    await expect(f.svc.makeOffer(id, 'cash', 0)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(f.svc.makeOffer(id, 'credits', 2.5)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(await f.svc.makeOffer(id, 'cash')).toMatchObject({ status: 'cash_offered', cashCents: 10, credits: 0 });
    await expect(f.svc.makeOffer(id, 'credits')).rejects.toMatchObject({
      code: 'FAILED_PRECONDITION',
      message: 'Only pending clips can receive offers.',
    });
  });

  it('an answer counts once: repeats answer the same, a different answer is refused, a stranger gets not found', async () => {
    const f = fakes();
    f.objects.set('uploads/a/clip.mp4', Buffer.from('abc'));
    await f.svc.optIn(optIn());
    const id = [...f.clips.keys()][0]!;
    await f.svc.makeOffer(id, 'credits', 50);
    await expect(f.svc.answer('20000000-0000-4000-8000-000000000009', id, true)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(f.svc.answer(OWNER, id, true, 'cash')).rejects.toMatchObject({ code: 'FAILED_PRECONDITION' });
    const results = await Promise.all([1, 2, 3].map(() => f.svc.answer(OWNER, id, true, 'credits')));
    expect(results.filter((r) => r.applied)).toHaveLength(1);
    for (const r of results) expect(r.message).toBe(answerMessage(true, 'credits', 0, 50));
    expect(f.grants).toEqual([{ userId: OWNER, credits: 50, key: `marketplace-offer:${id}` }]);
    expect(f.clips.get(id)).toMatchObject({ status: 'purchased', grantState: 'granted' });
    await expect(f.svc.answer(OWNER, id, false)).rejects.toMatchObject({ code: 'FAILED_PRECONDITION' });
    expect(f.events.map((e) => e.subject)).toEqual([
      'events.marketplace.offer_made',
      'events.marketplace.offer_answered',
      'events.marketplace.clip_purchased',
    ]);
  });

  it('accepting cash records a pending payout; Remove drops the stored copy', async () => {
    const f = fakes();
    f.objects.set('uploads/a/clip.mp4', Buffer.from('abc'));
    await f.svc.optIn(optIn());
    const id = [...f.clips.keys()][0]!;
    await f.svc.makeOffer(id, 'cash', 25);
    expect((await f.svc.answer(OWNER, id, true, 'cash')).message).toBe(
      'Offer accepted! Your $0.25 payout has been recorded and will be paid to you.',
    );
    const [p] = await f.svc.payouts();
    expect(p).toMatchObject({ clipId: id, amountCents: 25, state: 'pending' });
    expect((await f.svc.markPaid(p!.id)).state).toBe('paid');
    expect(f.grants).toEqual([]);
    const key = f.clips.get(id)!.objectKey;
    await f.svc.remove(id);
    expect(f.objects.has(key)).toBe(false);
    expect(f.objects.has('uploads/a/clip.mp4')).toBe(true);
    expect((await f.svc.list()).total).toBe(0);
  });
});
