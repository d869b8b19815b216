// The parts of a job request checked or derived before it is queued: the music's start on a bar
// line, the clips consented to footage offers, and the request's canonical form (idempotency).
import { DomainError, ErrorCode } from '@reelsmith/kit';
import type { MusicAnalysis } from '@reelsmith/engine/plan';
import type { JobRequest } from '@reelsmith/proto';
import type { FootageOptIn, MediaInfo } from './jobs.ports.js';

/** How close to a bar line of the analysed song `music_start_sec` must be (the web sends its times). */
const BAR_LINE_TOLERANCE_SEC = 0.01;

/**
 * `music_start_sec` must lie inside the song and on one of its bar lines (the downbeats of
 * media-library's analysis), or the request is refused with a message that says which.
 */
export function checkMusicStart(start: number | null | undefined, music: MediaInfo | undefined): void {
  if (start === null || start === undefined) return;
  const fail = (m: string) => new DomainError(ErrorCode.INVALID_ARGUMENT, `music_start_sec: ${m}`, 'invalid_request');
  if (!music) throw fail('there is no music file to start in');
  if (start >= music.durationSec) throw fail(`${start} s is past the end of the song (${Math.round(music.durationSec * 100) / 100} s)`);
  const analysis = music.analysisStatus === 'done' ? (music.analysis as MusicAnalysis | undefined) : undefined;
  const bars = analysis?.bars ?? [];
  if (!bars.length) throw fail('the song has no bar lines yet (its analysis is not ready); leave it out to start at the best part');
  const nearest = bars.reduce((b, x) => (Math.abs(x - start) < Math.abs(b - start) ? x : b));
  if (Math.abs(nearest - start) > BAR_LINE_TOLERANCE_SEC)
    throw fail(`${start} s is not on a bar line of the song (the nearest is ${Math.round(nearest * 1000) / 1000} s)`);
}

/**
 * The job's own uploaded videos offered to the marketplace: only with the consent, each once, and
 * only the owner's uploads (`uploads/<owner>/...`), never stock or anyone else's clips.
 */
export function footageOptIns(request: JobRequest, ownerId: string, clips: MediaInfo[]): FootageOptIn[] {
  if (!request.get_footage_offers) return [];
  const seen = new Map<string, FootageOptIn>();
  for (const c of clips)
    if (c.kind === 'video' && c.objectKey.startsWith(`uploads/${ownerId}/`) && !seen.has(c.objectKey))
      seen.set(c.objectKey, {
        uploadKey: c.objectKey,
        filename: c.displayName || c.objectKey.split('/').pop()!,
        sizeBytes: c.sizeBytes,
        thumbnailKey: c.thumbnailKey ?? '',
      });
  return [...seen.values()];
}

/** JSON with object keys sorted, so two equal requests compare equal however they were stored. */
export function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object')
    return `{${Object.entries(v as Record<string, unknown>)
      .filter(([, x]) => x !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, x]) => `${JSON.stringify(k)}:${canonical(x)}`)
      .join(',')}}`;
  return JSON.stringify(v);
}
