/** Typed failures of the engine: bad input is a result with a clear message, never a crash. */
export const EngineErrorCode = {
  INPUT_NOT_FOUND: 'INPUT_NOT_FOUND',
  INPUT_EMPTY: 'INPUT_EMPTY',
  NOT_MEDIA: 'NOT_MEDIA',
  NO_VIDEO: 'NO_VIDEO',
  NO_AUDIO: 'NO_AUDIO',
  LIMIT_EXCEEDED: 'LIMIT_EXCEEDED',
  INVALID_SETTINGS: 'INVALID_SETTINGS',
  RENDER_FAILED: 'RENDER_FAILED',
  TIMEOUT: 'TIMEOUT',
  CANCELLED: 'CANCELLED',
} as const;
export type EngineErrorCode = (typeof EngineErrorCode)[keyof typeof EngineErrorCode];

// Shaped like the kit's DomainError on purpose: the engine is a standalone package (CLI, benches) without the kit.
export class EngineError extends Error {
  override readonly name = 'EngineError';
  constructor(
    readonly code: EngineErrorCode,
    message: string,
    /** The input the error is about, when there is one. */
    readonly input?: string,
  ) {
    super(message);
  }
}

/** The error of work stopped by its caller's signal (a cancel, a worker shutting down). */
export const cancelledError = () => new EngineError('CANCELLED', 'render cancelled');

export const isEngineError = (e: unknown): e is EngineError => e instanceof EngineError;
