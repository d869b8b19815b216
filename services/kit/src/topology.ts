import fs from 'node:fs';
import path from 'node:path';

/** The eight services of Reelsmith and how a process finds the others (an env var per peer). */
export const SERVICE_NAMES = [
  'gateway',
  'identity',
  'billing',
  'media-library',
  'assembly-orchestrator',
  'render-worker',
  'marketplace',
  'telemetry',
] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];

/** e.g. media-library -> MEDIA_LIBRARY_GRPC_ADDR */
export const grpcAddrVar = (name: ServiceName) => `${name.toUpperCase().replace(/-/g, '_')}_GRPC_ADDR`;

/** Whether process `pid` is running (a process of another user counts). */
export function processAlive(pid: number | null | undefined): boolean {
  if (!pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The gRPC port of `service` in the `npm start` running on `dataDir`, from its supervisor's state
 * file (`run/supervisor.json`), while the supervisor and that service are alive: where an
 * operator's command (admin:grant, library:import) sends its change instead of opening the
 * service's database itself.
 */
export function runningServicePort(dataDir: string, service: ServiceName): number | undefined {
  try {
    const s = JSON.parse(fs.readFileSync(path.join(dataDir, 'run', 'supervisor.json'), 'utf8')) as {
      pid?: number;
      processes?: Record<string, { pid: number | null }>;
      ports?: Record<string, { grpc: number }>;
    };
    const port = s.ports?.[service]?.grpc;
    return port && processAlive(s.pid) && processAlive(s.processes?.[service]?.pid) ? port : undefined;
  } catch {
    return undefined;
  }
}
