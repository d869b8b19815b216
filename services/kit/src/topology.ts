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
