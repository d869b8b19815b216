/**
 * What the engine knows of an input after ffprobe. Its one definition is the protobuf message
 * `reelsmith.engine.v1.ProbedMedia` (proto/reelsmith/engine/v1/probe.proto): the engine's
 * `MediaInfo` is this plus the file's local path, and a chunk task carries it as that message.
 */
import type * as pb from './gen/reelsmith/engine/v1/probe_pb.js';
import type { Plain } from './plain.js';

/** A probed input without its path (the `ProbedMedia` message as a plain object). */
export type ProbedMedia = Plain<pb.ProbedMedia>;
