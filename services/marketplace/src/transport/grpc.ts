import { bind, describeHandler } from '@reelsmith/kit';
import { marketplace } from '@reelsmith/proto';

/** gRPC handlers of marketplace: thin, one call into the domain per handler. */
export const grpcBinding = () => bind(marketplace.MarketplaceService, { describe: describeHandler('marketplace') });
