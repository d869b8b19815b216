import { bind, describeHandler } from '@reelsmith/kit';
import { telemetry } from '@reelsmith/proto';

/** gRPC handlers of telemetry: thin, one call into the domain per handler. */
export const grpcBinding = () => bind(telemetry.TelemetryService, { describe: describeHandler('telemetry') });
