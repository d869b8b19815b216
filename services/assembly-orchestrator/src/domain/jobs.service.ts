import { DomainError, ErrorCode, isDomainError, type Logger } from '@reelsmith/kit';
import {
  CLIP_ANALYSIS_VERSION,
  MUSIC_ANALYSIS_VERSION,
  sameBeats,
  isEngineError,
  parseSettings,
  planEdit,
  rerollPlan,
  framePlan,
  needsSubjects,
  planFramingProblem,
  subjectTrack,
  validatePlan,
  type ClipAnalysis,
  type EditPlan,
  type PlanInput,
} from '@reelsmith/engine/plan';
import {
  isClipAnalysis,
  isMusicAnalysis,
  parseJobRequest,
  planFromWire,
  reelSeconds,
  resolveFraming,
  type JobRequest,
} from '@reelsmith/proto';
import {
  CANCELLED_MESSAGE,
  COMPLETE_MESSAGE,
  FINISHED_MESSAGE,
  FAILED_CARD_TEXT,
  QUEUED_MESSAGE,
  STAGE_MESSAGE,
  canMove,
  isTerminal,
  type Stage,
} from './job-states.js';
import { canonical, checkMusicStart, footageOptIns } from './job-request.js';
import type {
  JobRecord,
  JobResult,
  JobsRepository,
  MediaInfo,
  Peers,
  PlanAnswer,
  PlanOptions,
  ReportAnswer,
  StatusPublisher,
  WorkerReport,
} from './jobs.ports.js';

export type * from './jobs.ports.js';
export { footageOptIns } from './job-request.js';
import { planSections } from './plan-sections.js';

/** The engine's output frame rate: plans are on its grid. */
const OUTPUT_FPS = parseSettings().fps;

const invalid = (message: string, code = 'invalid_plan') => new DomainError(ErrorCode.INVALID_ARGUMENT, message, code);

/** A clip's picture as displayed (media-library's probe), when known. */
const pictureOf = (c: MediaInfo) => (c.width && c.height ? { width: c.width, height: c.height } : undefined);

/**
 * Jobs from request to finished reel. Creating a job validates the request against the user's
 * own uploads and plan, prices it with billing's one formula, reserves, and queues it, once per
 * Idempotency-Key. The worker running a job reports its start, progress, completion and failure
 * here; each report is recorded (completion charges the reservation and lists the reel, failure
 * refunds it) and the resulting status is published to everyone following the job.
 */
export class JobsService {
  constructor(
    private readonly repo: JobsRepository,
    private readonly peers: Peers,
    private readonly status: StatusPublisher,
    private readonly log: Logger,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /**
   * A request checked against the user's own uploads and plan limits, as create and plan both
   * need it: the media, and the reel's length by the engine's rule (a given plan's own length).
   */
  private async inspect(ownerId: string, unlimited: boolean, rawRequest: unknown) {
    const parsed = parseJobRequest(rawRequest);
    if (!parsed.ok) throw new DomainError(ErrorCode.INVALID_ARGUMENT, `Invalid job request: ${parsed.problems}`, 'invalid_request');
    // Beat mapping is on only when there is music (spec section 5).
    const request: JobRequest = {
      ...parsed.value,
      enable_beat_mapping: parsed.value.enable_beat_mapping && Boolean(parsed.value.music_file),
    };
    if (!request.media_files.length)
      throw new DomainError(ErrorCode.INVALID_ARGUMENT, 'Please add at least one video file or select from library.', 'no_media');
    const keys = [...request.media_files, ...(request.music_file ? [request.music_file] : [])];
    const media = await this.peers.media(ownerId, keys);
    const clips = media.slice(0, request.media_files.length);
    const music = request.music_file ? media[media.length - 1] : undefined;
    if (clips.some((c) => c.kind !== 'video'))
      throw new DomainError(ErrorCode.INVALID_ARGUMENT, 'Only video files can be used as clips.', 'not_video');
    if (music && music.kind !== 'audio')
      throw new DomainError(ErrorCode.INVALID_ARGUMENT, 'The music file must be an audio file.', 'not_audio');

    const ent = await this.peers.entitlements(ownerId, unlimited);
    const totalBytes = media.reduce((s, m) => s + m.sizeBytes, 0);
    if (totalBytes > ent.uploadCapBytes) throw new DomainError(ErrorCode.PAYLOAD_TOO_LARGE, ent.messages.upload, 'upload_limit');
    if (music && music.durationSec > ent.musicCapSeconds)
      throw new DomainError(ErrorCode.INVALID_ARGUMENT, ent.messages.music, 'music_too_long');
    if (clips.length > ent.librarySelectionCap)
      throw new DomainError(ErrorCode.INVALID_ARGUMENT, ent.messages.selection, 'selection_limit');
    // The reel's length by the engine's rule, from the probed durations: capped by plan and priced
    // by billing. Before analysis the clips count whole (the most the reel can last).
    const outputSeconds = reelSeconds(
      clips.map((c) => c.durationSec),
      music?.durationSec,
      request.target_duration_sec,
    );
    checkMusicStart(request.music_start_sec, music);
    // In whole milliseconds, as billing counts it: summed durations of exactly 3:00 are not over.
    if (Math.round(outputSeconds * 1000) > ent.reelCapSeconds * 1000)
      throw new DomainError(ErrorCode.INVALID_ARGUMENT, ent.messages.reelLength, 'reel_too_long');
    // A given plan is checked before anything is reserved, against the probed durations.
    let given: EditPlan | undefined;
    if (request.plan) {
      if (request.plan.aspect !== request.aspect)
        throw invalid(`plan.aspect ${request.plan.aspect} is not the request's aspect ${request.aspect}: ask for a new plan`);
      given = planFromWire(request.plan);
      const problem = validatePlan(given, {
        clipDurations: clips.map((c) => c.durationSec),
        musicSec: music?.durationSec,
        fps: OUTPUT_FPS,
      });
      // Its framings (crop paths) must fit the clips' pictures and the reel's shape.
      const framingProblem = planFramingProblem(given, clips.map(pictureOf), request.aspect);
      if (problem || framingProblem) throw invalid((problem ?? framingProblem)!);
    }
    return { request, media, keys, clips, music, totalBytes, outputSeconds, given };
  }

  /** The price by billing's one formula: a given plan's length, else the engine's length rule. */
  private price(x: Awaited<ReturnType<JobsService['inspect']>>, plan?: { totalSec: number }) {
    return this.peers.estimate(x.request.pacing_preset, Boolean(x.music), x.totalBytes, plan ? plan.totalSec : x.outputSeconds);
  }

  async create(ownerId: string, unlimited: boolean, rawRequest: unknown, idempotencyKey: string): Promise<string> {
    const key = idempotencyKey.trim() || null;
    if (key) {
      const existing = await this.repo.byIdempotencyKey(ownerId, key);
      if (existing) {
        const parsed = parseJobRequest(rawRequest);
        const again = parsed.ok
          ? { ...parsed.value, enable_beat_mapping: parsed.value.enable_beat_mapping && Boolean(parsed.value.music_file) }
          : rawRequest;
        // The same key with another request is a client bug, not a retry: say so (as payment APIs do).
        if (canonical(existing.request) !== canonical(again))
          throw new DomainError(
            ErrorCode.FAILED_PRECONDITION,
            'This Idempotency-Key was already used for a different request.',
            'idempotency_mismatch',
          );
        return existing.id;
      }
    }
    const inspected = await this.inspect(ownerId, unlimited, rawRequest);
    const { request, clips, music, keys, outputSeconds } = inspected;
    const estimate = await this.price(inspected, inspected.given);
    const id = crypto.randomUUID();
    // The hold first: whatever fails from here on (even a crash), the sweeper finds the hold and
    // gives back what was reserved, so nobody pays for a job that does not exist.
    await this.repo.hold(id, ownerId);
    try {
      await this.peers.reserve(id, ownerId, estimate, unlimited);
    } catch (e) {
      // Refused (cannot pay): nothing is held. Any other error may have reserved after all; the
      // sweeper settles it once an in-flight reserve can no longer land.
      if (isDomainError(e) && e.code === ErrorCode.RESOURCE_EXHAUSTED) await this.repo.settled(id);
      throw e;
    }
    const now = this.clock();
    const job: JobRecord = {
      id,
      ownerId,
      status: 'queued',
      progress: 0,
      message: QUEUED_MESSAGE,
      request,
      idempotencyKey: key,
      estimateCredits: estimate,
      attempt: 0,
      outputKey: '',
      thumbnailKey: '',
      durationSec: 0,
      sizeBytes: 0,
      renderChunks: [],
      createdAt: now,
      updatedAt: now,
    };
    let inserted: boolean;
    try {
      inserted = await this.repo.insertQueued(job, footageOptIns(request, ownerId, clips));
    } catch (e) {
      await this.giveBack(id);
      throw e;
    }
    if (!inserted) {
      // A concurrent request with the same key won: give our reservation back, answer with theirs.
      await this.giveBack(id);
      const winner = key ? await this.repo.byIdempotencyKey(ownerId, key) : null;
      if (!winner) throw new DomainError(ErrorCode.INTERNAL, 'job could not be stored');
      return winner.id;
    }
    // Only a recorded job makes its uploads "used" (else a refused request would dodge the quota).
    await this.peers.markUsed(ownerId, keys, id).catch((e: unknown) => this.log.warn({ err: e, job_id: id }, 'uploads not marked used'));
    this.status.publish(job);
    this.log.info(
      { job_id: id, user_id: ownerId, estimate, clips: clips.length, music: Boolean(music), output_seconds: outputSeconds },
      'job queued',
    );
    return id;
  }

  /**
   * The edit plan of a request and what generating it would reserve, without reserving,
   * charging or recording anything: planned by the engine from media-library's upload-time
   * analyses, or the given plan checked (and re-rolled when asked). Refused while an analysis the
   * plan needs is still running (the render would otherwise plan from a different analysis).
   */
  async plan(ownerId: string, unlimited: boolean, rawRequest: unknown, opts: PlanOptions): Promise<PlanAnswer> {
    const x = await this.inspect(ownerId, unlimited, rawRequest);
    const { request, clips, music, given } = x;
    if (opts.reroll.length && !given) throw invalid('reroll needs a plan: send the plan to re-roll segments of', 'invalid_request');
    const needsAnalyses = !given || opts.reroll.length > 0;
    const framing = resolveFraming(request);
    // Subject framing plans crop paths from the clips' subject tracks (clip analysis) where it crops.
    const waitsFor = (c: MediaInfo) => request.enable_intelligence || needsSubjects(framing, pictureOf(c), request.aspect);
    if (needsAnalyses && clips.some((c) => c.analysisStatus === 'pending' && waitsFor(c)))
      throw new DomainError(ErrorCode.FAILED_PRECONDITION, 'Clip analysis is still running, try again in a moment.', 'analysis_pending');
    if (!given && request.enable_beat_mapping && music?.analysisStatus === 'pending')
      throw new DomainError(ErrorCode.FAILED_PRECONDITION, 'Music analysis is still running, try again in a moment.', 'analysis_pending');
    // The analyses as the render worker would use them: only those of this engine's version.
    const clipAnalysis = (m: MediaInfo): ClipAnalysis | undefined => {
      const a = m.analysisStatus === 'done' && isClipAnalysis(m.analysis) ? m.analysis : undefined;
      return a?.version === CLIP_ANALYSIS_VERSION ? a : undefined;
    };
    const musicAnalysis = music?.analysisStatus === 'done' && isMusicAnalysis(music.analysis) ? music.analysis : undefined;
    const input: PlanInput = {
      clips: clips.map((c) => ({ durationSec: c.durationSec, analysis: clipAnalysis(c) })),
      music: music
        ? {
            durationSec: music.durationSec,
            // An analysis of an earlier version with the same beats (8: no beat strengths) plans as
            // the render will plan it, until media-library has analysed the song again.
            analysis: musicAnalysis && sameBeats(musicAnalysis.version, MUSIC_ANALYSIS_VERSION) ? musicAnalysis : undefined,
          }
        : undefined,
      pacing: request.pacing_preset,
      beatMapping: request.enable_beat_mapping,
      intelligence: request.enable_intelligence,
      fps: OUTPUT_FPS,
      targetSec: request.target_duration_sec ?? undefined,
      musicStartSec: request.music_start_sec ?? undefined,
    };
    let plan: EditPlan;
    try {
      plan = given
        ? opts.reroll.length
          ? rerollPlan(input, given, { reroll: opts.reroll, locked: opts.locked, seed: opts.seed })
          : given
        : planEdit(input);
    } catch (e) {
      if (isEngineError(e) && e.code === 'INVALID_SETTINGS') throw invalid(e.message);
      throw e;
    }
    // Every segment's framing, as the render will follow it (a re-rolled moment is framed anew;
    // the framings a sent plan has are kept).
    const rerolled = new Set(opts.reroll);
    plan = framePlan(
      { ...plan, segments: plan.segments.map((s, i) => (given && rerolled.has(i) ? { ...s, framing: undefined } : s)) },
      clips.map((c) => {
        const picture = pictureOf(c);
        return picture && { ...picture, subjects: subjectTrack(clipAnalysis(c)) };
      }),
      request.aspect,
      framing,
    );
    const estimate = await this.price(x, plan);
    return {
      plan: { ...plan, aspect: request.aspect },
      estimate,
      music: music
        ? {
            durationSec: music.durationSec,
            tempoBpm: musicAnalysis?.bpm ?? 0,
            beats: musicAnalysis?.beats ?? [],
            downbeats: musicAnalysis?.bars ?? [],
            peaks: music.peaks ?? [],
            beatsPerBar: musicAnalysis?.beatsPerBar ?? 4,
            analysedBpm: music.analysedBpm ?? musicAnalysis?.bpm ?? 0,
            tempoCorrections: music.tempoCorrections ?? [],
            sections: planSections(musicAnalysis),
          }
        : null,
    };
  }

  /**
   * Cancels a queued or processing job: recorded as cancelled (so no worker report can complete
   * or charge it any more), the worker running it told to stop, the reservation released (billing
   * releases a job's reservation once, however often it is asked). A finished job: 409.
   */
  async cancel(jobId: string, ownerId: string): Promise<JobRecord> {
    const job = await this.get(jobId, ownerId);
    if (job.status !== 'queued' && job.status !== 'processing')
      throw new DomainError(ErrorCode.FAILED_PRECONDITION, FINISHED_MESSAGE, 'job_finished');
    // The same conditional update of the job's row as a completion's (see completed): if the
    // worker's completion was recorded first (finalizing), this moves nothing: 409, nothing released.
    const moved = await this.repo.transition(job.id, 'cancelled', { message: CANCELLED_MESSAGE }, { kind: 'cancelled' });
    if (!moved) throw new DomainError(ErrorCode.FAILED_PRECONDITION, FINISHED_MESSAGE, 'job_finished');
    this.status.publish(moved);
    this.status.stopWork(moved);
    try {
      await this.peers.release(job.id);
      await this.repo.settled(job.id);
    } catch (e) {
      // The hold stays: the sweeper releases it (the job is cancelled, so it is never captured).
      this.log.error({ err: e, job_id: job.id }, 'release after cancel failed; the sweeper will retry');
    }
    this.log.info({ job_id: job.id, user_id: ownerId, was: job.status }, 'job cancelled');
    return moved;
  }

  /** The owner's jobs, newest first (the active ones only with `activeOnly`). */
  list(ownerId: string, activeOnly: boolean, limit: number): Promise<JobRecord[]> {
    return this.repo.list(ownerId, activeOnly, Math.min(Math.max(limit || 20, 1), 100));
  }

  /** Releases the reservation of a job that was never recorded (the sweeper retries on failure). */
  private async giveBack(id: string): Promise<void> {
    try {
      await this.peers.release(id);
      await this.repo.settled(id);
    } catch (e) {
      this.log.error({ err: e, job_id: id }, 'release failed; the sweeper will retry');
    }
  }

  async get(id: string, ownerId?: string): Promise<JobRecord> {
    const job = await this.repo.byId(id);
    if (!job || (ownerId && job.ownerId !== ownerId)) throw new DomainError(ErrorCode.NOT_FOUND, 'Job not found.', 'job_not_found');
    return job;
  }

  /** A report from the worker running delivery `attempt` of the job. */
  async report(jobId: string, attempt: number, r: WorkerReport): Promise<ReportAnswer> {
    const job = await this.get(jobId);
    switch (r.kind) {
      case 'started':
        return this.started(job, attempt);
      case 'progress':
        return this.progressed(job, attempt, r.stage, r.percent);
      case 'completed':
        return this.completed(job, attempt, r);
      case 'failed':
        return this.failed(job, r.reason);
    }
  }

  /** A worker takes the job; refused when it has finished, or a later delivery took it already. */
  private async started(job: JobRecord, attempt: number): Promise<ReportAnswer> {
    if (isTerminal(job.status) || attempt < job.attempt) return { accepted: false, job };
    const moved = await this.repo.transition(
      job.id,
      'processing',
      { message: STAGE_MESSAGE.preparing, attempt },
      { kind: 'started', attempt },
    );
    if (!moved) return { accepted: false, job: await this.get(job.id) };
    this.status.publish(moved);
    return { accepted: true, job: moved };
  }

  private async progressed(job: JobRecord, attempt: number, stage: Stage, percent: number): Promise<ReportAnswer> {
    if (!canMove(job.status, 'processing') || attempt < job.attempt) return { accepted: false, job };
    // Progress never goes backwards for the user (a redelivered job starts again quietly), and
    // 100 is for "complete" only.
    const progress = Math.max(job.progress, Math.min(99, Math.round(percent)));
    const moved = await this.repo.transition(job.id, 'processing', { progress, message: STAGE_MESSAGE[stage] });
    if (!moved) return { accepted: false, job: await this.get(job.id) };
    this.status.publish(moved);
    return { accepted: true, job: moved };
  }

  /**
   * The reel is stored. The outcome is decided first, by one conditional update of the job's row
   * (processing -> finalizing, which records the reel): a cancel that committed before it makes
   * the completion refused before anything is charged, and once it has committed no cancel or
   * failure can take the job any more. Only then is the reservation captured and the reel listed,
   * before the job reads "completed", so a user who sees it complete finds it in the library.
   * Safe to repeat: a worker retrying its report (or a redelivered job) finishes the same job.
   */
  private async completed(job: JobRecord, attempt: number, result: JobResult): Promise<ReportAnswer> {
    let current = job;
    if (job.status === 'processing')
      current =
        (await this.repo.transition(job.id, 'finalizing', { ...result, message: STAGE_MESSAGE.finalizing })) ?? (await this.get(job.id));
    if (current.status !== 'finalizing' && current.status !== 'completed') {
      this.log.warn({ job_id: job.id, job_status: current.status }, 'completion of a job that had ended ignored');
      return { accepted: false, job: current };
    }
    return this.finish(current, attempt, (this.clock().getTime() - job.createdAt.getTime()) / 1000);
  }

  /**
   * Charges and lists a job whose completion is recorded, then marks it completed; the hold goes
   * last, so a finish cut short (billing or media-library down, a crash) is redone by the worker's
   * retry or by the sweeper. Every step is idempotent.
   */
  private async finish(job: JobRecord, attempt: number, wallSeconds: number): Promise<ReportAnswer> {
    await this.peers.capture(job.id);
    await this.peers.addReel(job);
    let final = job;
    if (job.status === 'finalizing') {
      const moved = await this.repo.transition(
        job.id,
        'completed',
        { progress: 100, message: COMPLETE_MESSAGE },
        { kind: 'completed', attempt, wallSeconds },
      );
      final = moved ?? (await this.get(job.id));
      this.status.publish(final);
      if (moved) this.log.info({ job_id: job.id, seconds: job.durationSec, bytes: job.sizeBytes, attempt }, 'job completed');
    }
    await this.repo.settled(job.id);
    return { accepted: final.status === 'completed', job: final };
  }

  /** The sweeper's way to finish a job whose completion was recorded but not finished. */
  async finalize(jobId: string): Promise<JobRecord> {
    const job = await this.get(jobId);
    if (job.status !== 'finalizing' && job.status !== 'completed')
      throw new DomainError(ErrorCode.FAILED_PRECONDITION, `job is ${job.status}, not finalizing`);
    return (await this.finish(job, job.attempt, (job.updatedAt.getTime() - job.createdAt.getTime()) / 1000)).job;
  }

  /** Final state, then the refund; safe to repeat (a failed job is refunded again, idempotently). */
  private async failed(job: JobRecord, reason: string): Promise<ReportAnswer> {
    // Only a job still running fails (a finalizing one has its reel; a cancelled one is released).
    if (job.status !== 'queued' && job.status !== 'processing' && job.status !== 'failed') return { accepted: false, job };
    let current = job;
    if (job.status !== 'failed') {
      const message = reason || FAILED_CARD_TEXT;
      current =
        (await this.repo.transition(job.id, 'failed', { message }, { kind: 'failed', reason: message })) ?? (await this.get(job.id));
      if (current.status !== 'failed') return { accepted: false, job: current };
      this.status.publish(current);
      // Whatever still runs for it stops: the other chunks of a long reel, or a worker the
      // watchdog gave up on; their scratch goes.
      this.status.stopWork(current);
      this.log.warn({ job_id: job.id, reason: message }, 'job failed');
    }
    await this.peers.release(job.id);
    await this.repo.settled(job.id);
    return { accepted: true, job: current };
  }
}
