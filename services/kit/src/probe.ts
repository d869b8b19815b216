import { create } from '@bufbuild/protobuf';
import { common } from '@reelsmith/proto';
import type { Bus } from './bus.js';
import type { Database } from './db.js';
import { bind, type ServiceBinding } from './grpc.js';

const startedAt = BigInt(Date.now());

async function timed(fn: () => Promise<void>, timeoutMs: number): Promise<{ ok: boolean; ms: number }> {
  const t0 = process.hrtime.bigint();
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([fn(), new Promise((_, reject) => (timer = setTimeout(() => reject(new Error('timeout')), timeoutMs)))]);
    return { ok: true, ms: Number(process.hrtime.bigint() - t0) / 1e6 };
  } catch {
    return { ok: false, ms: Number(process.hrtime.bigint() - t0) / 1e6 };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The Probe RPC every service answers (the kit registers it): its own database and NATS, each
 * pinged now and timed, for the admin's detailed health. Internal calls only.
 */
export function probeBinding(name: string, db: Database, bus: Bus, version = '0.1.0', timeoutMs = 2000): ServiceBinding {
  return bind(common.ProbeService, {
    probe: async () => {
      const [database, nats] = await Promise.all([timed(() => db.ping(), timeoutMs), timed(() => bus.ping(), timeoutMs)]);
      return {
        info: create(common.ServiceInfoSchema, { name, version, startedAtUnixMs: startedAt }),
        databaseOk: database.ok,
        databaseMs: database.ms,
        natsOk: nats.ok,
        natsMs: nats.ms,
      };
    },
  });
}
