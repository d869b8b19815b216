import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { billing } from '@reelsmith/proto';
import { dial } from '../../services/kit/src/grpc';
import { Api } from '../support/api';
import { startSystem, type RunningSystem } from '../support/system';

const MEDIA = path.resolve(__dirname, '..', '..', '..', 'shared', 'media');

// One delivery per job: a worker killed mid-render leaves nothing for JetStream to redeliver,
// so only the orchestrator's watchdog can end the job and give the money back.
describe('a job whose worker dies on its last delivery', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'reelsmith-watchdog-'));
  let sys: RunningSystem;
  beforeAll(async () => {
    sys = await startSystem(dataDir, { RENDER_MAX_DELIVER: '1', RENDER_ACK_WAIT_MS: '4000', SWEEP_INTERVAL_MS: '2000' });
  }, 180_000);
  afterAll(async () => {
    await sys?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('ends failed with the spec message and a refund within a minute', async () => {
    const api = new Api(sys.baseUrl, dataDir);
    await api.signUp(`watchdog.${Date.now()}@example.com`);
    const clips = [];
    for (const f of ['car-detection.mp4', 'one-by-one-person-detection.mp4'])
      clips.push((await api.upload(path.join(MEDIA, f))).body.object_key);
    const { body } = await api.call<{ job_id: string }>('POST', '/jobs/assemble', { media_files: clips, pacing_preset: 'high-energy' });
    await api.waitForStatus(body.job_id, (s) => s.status === 'processing', 60_000);
    process.kill(sys.state().processes['render-worker']!.pid!, 'SIGKILL');
    const killedAt = Date.now();

    const done = await api.waitForStatus(body.job_id, (s) => s.status !== 'processing', 60_000);
    expect(done).toMatchObject({
      status: 'failed',
      message: 'Something went wrong. Please try again or contact support.',
      download_url: null,
    });
    expect(Date.now() - killedAt).toBeLessThan(60_000);
    // The free video it held is back: the refund follows the failure as an event, so within moments.
    const freeAgain = async () => !(await api.call<{ user: { daily_free_used: boolean } }>('GET', '/auth/me')).body.user.daily_free_used;
    const until = Date.now() + 30_000;
    while (!(await freeAgain()) && Date.now() < until) await new Promise((r) => setTimeout(r, 500));
    expect(await freeAgain()).toBe(true);
  }, 240_000);

  it('refuses internal calls from a local process without the service token', async () => {
    const client = dial(billing.BillingService, `127.0.0.1:${sys.state().ports['billing']!.grpc}`, { deadlineMs: 5000 });
    try {
      await expect(
        client.grant({ userId: crypto.randomUUID(), credits: 1_000_000n, idempotencyKey: `stray-${Date.now()}`, reason: 'stray process' }),
      ).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
    } finally {
      client.close();
    }
  });
});
