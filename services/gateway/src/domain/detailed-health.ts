/**
 * The admin's detailed health, from what each part reported (no I/O here): every service's own
 * database (the worst one counts), a real write/read/delete on storage, the host's resources and
 * the render queue.
 */
export type Status = 'healthy' | 'warning' | 'unhealthy';

export interface ServiceProbe {
  name: string;
  /** Answered its Probe call at all. */
  up: boolean;
  databaseOk: boolean;
  databaseMs: number;
  version: string;
  restarts?: number;
}

export interface DetailedHealthInput {
  services: ServiceProbe[];
  storage: { ok: boolean; ms: number };
  system: { cpuPercent: number; memoryPercent: number; diskPercent: number };
  queue: { pending: number; inProgress: number; deadLettered: number };
}

/** Above these the dashboard shows a warning (yellow) instead of healthy. */
export const WARN = { responseMs: 1000, resourcePercent: 90 } as const;

const worst = (...s: Status[]): Status => (s.includes('unhealthy') ? 'unhealthy' : s.includes('warning') ? 'warning' : 'healthy');
const timing = (ok: boolean, ms: number): Status => (!ok ? 'unhealthy' : ms > WARN.responseMs ? 'warning' : 'healthy');
const r1 = (x: number) => Math.round(x * 10) / 10;

export function detailedHealth(i: DetailedHealthInput) {
  const up = i.services.filter((s) => s.up);
  const dbOk = up.length === i.services.length && up.every((s) => s.databaseOk);
  const dbMs = Math.max(0, ...up.map((s) => s.databaseMs));
  const database = { status: timing(dbOk, dbMs), response_time_ms: r1(dbMs) };
  const s3 = { status: timing(i.storage.ok, i.storage.ms), response_time_ms: r1(i.storage.ms) };
  const { cpuPercent, memoryPercent, diskPercent } = i.system;
  const resources: Status = Math.max(cpuPercent, memoryPercent, diskPercent) > WARN.resourcePercent ? 'warning' : 'healthy';
  const services = i.services.map((s) => ({
    name: s.name,
    status: (!s.up ? 'unhealthy' : s.databaseOk ? 'healthy' : 'unhealthy') as Status,
    ...(s.restarts === undefined ? {} : { restarts: s.restarts }),
    version: s.version || 'unknown',
  }));
  const queueStatus: Status = i.queue.deadLettered > 0 ? 'warning' : 'healthy';
  return {
    overall_status: worst(database.status, s3.status, resources, queueStatus, ...services.map((s) => s.status)),
    checks: {
      database,
      s3_storage: s3,
      system: { cpu_percent: r1(cpuPercent), memory_percent: r1(memoryPercent), disk_percent: r1(diskPercent) },
    },
    services,
    queue: { pending: i.queue.pending, in_progress: i.queue.inProgress, dead_lettered: i.queue.deadLettered },
  };
}
export type DetailedHealth = ReturnType<typeof detailedHealth>;
