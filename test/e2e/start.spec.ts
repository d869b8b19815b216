import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isAlive, ROOT, startSystem } from '../support/system';

const EIGHT = ['gateway', 'identity', 'billing', 'media-library', 'assembly-orchestrator', 'render-worker', 'marketplace', 'telemetry'];

async function health(base: string) {
  const res = await fetch(`${base}/api/v1/health`);
  return {
    status: res.status,
    body: (await res.json()) as { status: string; services: Record<string, string>; unavailable?: string[]; instance: string },
  };
}

async function until<T>(fn: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 300));
  }
}

/**
 * A starter library of one song and one clip from `media/starter`, folders and licences as there:
 * the product imports it in the background on its first start, as `npm start` imports the whole
 * starter library (16 analyses, about 30 s of both cores, which nothing here looks at).
 */
function smallStarter(into: string): Record<string, string> {
  for (const file of ['cinematic/First Light.mp3', 'people/office-walk-in-1.mp4']) {
    fs.mkdirSync(path.join(into, path.dirname(file)), { recursive: true });
    for (const f of [file, `${file}.LICENSE.txt`]) fs.copyFileSync(path.join(ROOT, 'media', 'starter', f), path.join(into, f));
  }
  return { LIBRARY_STARTER_DIR: into };
}

describe('npm start: the whole product on embedded defaults', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'reelsmith-e2e-'));
  const starterDir = fs.mkdtempSync(path.join(os.tmpdir(), 'reelsmith-starter-'));
  const STARTER = smallStarter(starterDir);
  afterAll(() => {
    fs.rmSync(dataDir, { recursive: true, force: true });
    fs.rmSync(starterDir, { recursive: true, force: true });
  });

  it('serves, survives a crashed service, stops cleanly and keeps its data', async () => {
    const sys = await startSystem(dataDir, STARTER, { database: 'embedded' });
    let pids: number[] = [];
    let firstInstance = '';
    try {
      // All eight services SERVING.
      const first = await health(sys.baseUrl);
      expect(first.status).toBe(200);
      expect(first.body.status).toBe('healthy');
      expect(Object.keys(first.body.services).sort()).toEqual([...EIGHT].sort());
      expect(Object.values(first.body.services).every((s) => s === 'SERVING')).toBe(true);
      firstInstance = first.body.instance;
      expect(firstInstance).toMatch(/^[0-9a-f-]{36}$/);

      // The web app is served at the same URL, client routes included.
      const page = await fetch(`${sys.baseUrl}/hall-of-fame`);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('<div id="root">');

      // Billing through the gateway: the estimate uses the one cost formula; bad input gets 400.
      const post = (body: unknown) =>
        fetch(`${sys.baseUrl}/api/v1/billing/estimate`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
      const est = await post({ pacing_preset: 'standard', has_music: true, total_source_bytes: 600 * 1024 * 1024 });
      expect(est.status).toBe(200);
      expect(await est.json()).toEqual({ credits: 63 });
      // Priced by length: a 12-minute reel adds 10 credits for each of its 9 minutes beyond the third.
      const long = await post({ pacing_preset: 'standard', has_music: false, total_source_bytes: 0, output_seconds: 720 });
      expect(await long.json()).toEqual({ credits: 120 });
      const bad = await post({ pacing_preset: 'frantic', has_music: true, total_source_bytes: 0 });
      expect(bad.status).toBe(400);
      expect(await bad.json()).toMatchObject({ code: 'invalid_request', detail: expect.stringContaining('pacing_preset') });
      const catalogue = (await (await fetch(`${sys.baseUrl}/api/v1/billing/catalogue`)).json()) as {
        plans: { id: string }[];
        packs: { id: string; price: number }[];
      };
      expect(catalogue.plans.map((p) => p.id)).toEqual(['standard', 'mid-tier', 'corporate']);
      expect(catalogue.packs.map((p) => [p.id, p.price])).toEqual([
        ['credits_200', 10],
        ['credits_400', 20],
        ['credits_1000', 40],
        ['credits_2500', 80],
      ]);

      const state = sys.state();
      expect(Object.keys(state.processes)).toEqual(expect.arrayContaining([...EIGHT, 'nats-server']));

      // Every service serves Prometheus metrics and its probes on its ops port.
      const ports = (state as unknown as { ports: Record<string, { ops: number }> }).ports;
      for (const name of EIGHT) {
        const metrics = await (await fetch(`http://127.0.0.1:${ports[name]!.ops}/metrics`)).text();
        expect([name, metrics.includes('process_cpu_seconds_total'), metrics.includes('grpc_server_handling_seconds')]).toEqual([
          name,
          true,
          true,
        ]);
        expect((await fetch(`http://127.0.0.1:${ports[name]!.ops}/readyz`)).status).toBe(200);
        expect((await fetch(`http://127.0.0.1:${ports[name]!.ops}/livez`)).status).toBe(200);
      }

      // Kill one service: health turns 503 naming it, and the supervisor brings it back.
      const victim = state.processes.billing!.pid!;
      process.kill(victim, 'SIGKILL');
      const down = await until(async () => {
        const h = await health(sys.baseUrl);
        return h.status === 503 ? h : undefined;
      }, 15_000);
      expect(down.body.unavailable).toEqual(['billing']);
      expect(down.body.services.billing).toBe('NOT_SERVING');
      await until(async () => ((await health(sys.baseUrl)).status === 200 ? true : undefined), 60_000);
      const after = sys.state();
      expect(after.processes.billing!.pid).not.toBe(victim);
      expect(after.processes.billing!.restarts).toBe(1);

      pids = [after.pid, ...Object.values(after.processes).map((p) => p.pid!)];
      expect(pids.every(isAlive)).toBe(true);
    } finally {
      // Ctrl-C: everything it started stops.
      expect(await sys.stop('SIGINT')).toBe(0);
    }
    // Everything it started is gone (checked until true, not after a guessed pause).
    await until(async () => (pids.some(isAlive) ? undefined : true), 5_000).catch(() => undefined);
    expect(pids.filter(isAlive)).toEqual([]);

    // A second start reuses the same data: same installation, no re-initialisation.
    const again = await startSystem(dataDir, STARTER, { database: 'embedded' });
    try {
      const h = await health(again.baseUrl);
      expect(h.status).toBe(200);
      expect(h.body.instance).toBe(firstInstance);
      expect(fs.existsSync(path.join(dataDir, 'nats', 'jetstream'))).toBe(true);
    } finally {
      expect(await again.stop('SIGTERM')).toBe(0);
    }
  }, 300_000);
});
