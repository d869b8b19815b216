/**
 * `@reelsmith/engine/plan`: the engine's pure half, for services that plan but never render (the
 * orchestrator's plan preview and its checks before a job is priced). It loads no ffmpeg runner,
 * probe, analysis or aubio module: only the planner, plan checks and re-rolls, the render
 * settings' schema, the engine's errors and the analysis versions and types plans are made from.
 * `@reelsmith/engine` (index.ts) is the whole engine.
 */
export * from './plan.js';
export * from './plan-edit.js';
export * from './settings.js';
export * from './errors.js';
export { CLIP_ANALYSIS_VERSION, type ClipAnalysis, type ClipDecoding } from './clip-scores.js';
// The beat tracker's pure part: its analysis type and version.
export { MUSIC_ANALYSIS_VERSION, SAME_BEATS_SINCE, sameBeats, type MusicAnalysis } from './beat-tracker.js';
export * from './plan-framing.js';
