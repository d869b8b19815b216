import { bind, describeHandler } from '@reelsmith/kit';
import { assembly } from '@reelsmith/proto';

/** gRPC handlers of assembly-orchestrator: thin, one call into the domain per handler. */
export const grpcBinding = () => bind(assembly.AssemblyOrchestratorService, { describe: describeHandler('assembly-orchestrator') });
