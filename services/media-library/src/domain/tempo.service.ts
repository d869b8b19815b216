import {
  applyTempoCorrections,
  correctionProblem,
  normaliseCorrections,
  sameBeats,
  type MusicAnalysis,
  type TempoCorrection,
} from '@reelsmith/engine';
import { DomainError, ErrorCode } from '@reelsmith/kit';
import { TAP_LIMITS, TEMPO_CORRECTION_KINDS } from '@reelsmith/proto';
import type { MediaKind, MediaRecord } from './media.service.js';

/**
 * What is kept of a user's corrections of a track: the corrections in order (normalised), and the
 * tempo of the analysis they were made on. A newer engine that analyses the track again and
 * finds another tempo makes them stale: they are not applied to it (a "double" made for a track
 * found at half its tempo would double the right tempo), and the beats are shown as analysed.
 */
export interface StoredCorrection {
  baseBpm: number;
  /**
   * The analysis version the corrections were made on (MusicAnalysis.version); absent in those kept
   * before it was recorded (analyses up to version 7, the rule-based tracker's). They apply to an
   * analysis whose beats that version's are (the engine's sameBeats: SAME_BEATS_SINCE on).
   */
  baseVersion?: number;
  corrections: TempoCorrection[];
}

/** Where corrections are kept: with an upload's record, per user for a library track. */
export interface TempoRepository {
  /** The owner's corrections of these tracks (uploads of theirs and library tracks), by object key. */
  forOwner(ownerId: string, media: Pick<MediaRecord, 'objectKey' | 'library'>[]): Promise<Map<string, StoredCorrection>>;
  /** The corrections of the owner's latest other upload of the same file (same name and size), if any. */
  sameFile(ownerId: string, m: Pick<MediaRecord, 'objectKey' | 'displayName' | 'sizeBytes'>): Promise<StoredCorrection | null>;
  /** Stores (or with null removes) the owner's corrections of a track. */
  set(ownerId: string, media: Pick<MediaRecord, 'objectKey' | 'library'>, value: StoredCorrection | null): Promise<void>;
}

/** A track as a user sees it: the analysis with their corrections applied, and what they were. */
export type CorrectedMedia = MediaRecord & { tempoCorrections: TempoCorrection[]; analysedBpm: number };

/** How far (relatively) an analysis' tempo may differ from the one corrected and still take the corrections. */
const SAME_BPM = 0.02;

const invalid = (message: string, code = 'invalid_correction') => new DomainError(ErrorCode.INVALID_ARGUMENT, message, code);

/** Checks a correction as received (kind, taps); the message names what is wrong. */
export function parseCorrection(kind: string, taps: number[]): TempoCorrection {
  if (!(TEMPO_CORRECTION_KINDS as readonly string[]).includes(kind))
    throw invalid(`Unknown tempo correction "${kind}": use one of ${TEMPO_CORRECTION_KINDS.join(', ')}.`);
  if (kind !== 'tap') {
    if (taps.length) throw invalid('Only a tap correction has taps.');
    return { kind } as TempoCorrection;
  }
  const c: TempoCorrection = { kind: 'tap', taps: taps.map((t) => Math.round(t * 1e4) / 1e4) };
  const problem = correctionProblem(c);
  if (problem) throw invalid(problem, taps.length < TAP_LIMITS.minTaps ? 'too_few_taps' : 'invalid_taps');
  return c;
}

/**
 * Tempo corrections of music tracks: applied to the stored analysis whenever a user's tracks are
 * asked for (the plan, the render and the timeline all see the corrected beats), changed without
 * analysing the audio again.
 */
export class TempoService {
  constructor(private readonly repo: TempoRepository) {}

  /** The owner's view of these media: music with their (still current) corrections applied. */
  async corrected(ownerId: string, media: MediaRecord[]): Promise<CorrectedMedia[]> {
    const music = media.filter((m) => m.kind === 'audio' && m.analysisStatus === 'done' && m.analysis);
    const stored = music.length ? await this.repo.forOwner(ownerId, music) : new Map<string, StoredCorrection>();
    return media.map((m) => withCorrections(m, stored.get(m.objectKey)));
  }

  /**
   * A library list page as `ownerId` sees it: in the music library, each track they corrected
   * shows its tempo after their corrections; everything else as listed.
   */
  async asSeenBy<T extends { objectKey: string; bpm: number }>(
    ownerId: string,
    kind: MediaKind,
    items: T[],
    analysed: (objectKeys: string[]) => Promise<MediaRecord[]>,
  ): Promise<T[]> {
    if (kind !== 'audio' || !ownerId) return items;
    const tempos = await this.libraryTempos(
      ownerId,
      items.map((i) => i.objectKey),
      analysed,
    );
    return items.map((i) => ({ ...i, bpm: tempos.get(i.objectKey) ?? i.bpm }));
  }

  /**
   * The tempo the owner sees for library tracks of a list page: by object key, to a tenth of a
   * BPM (as the library lists it), for the tracks they corrected (still current corrections)
   * only. The list itself holds no analyses: `analysed` reads them, asked only for those tracks,
   * and not at all when the owner corrected none of them.
   */
  async libraryTempos(
    ownerId: string,
    objectKeys: string[],
    analysed: (objectKeys: string[]) => Promise<MediaRecord[]>,
  ): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    if (!ownerId || !objectKeys.length) return out;
    const stored = await this.repo.forOwner(
      ownerId,
      objectKeys.map((objectKey) => ({ objectKey, library: true })),
    );
    const keys = [...stored].filter(([, s]) => s.corrections.length).map(([k]) => k);
    if (!keys.length) return out;
    for (const t of await analysed(keys)) {
      if (!t.library) continue;
      const m = withCorrections(t, stored.get(t.objectKey));
      const bpm = (m.analysis as MusicAnalysis | null)?.bpm;
      if (m.tempoCorrections.length && typeof bpm === 'number' && Number.isFinite(bpm)) out.set(m.objectKey, Math.round(bpm * 10) / 10);
    }
    return out;
  }

  /**
   * A song uploaded again (the same name and size as an earlier upload of the owner's) takes the
   * corrections made to it before: "next time" for a file the browser does not keep between
   * visits. They apply once its analysis finds the tempo they were made on.
   */
  async carryOver(ownerId: string, m: MediaRecord): Promise<void> {
    if (m.kind !== 'audio' || m.library) return;
    const earlier = await this.repo.sameFile(ownerId, m);
    if (earlier) await this.repo.set(ownerId, m, earlier);
  }

  /**
   * Adds a correction after the owner's earlier ones (or with `reset` drops them all) and answers
   * the track as corrected. The track must be analysed music the owner may use (`media` has
   * checked that); tapping needs no beats, the other corrections do.
   */
  async correct(ownerId: string, m: MediaRecord, correction: TempoCorrection | 'reset'): Promise<CorrectedMedia> {
    if (m.kind !== 'audio') throw invalid('Only a music track has a tempo to correct.', 'not_audio');
    if (m.analysisStatus === 'pending')
      throw new DomainError(ErrorCode.FAILED_PRECONDITION, 'Music analysis is still running, try again in a moment.', 'analysis_pending');
    const a = m.analysisStatus === 'done' ? (m.analysis as MusicAnalysis | null) : null;
    if (!a)
      throw new DomainError(
        ErrorCode.FAILED_PRECONDITION,
        'This track could not be analysed, so it has no beats to correct.',
        'no_analysis',
      );
    if (correction === 'reset') {
      await this.repo.set(ownerId, m, null);
      return (await this.corrected(ownerId, [m]))[0]!;
    }
    const [current] = await this.corrected(ownerId, [m]);
    const now = current!.analysis as MusicAnalysis;
    if (correction.kind !== 'tap' && now.beats.length < 2)
      throw new DomainError(
        ErrorCode.FAILED_PRECONDITION,
        'No beat was found in this track: tap the tempo along with the music instead.',
        'no_beats',
      );
    if (correction.kind === 'tap' && correction.taps.at(-1)! > a.durationSec)
      throw invalid(`Taps must lie within the track (${a.durationSec.toFixed(1)} s).`, 'invalid_taps');
    const corrections = normaliseCorrections([...current!.tempoCorrections, correction]);
    await this.repo.set(ownerId, m, corrections.length ? { baseBpm: a.bpm, baseVersion: a.version, corrections } : null);
    return (await this.corrected(ownerId, [m]))[0]!;
  }
}

/**
 * A track with these stored corrections applied, unless they are stale (made on another tempo, or
 * on an analysis version with other beats: a shift made on a tracker that followed the off-beat
 * would move the next tracker's right beats off it) or it has no analysis.
 */
function withCorrections(m: MediaRecord, s: StoredCorrection | undefined): CorrectedMedia {
  const a = m.kind === 'audio' && m.analysisStatus === 'done' ? (m.analysis as MusicAnalysis | null) : null;
  const analysedBpm = a?.bpm ?? 0;
  const stale = !a || !s || !s.corrections.length || !sameTempo(s.baseBpm, analysedBpm) || !sameBeats(s.baseVersion ?? 0, a.version);
  if (stale) return { ...m, tempoCorrections: [], analysedBpm };
  return { ...m, analysis: applyTempoCorrections(a, s.corrections), tempoCorrections: s.corrections, analysedBpm };
}

function sameTempo(base: number, now: number): boolean {
  if (base === 0 || now === 0) return base === now;
  return Math.abs(now / base - 1) <= SAME_BPM;
}
