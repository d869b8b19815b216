import type { ServingStatus } from '@reelsmith/kit';

export interface HealthReport {
  status: 'healthy' | 'unhealthy';
  services: Record<string, ServingStatus>;
  /** The services that are not SERVING, by name. */
  unavailable: string[];
}

/** Healthy only when every service answers SERVING. */
export function rollUp(statuses: Record<string, ServingStatus>): HealthReport {
  const unavailable = Object.entries(statuses)
    .filter(([, s]) => s !== 'SERVING')
    .map(([n]) => n);
  return { status: unavailable.length ? 'unhealthy' : 'healthy', services: statuses, unavailable };
}
