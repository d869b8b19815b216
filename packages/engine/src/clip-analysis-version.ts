/**
 * The version clip analyses carry (clip-analysis.ts); an analysis of an older one is redone. Apart
 * so that planning (planning.ts) can check it without loading the ffmpeg half.
 */
export const CLIP_ANALYSIS_VERSION = 2;
