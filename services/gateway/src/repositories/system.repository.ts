import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { dial, type Bus, type Database, type ObjectStore } from '@reelsmith/kit';
import { common, streams } from '@reelsmith/proto';
import type { ServiceProbe } from '../domain/detailed-health.js';

const since = (t0: bigint) => Number(process.hrtime.bigint() - t0) / 1e6;

/** Asks every other service's Probe (its own database, timed) and pings the gateway's own. */
export async function probeServices(
  addresses: Record<string, string>,
  own: { db: Database; version: string },
  timeoutMs: number,
  restarts: Record<string, number>,
): Promise<ServiceProbe[]> {
  const t0 = process.hrtime.bigint();
  const ownDb = await own.db.ping().then(
    () => true,
    () => false,
  );
  const gateway: ServiceProbe = { name: 'gateway', up: true, databaseOk: ownDb, databaseMs: since(t0), version: own.version };
  const others = await Promise.all(
    Object.entries(addresses).map(async ([name, address]): Promise<ServiceProbe> => {
      const client = dial(common.ProbeService, address, { deadlineMs: timeoutMs });
      try {
        const r = await client.probe({});
        return {
          name,
          up: true,
          databaseOk: r.databaseOk,
          databaseMs: r.databaseMs,
          version: r.info?.version ?? '',
          restarts: restarts[name],
        };
      } catch {
        return { name, up: false, databaseOk: false, databaseMs: 0, version: '', restarts: restarts[name] };
      } finally {
        client.close();
      }
    }),
  );
  return [{ ...gateway, restarts: restarts['gateway'] }, ...others];
}

/** A real write, read back and delete of a small probe object. */
export async function probeStorage(store: ObjectStore): Promise<{ ok: boolean; ms: number }> {
  const t0 = process.hrtime.bigint();
  const key = `health/probe-${crypto.randomUUID()}.txt`;
  const body = Buffer.from(`probe ${Date.now()}`);
  try {
    await store.put(key, body, { contentType: 'text/plain' });
    const chunks: Buffer[] = [];
    for await (const c of await store.get(key)) chunks.push(c as Buffer);
    const ok = Buffer.concat(chunks).equals(body);
    await store.delete(key);
    return { ok, ms: since(t0) };
  } catch {
    await store.delete(key).catch(() => undefined);
    return { ok: false, ms: since(t0) };
  }
}

const cpuTimes = () =>
  os.cpus().reduce((a, c) => ({ idle: a.idle + c.times.idle, total: a.total + Object.values(c.times).reduce((x, y) => x + y, 0) }), {
    idle: 0,
    total: 0,
  });

/** CPU (sampled over `sampleMs`), memory and disk use of the host (or pod) the gateway runs on. */
export async function systemResources(dataDir: string, sampleMs = 200) {
  const a = cpuTimes();
  await new Promise((r) => setTimeout(r, sampleMs));
  const b = cpuTimes();
  const total = b.total - a.total;
  const cpuPercent = total > 0 ? (100 * (total - (b.idle - a.idle))) / total : 0;
  const memoryPercent = (100 * (os.totalmem() - os.freemem())) / os.totalmem();
  let diskPercent = 0;
  try {
    const dir = fs.existsSync(dataDir) ? dataDir : path.parse(path.resolve(dataDir)).root;
    const s = await fs.promises.statfs(dir);
    diskPercent = s.blocks ? (100 * (s.blocks - s.bavail)) / s.blocks : 0;
  } catch {
    diskPercent = 0;
  }
  return { cpuPercent, memoryPercent, diskPercent };
}

/** Restart counts kept by `npm start`'s supervisor (absent in a cluster, where the kubelet counts). */
export function supervisorRestarts(dataDir: string): Record<string, number> {
  try {
    const s = JSON.parse(fs.readFileSync(path.join(dataDir, 'run', 'supervisor.json'), 'utf8')) as {
      processes?: Record<string, { restarts?: number }>;
    };
    return Object.fromEntries(Object.entries(s.processes ?? {}).map(([k, v]) => [k, v.restarts ?? 0]));
  } catch {
    return {};
  }
}

/** Render jobs waiting for a worker and being rendered (the workers' durable consumer). */
export const renderQueue = (bus: Bus) => bus.queueDepth(streams.RENDER, 'render-workers');
