/**
 * The one typed map of NATS subjects to their protobuf payloads, and the JetStream streams that
 * hold them. A publisher and a subscriber both go through this map, so they cannot disagree on a
 * payload type without the compiler noticing.
 */
import type { DescMessage } from '@bufbuild/protobuf';
import {
  JobCancelledSchema,
  JobCompletedSchema,
  JobFailedSchema,
  JobStartedSchema,
  JobStatusSchema,
  JobSubmittedSchema,
  RenderDeadLetteredSchema,
  RenderChunkSchema,
  RenderJobSchema,
} from './gen/reelsmith/assembly/v1/events_pb.js';
import {
  CreditsGrantedSchema,
  CreditsReservedSchema,
  ReservationCapturedSchema,
  ReservationReleasedSchema,
} from './gen/reelsmith/billing/v1/events_pb.js';
import { PaymentSucceededSchema } from './gen/reelsmith/billing/v1/payment_events_pb.js';
import { RequestCountsSchema } from './gen/reelsmith/gateway/v1/events_pb.js';
import {
  AdminChangedSchema,
  SessionsRevokedSchema,
  LoginFailedSchema,
  UserLoggedInSchema,
  UserRegisteredSchema,
  UserVerifiedSchema,
} from './gen/reelsmith/identity/v1/events_pb.js';
import {
  ClipPurchasedSchema,
  FootageOptedInSchema,
  OfferAnsweredSchema,
  OfferMadeSchema,
} from './gen/reelsmith/marketplace/v1/events_pb.js';
import { WebhookDeliverySchema } from './gen/reelsmith/assembly/v1/webhooks_pb.js';
import { ReelDeletedSchema, UserDataDeletedSchema } from './gen/reelsmith/media/v1/events_pb.js';

/** Durable facts on the EVENTS stream (`events.<domain>.<fact>`) and work on the RENDER stream. */
export const subjects = {
  'events.job.completed': JobCompletedSchema,
  'events.job.failed': JobFailedSchema,
  'events.job.cancelled': JobCancelledSchema,
  'events.billing.reserved': CreditsReservedSchema,
  'events.billing.captured': ReservationCapturedSchema,
  'events.billing.released': ReservationReleasedSchema,
  'events.billing.granted': CreditsGrantedSchema,
  'events.identity.user_registered': UserRegisteredSchema,
  'events.identity.user_logged_in': UserLoggedInSchema,
  // Facts the admin dashboard (telemetry) records.
  'events.identity.user_verified': UserVerifiedSchema,
  'events.identity.login_failed': LoginFailedSchema,
  'events.identity.admin_changed': AdminChangedSchema,
  'events.job.submitted': JobSubmittedSchema,
  'events.job.started': JobStartedSchema,
  'events.render.dead_lettered': RenderDeadLetteredSchema,
  'events.billing.payment_succeeded': PaymentSucceededSchema,
  'events.marketplace.offer_made': OfferMadeSchema,
  'events.marketplace.offer_answered': OfferAnsweredSchema,
  'events.gateway.request_counts': RequestCountsSchema,
  'events.marketplace.opted_in': FootageOptedInSchema,
  'events.marketplace.clip_purchased': ClipPurchasedSchema,
  // Each gateway replica drops the cached status of a job whose reel is gone.
  'events.media.reel_deleted': ReelDeletedSchema,
  'events.media.user_data_deleted': UserDataDeletedSchema,
  'render.jobs': RenderJobSchema,
  'render.chunks': RenderChunkSchema,
  // One webhook delivery to send (the orchestrator's WEBHOOKS work queue).
  'webhooks.deliveries': WebhookDeliverySchema,
} as const satisfies Record<string, DescMessage>;

export type Subject = keyof typeof subjects;
export type SubjectSchema<S extends Subject> = (typeof subjects)[S];

/**
 * Core NATS (not persisted), every subscriber gets each message. The authoritative status of a job each time the orchestrator records
 * a change, `jobs.<id>.status`; every gateway replica forwards it to the job's sockets.
 */
export const coreSubjects = {
  jobStatus: { pattern: 'jobs.*.status', schema: JobStatusSchema, subject: (jobId: string) => `jobs.${jobId}.status` },
  /** A job was cancelled: the worker running it stops its render (`jobs.<id>.cancel`). */
  jobCancel: { pattern: 'jobs.*.cancel', schema: JobCancelledSchema, subject: (jobId: string) => `jobs.${jobId}.cancel` },
  /** Sessions identity has just ended; every gateway replica drops them from its session cache. */
  sessionsRevoked: { pattern: 'sessions.revoked', schema: SessionsRevokedSchema, subject: () => 'sessions.revoked' },
} as const;

export type CoreSubject = keyof typeof coreSubjects;
export type CoreSubjectSchema<K extends CoreSubject> = (typeof coreSubjects)[K]['schema'];

export type StreamRetention = 'limits' | 'workqueue';

export interface StreamSpec {
  readonly name: string;
  readonly subjects: readonly string[];
  readonly retention: StreamRetention;
  /** Window in which a repeated message id is dropped by the server. */
  readonly duplicateWindowMs: number;
  readonly maxAgeMs: number;
}

/** Streams declared in code; every service ensures the ones it uses exist at start. */
export const streams = {
  EVENTS: {
    name: 'EVENTS',
    subjects: ['events.>'],
    retention: 'limits',
    duplicateWindowMs: 2 * 60_000,
    maxAgeMs: 7 * 24 * 3600_000,
  },
  RENDER: {
    name: 'RENDER',
    subjects: ['render.jobs', 'render.chunks'],
    retention: 'workqueue',
    duplicateWindowMs: 10 * 60_000,
    maxAgeMs: 24 * 3600_000,
  },
  /** Webhook deliveries, retried with back-off for more than 24 hours (kept 3 days). */
  WEBHOOKS: {
    name: 'WEBHOOKS',
    subjects: ['webhooks.deliveries'],
    retention: 'workqueue',
    duplicateWindowMs: 10 * 60_000,
    maxAgeMs: 3 * 24 * 3600_000,
  },
} as const satisfies Record<string, StreamSpec>;
