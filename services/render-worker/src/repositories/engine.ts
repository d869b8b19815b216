import {
  joinChunks,
  parseSettings,
  planBatches,
  prepare,
  prepareTitle,
  probe,
  renderAudioTrack,
  renderChunk,
  renderLimits,
  renderReel,
  thumbnailTime,
} from '@reelsmith/engine';
import { planFromWire } from '@reelsmith/proto';
import type { EngineCalls } from '../domain/render.ports.js';

/** The render engine (ffmpeg, probes, analyses) as the render services call it. */
export const engineCalls: EngineCalls = {
  prepare,
  renderReel,
  planBatches,
  thumbnailTime,
  renderLimits,
  renderAudioTrack,
  joinChunks,
  renderChunk,
  prepareTitle,
  parseSettings,
  probe,
  planOf: (request) => (request.plan ? planFromWire(request.plan) : undefined),
};
