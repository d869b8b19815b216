import type { MusicAnalysisDoc, SongSection } from '@reelsmith/proto';

/**
 * The song's sections as the plan preview shows them, read from media-library's music analysis
 * (the engine's `songSections`, kept with the analysis at upload; analyses made before sections
 * have none). A section without length is left out; energy is kept within 0..1.
 */
export function planSections(analysis: MusicAnalysisDoc | undefined): SongSection[] {
  return (analysis?.sections ?? [])
    .filter((x) => Number.isFinite(x.start) && Number.isFinite(x.end) && x.end > x.start)
    .map((x) => ({ ...x, energy: Number.isFinite(x.energy) ? Math.min(1, Math.max(0, x.energy)) : 0 }));
}
