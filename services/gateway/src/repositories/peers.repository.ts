import { SERVICE_NAMES, checkRemoteHealth, grpcAddrVar, type ServiceName, type ServingStatus } from '@reelsmith/kit';

/** Addresses of the other seven services, from configuration. */
export function peerAddresses(config: Record<string, unknown>): Record<Exclude<ServiceName, 'gateway'>, string> {
  const out: Record<string, string> = {};
  for (const n of SERVICE_NAMES) if (n !== 'gateway') out[n] = String(config[grpcAddrVar(n)]);
  return out as Record<Exclude<ServiceName, 'gateway'>, string>;
}

/** Asks each peer's standard gRPC health service, in parallel. */
export async function peerStatuses(addresses: Record<string, string>, timeoutMs: number): Promise<Record<string, ServingStatus>> {
  const entries = await Promise.all(Object.entries(addresses).map(async ([n, a]) => [n, await checkRemoteHealth(a, timeoutMs)] as const));
  return Object.fromEntries(entries);
}
