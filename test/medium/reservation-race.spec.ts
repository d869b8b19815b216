import path from 'node:path';
import { tempDir } from '@reelsmith/kit/testing';
import type { Peers } from '../../services/gateway/src/repositories/clients';
import { startJobStack, type Json, type JobStack } from '../support/job-stack';
import { ffmpeg as ff } from '../support/media';

const SECRET = 'reservation-race-signing-secret-0123456';

/**
 * 30 submits of the same user at once, through the gateway with its rate limit raised, against
 * the real billing, media-library and orchestrator on PostgreSQL: the reservation is what decides,
 * and it lets exactly as many jobs through as the account can pay for.
 */
describe('the reservation race: 30 concurrent submits, rate limit raised', () => {
  const data = tempDir('reservation-race');
  let stack: JobStack;
  let peers: Peers;
  let base: string;
  const signIn = () => stack.signIn();

  beforeAll(async () => {
    stack = await startJobStack({
      dataDir: data.dir,
      signingSecret: SECRET,
      metricsName: 'gateway_reservation_race',
      // The per-user limit (10 submits a minute) would answer most of the burst with 429 before
      // billing sees it: raised here so all 30 really race for the reservation.
      rateLimitMax: 1000,
    });
    ({ peers, base } = stack);
  }, 180_000);

  afterAll(async () => {
    await stack?.stop();
    data.remove();
  });

  const upload = (token: string, file: string) => stack.upload(token, file);

  let clip = '';
  const burst = async (token: string, tag: string) => {
    const statuses = await Promise.all(
      Array.from({ length: 30 }, async (_, i) => {
        const r = await fetch(`${base}/api/v1/jobs/assemble`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': `${tag}-${i}` },
          body: JSON.stringify({ media_files: [clip], pacing_preset: 'standard' }),
        });
        return r.status;
      }),
    );
    const count = (s: number) => statuses.filter((x) => x === s).length;
    return { accepted: count(200), unpaid: count(402), limited: count(429), other: statuses.filter((s) => ![200, 402, 429].includes(s)) };
  };
  const account = async (token: string) => (await peers.billing.getAccount({ userId: stack.userId(token) })).account!;

  it('a free account: exactly one job takes the daily free video, 29 are refused with 402, none with 429', async () => {
    const token = signIn();
    const file = path.join(data.dir, 'race.mp4');
    ff('-f', 'lavfi', '-i', 'testsrc2=s=160x120:r=25:d=3', '-c:v', 'libx264', '-pix_fmt', 'yuv420p', file);
    clip = (await upload(token, file)).object_key as string;

    expect(await burst(token, 'free')).toEqual({ accepted: 1, unpaid: 29, limited: 0, other: [] });
    const a = await account(token);
    expect(a.dailyFreeUsed).toBe(true);
    expect(Number(a.credits)).toBe(0);
  }, 120_000);

  it('credits for three jobs: exactly three are reserved, the balance ends at 0, never below', async () => {
    const token = signIn();
    // The clip belongs to the first user: this one uploads its own copy.
    clip = (await upload(token, path.join(data.dir, 'race.mp4'))).object_key as string;
    const userId = stack.userId(token);
    // The daily free video goes first (one submit), then credits for exactly three more.
    expect((await burst(token, 'free')).accepted).toBe(1);
    const plan = await fetch(`${base}/api/v1/jobs/plan`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ media_files: [clip], pacing_preset: 'standard' }),
    });
    const cost = ((await plan.json()) as Json).estimate.credits as number;
    expect(cost).toBeGreaterThan(0);
    await peers.billing.grant({ userId, credits: BigInt(cost * 3), idempotencyKey: `race-${userId}`, reason: 'test' });

    expect(await burst(token, 'paid')).toEqual({ accepted: 3, unpaid: 27, limited: 0, other: [] });
    expect(Number((await account(token)).credits)).toBe(0);
    const { jobs } = await peers.jobs.listJobs({ ownerId: userId, activeOnly: false, limit: 100 });
    expect(jobs).toHaveLength(4);
  }, 120_000);
});
