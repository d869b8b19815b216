import { bind, describeHandler } from '@reelsmith/kit';
import { billing } from '@reelsmith/proto';

/** gRPC handlers of billing: thin, one call into the domain per handler. */
export const grpcBinding = () => bind(billing.BillingService, { describe: describeHandler('billing') });
