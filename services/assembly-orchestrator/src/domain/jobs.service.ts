import { DomainError, ErrorCode, type Logger } from '@reelsmith/kit';
import { jobRequestSchema, type JobRequest } from './job-request.js';
import { FAILED_CARD_TEXT, canMove, isTerminal, type JobState } from './job-states.js';

export interface JobRecord {
  id: string;
  ownerId: string;
  status: JobState;
  progress: number;
  message: string;
  request: JobRequest;
  idempotencyKey: string | null;
  estimateCredits: number;
  outputKey: string;
  thumbnailKey: string;
  durationSec: number;
  sizeBytes: number;
  createdAt: Date;
  updatedAt: Date;
}

export interface JobsRepository {
  byId(id: string): Promise<JobRecord | null>;
  byIdempotencyKey(ownerId: string, key: string): Promise<JobRecord | null>;
  /** Inserts the job and queues its work message in one transaction; false on a duplicate key. */
  insertQueued(job: JobRecord): Promise<boolean>;
  /**
   * Moves a job to `to` only if its current state may go there (checked in the same statement),
   * setting the given fields; returns the job after, or null when the move was not legal.
   */
  transition(
    id: string,
    to: JobState,
    fields: Partial<Pick<JobRecord, 'progress' | 'message' | 'outputKey' | 'thumbnailKey' | 'durationSec' | 'sizeBytes'>>,
  ): Promise<JobRecord | null>;
}

export interface MediaInfo {
  objectKey: string;
  kind: 'video' | 'audio';
  sizeBytes: number;
  durationSec: number;
}

/** The user's limits, with the spec's messages worded for their plan (from billing). */
export interface Entitlements {
  uploadCapBytes: number;
  musicCapSeconds: number;
  librarySelectionCap: number;
  messages: { upload: string; music: string; selection: string };
}

/** The other services the orchestrator calls. */
export interface Peers {
  media(ownerId: string, keys: string[]): Promise<MediaInfo[]>;
  entitlements(ownerId: string, unlimited: boolean): Promise<Entitlements>;
  estimate(pacing: JobRequest['pacing_preset'], hasMusic: boolean, totalBytes: number): Promise<number>;
  /** RESOURCE_EXHAUSTED with the spec's message when the user cannot pay. */
  reserve(jobId: string, ownerId: string, credits: number, unlimited: boolean): Promise<void>;
  capture(jobId: string): Promise<void>;
  release(jobId: string): Promise<void>;
  addReel(job: JobRecord): Promise<void>;
}

/**
 * Jobs from request to finished reel. Creating a job validates the request against the user's
 * own uploads and plan, prices it with billing's one formula, reserves, and queues it, once per
 * Idempotency-Key. Completion captures the reservation and adds the reel; failure refunds it.
 */
export class JobsService {
  constructor(
    private readonly repo: JobsRepository,
    private readonly peers: Peers,
    private readonly log: Logger,
  ) {}

  async create(ownerId: string, unlimited: boolean, rawRequest: unknown, idempotencyKey: string): Promise<string> {
    const parsed = jobRequestSchema.safeParse(rawRequest);
    if (!parsed.success)
      throw new DomainError(
        ErrorCode.INVALID_ARGUMENT,
        `Invalid job request: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
        'invalid_request',
      );
    const request = parsed.data;
    const key = idempotencyKey.trim() || null;
    if (key) {
      const existing = await this.repo.byIdempotencyKey(ownerId, key);
      if (existing) return existing.id;
    }
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

    // Beat mapping is on only when there is music (spec section 5).
    const normalised: JobRequest = { ...request, enable_beat_mapping: request.enable_beat_mapping && Boolean(music) };
    const estimate = await this.peers.estimate(request.pacing_preset, Boolean(music), totalBytes);
    const id = crypto.randomUUID();
    await this.peers.reserve(id, ownerId, estimate, unlimited);
    const now = new Date();
    const job: JobRecord = {
      id,
      ownerId,
      status: 'queued',
      progress: 0,
      message: 'Queued',
      request: normalised,
      idempotencyKey: key,
      estimateCredits: estimate,
      outputKey: '',
      thumbnailKey: '',
      durationSec: 0,
      sizeBytes: 0,
      createdAt: now,
      updatedAt: now,
    };
    if (!(await this.repo.insertQueued(job))) {
      // A concurrent request with the same key won: give our reservation back, answer with theirs.
      await this.peers.release(id);
      const winner = key ? await this.repo.byIdempotencyKey(ownerId, key) : null;
      if (!winner) throw new DomainError(ErrorCode.INTERNAL, 'job could not be stored');
      return winner.id;
    }
    this.log.info({ job_id: id, user_id: ownerId, estimate, clips: clips.length, music: Boolean(music) }, 'job queued');
    return id;
  }

  async get(id: string, ownerId?: string): Promise<JobRecord> {
    const job = await this.repo.byId(id);
    if (!job || (ownerId && job.ownerId !== ownerId)) throw new DomainError(ErrorCode.NOT_FOUND, 'Job not found.', 'job_not_found');
    return job;
  }

  /** A worker takes the job; false when it has finished already (stale or duplicate message). */
  async start(id: string): Promise<{ started: boolean; job: JobRecord }> {
    const job = await this.get(id);
    if (isTerminal(job.status)) return { started: false, job };
    const moved = await this.repo.transition(id, 'processing', { message: 'Initializing' });
    return moved ? { started: true, job: moved } : { started: false, job: await this.get(id) };
  }

  async progress(id: string, progress: number, message: string): Promise<boolean> {
    const job = await this.get(id);
    if (!canMove(job.status, 'processing')) return false;
    // Progress never goes backwards for the user (a redelivered job starts again quietly).
    return Boolean(
      await this.repo.transition(id, 'processing', { progress: Math.max(job.progress, Math.min(99, Math.round(progress))), message }),
    );
  }

  /**
   * The worker's completion fact. The charge is made and the reel listed before the job reads
   * "completed", so a user who sees it complete finds it in the library. Safe to run twice: a
   * crash between the steps redelivers the fact, and every step is idempotent.
   */
  async completed(e: { jobId: string; outputKey: string; thumbnailKey: string; durationSec: number; sizeBytes: number }): Promise<void> {
    const job = await this.repo.byId(e.jobId);
    if (!job) return;
    if (job.status === 'failed') {
      this.log.warn({ job_id: e.jobId }, 'completion of a job that had failed ignored');
      return;
    }
    const result = { outputKey: e.outputKey, thumbnailKey: e.thumbnailKey, durationSec: e.durationSec, sizeBytes: e.sizeBytes };
    await this.peers.capture(job.id);
    await this.peers.addReel({ ...job, ...result });
    if (job.status !== 'completed') await this.repo.transition(e.jobId, 'completed', { progress: 100, message: 'Complete', ...result });
  }

  /** The worker's (or the dead letter's) failure fact: final state, then refund; safe to run twice. */
  async failed(e: { jobId: string; reason: string }): Promise<void> {
    const job = await this.repo.byId(e.jobId);
    if (!job || job.status === 'completed') return;
    if (job.status !== 'failed') await this.repo.transition(e.jobId, 'failed', { message: e.reason || FAILED_CARD_TEXT });
    await this.peers.release(e.jobId);
  }
}
