import { bind, describeHandler } from '@reelsmith/kit';
import { identity } from '@reelsmith/proto';

/** gRPC handlers of identity: thin, one call into the domain per handler. */
export const grpcBinding = () => bind(identity.IdentityService, { describe: describeHandler('identity') });
