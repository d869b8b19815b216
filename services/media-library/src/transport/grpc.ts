import { bind, describeHandler } from '@reelsmith/kit';
import { media } from '@reelsmith/proto';

/** gRPC handlers of media-library: thin, one call into the domain per handler. */
export const grpcBinding = () => bind(media.MediaLibraryService, { describe: describeHandler('media-library') });
