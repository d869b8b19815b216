// What jobs are made of and the ports the orchestrator goes through (repository, status
// publisher, peer services); the use cases are in jobs.service.ts.
import type { EditPlan, JobRequest, MediaAnalysisDoc, PacingPreset, PlanMusic } from '@reelsmith/proto';
import type { JobState, Stage } from './job-states.js';

/** One chunk of a long reel's picture and the worker that rendered it. */
export interface RenderedChunk {
  index: number;
  worker: string;
  frames: number;
  seconds: number;
}

export interface JobResult {
  outputKey: string;
  thumbnailKey: string;
  durationSec: number;
  sizeBytes: number;
  /** A reel rendered as chunks over several workers: who rendered which (empty: one pass). */
  renderChunks?: RenderedChunk[];
}

export interface JobRecord extends JobResult {
  id: string;
  ownerId: string;
  status: JobState;
  progress: number;
  message: string;
  request: JobRequest;
  idempotencyKey: string | null;
  estimateCredits: number;
  /** The latest delivery of the work message that a worker started (0 before any). */
  attempt: number;
  createdAt: Date;
  updatedAt: Date;
}

/** A durable fact recorded with a transition (through the outbox, so it is never lost). */
export type JobFact =
  | { kind: 'started'; attempt: number }
  | { kind: 'completed'; attempt: number; wallSeconds: number }
  | { kind: 'failed'; reason: string }
  | { kind: 'cancelled' };

export type JobFields = Partial<Pick<JobRecord, 'progress' | 'message' | 'attempt' | keyof JobResult>>;

export interface JobsRepository {
  byId(id: string): Promise<JobRecord | null>;
  byIdempotencyKey(ownerId: string, key: string): Promise<JobRecord | null>;
  /**
   * Inserts the job and queues its work message in one transaction; false on a duplicate key.
   * `optIns`: the uploads consented to footage offers, each announced to the marketplace in the
   * same transaction.
   */
  insertQueued(job: JobRecord, optIns?: FootageOptIn[]): Promise<boolean>;
  /**
   * Moves a job to `to` only if its current state may go there (checked in the same statement),
   * setting the given fields and recording the fact in the same transaction; returns the job
   * after, or null when the move was not legal.
   */
  transition(id: string, to: JobState, fields: JobFields, fact?: JobFact): Promise<JobRecord | null>;
  /** Records that a reservation is about to be asked for this job (before billing is asked). */
  hold(jobId: string, ownerId: string): Promise<void>;
  /** The job's reservation is settled (captured, released, or never made): forget the hold. */
  settled(jobId: string): Promise<void>;
  /** Holds older than `before`, with their job when it exists. */
  holdsBefore(before: Date): Promise<Array<{ jobId: string; job: JobRecord | null }>>;
  /**
   * Jobs in processing whose worker has not reported since longer than the deliveries left to
   * them could take: `updatedAt < now - (ackWaitMs * (maxDeliver - attempt + 1) + graceMs)`.
   */
  stalled(now: Date, ackWaitMs: number, maxDeliver: number, graceMs: number): Promise<JobRecord[]>;
  /** The owner's jobs, newest first; only queued and processing ones with `activeOnly`. */
  list(ownerId: string, activeOnly: boolean, limit: number): Promise<JobRecord[]>;
}

/** Tells everyone following a job what the orchestrator just recorded (the authoritative status). */
export interface StatusPublisher {
  publish(job: JobRecord): void;
  /**
   * The job ended without a reel (cancelled, or failed): every worker stops what it runs for it
   * (the job, its chunks) and drops its scratch (core NATS `jobs.<id>.cancel`).
   */
  stopWork(job: JobRecord): void;
}

export interface MediaInfo {
  objectKey: string;
  kind: 'video' | 'audio';
  sizeBytes: number;
  durationSec: number;
  displayName?: string;
  thumbnailKey?: string;
  /** Video: the picture as displayed (after rotation), pixels; framing plans crops in it. */
  width?: number;
  height?: number;
  /** media-library's upload-time analysis: pending, done or failed, and the analysis when done. */
  analysisStatus?: 'pending' | 'done' | 'failed';
  analysis?: MediaAnalysisDoc;
  /** Audio: the waveform (peak amplitude 0..1 of equal slices). */
  peaks?: number[];
  /** Audio: the tempo the analysis found, and the owner's corrections (already in `analysis`). */
  analysedBpm?: number;
  tempoCorrections?: string[];
}

/** What POST /jobs/plan answers (besides the thumbnails the gateway adds). */
export interface PlanAnswer {
  /** The plan, naming the request's output shape. */
  plan: EditPlan;
  estimate: number;
  /** The music's beats, waveform and sections (bar-aligned) for the plan preview's timeline; null without music. */
  music: PlanMusic | null;
}

/** The plan options of POST /jobs/plan. */
export interface PlanOptions {
  reroll: number[];
  locked: number[];
  seed: number;
}

/** An uploaded clip of a job submitted with get_footage_offers on: the user's consent. */
export interface FootageOptIn {
  uploadKey: string;
  filename: string;
  sizeBytes: number;
  thumbnailKey: string;
}

/** The user's limits, with the spec's messages worded for their plan (from billing). */
export interface Entitlements {
  uploadCapBytes: number;
  musicCapSeconds: number;
  librarySelectionCap: number;
  /** The longest reel the plan makes (free 3 minutes, paid 60). */
  reelCapSeconds: number;
  messages: { upload: string; music: string; selection: string; reelLength: string };
}

/** The other services the orchestrator calls. */
export interface Peers {
  media(ownerId: string, keys: string[]): Promise<MediaInfo[]>;
  entitlements(ownerId: string, unlimited: boolean): Promise<Entitlements>;
  estimate(pacing: PacingPreset, hasMusic: boolean, totalBytes: number, outputSeconds: number): Promise<number>;
  /** RESOURCE_EXHAUSTED with the spec's message when the user cannot pay. */
  reserve(jobId: string, ownerId: string, credits: number, unlimited: boolean): Promise<void>;
  capture(jobId: string): Promise<void>;
  release(jobId: string): Promise<void>;
  addReel(job: JobRecord): Promise<void>;
  /** The job uses these uploads: they stop counting as unused and never expire unused. */
  markUsed(ownerId: string, keys: string[], jobId: string): Promise<void>;
}

/** What a worker reports about the job it runs (one vocabulary for the whole life of a job). */
export type WorkerReport =
  | { kind: 'started' }
  | { kind: 'progress'; stage: Stage; percent: number }
  | ({ kind: 'completed' } & JobResult)
  | { kind: 'failed'; reason: string };

export interface ReportAnswer {
  /** False when the report came too late to count: the worker stops and acks. */
  accepted: boolean;
  job: JobRecord;
}
