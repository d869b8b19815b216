import { bind, describeHandler } from '@reelsmith/kit';
import { render } from '@reelsmith/proto';

/** gRPC handlers of render-worker: thin, one call into the domain per handler. */
export const grpcBinding = () => bind(render.RenderWorkerService, { describe: describeHandler('render-worker') });
