import crypto from 'node:crypto';
import { DomainError, ErrorCode } from '@reelsmith/kit';
import { retryDelayMs, WEBHOOK_BACKOFF } from './backoff.js';
import { signHeader, SIGNATURE_HEADER } from './signature.js';
import { checkWebhookUrl } from './ssrf.js';

export const WEBHOOK_EVENTS = ['job.completed', 'job.failed', 'job.cancelled'] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];
/** Endpoints an account may have. */
export const MAX_WEBHOOK_ENDPOINTS = 10;

export interface EndpointRecord {
  id: string;
  ownerId: string;
  url: string;
  events: string[];
  secret: string;
  createdAt: Date;
}

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

export interface DeliveryRecord {
  id: string;
  ownerId: string;
  eventId: string;
  eventType: string;
  jobId: string;
  /** null: a job's callback_url. */
  endpointId: string | null;
  url: string;
  payload: string;
  status: DeliveryStatus;
  attempts: number;
  round: number;
  lastStatusCode: number;
  lastError: string;
  nextAttemptAt: Date | null;
  createdAt: Date;
}

export interface WebhookRepository {
  insertEndpoint(e: EndpointRecord): Promise<void>;
  /** The account's endpoints (not deleted), oldest first. */
  endpoints(ownerId: string): Promise<EndpointRecord[]>;
  /** An endpoint of the account (not deleted), or null. */
  endpoint(ownerId: string, id: string): Promise<EndpointRecord | null>;
  deleteEndpoint(ownerId: string, id: string, at: Date): Promise<boolean>;
  /** The account's callback secret, made with `make` the first time. */
  callbackSecret(ownerId: string, make: () => string): Promise<string>;
  /** The owner and callback_url of a job, if it has one. */
  jobCallback(jobId: string): Promise<{ ownerId: string; url: string } | null>;
  /** Inserts a delivery unless one with its id exists (events are redelivered). */
  insertDelivery(d: DeliveryRecord): Promise<void>;
  delivery(id: string): Promise<DeliveryRecord | null>;
  deliveries(ownerId: string, limit: number): Promise<DeliveryRecord[]>;
  /** Records a try's outcome. */
  recordAttempt(
    id: string,
    r: Pick<DeliveryRecord, 'status' | 'attempts' | 'lastStatusCode' | 'lastError' | 'nextAttemptAt'>,
  ): Promise<void>;
  /** Sets a delivery pending again for a new round of tries; the updated record, null when not the owner's. */
  resend(ownerId: string, id: string, at: Date): Promise<DeliveryRecord | null>;
}

/** One HTTP POST to a receiver: its status, or why there was none (timeout, refused address...). */
export type SendResult = { status: number } | { error: string };
export interface WebhookSender {
  post(url: string, headers: Record<string, string>, body: string): Promise<SendResult>;
}

/** Puts a delivery on the WEBHOOKS work queue (idempotent per delivery and round). */
export interface DeliveryQueue {
  enqueue(deliveryId: string, round: number): Promise<void>;
}

export interface WebhookOptions {
  /** WEBHOOK_ALLOW_PRIVATE: local receivers allowed (development and tests). */
  allowPrivate: boolean;
  /** The public URL of the product: download links in job.completed. */
  publicUrl: string;
  maxAttempts?: number;
  backoff?: { firstMs: number; maxMs: number };
  clock?: () => Date;
}

/** A job's fact, as the events carry it. */
export type JobFact =
  | { type: 'job.completed'; jobId: string; ownerId: string; at: Date; durationSec: number; sizeBytes: number }
  | { type: 'job.failed'; jobId: string; ownerId: string; at: Date; reason: string }
  | { type: 'job.cancelled'; jobId: string; ownerId: string; at: Date };

/** What a delivery's try decided: done (delivered, failed for good, or nothing to do), or try again later. */
export type DeliverOutcome = { done: true } | { done: false; retryInMs: number };

const secret = () => `whsec_${crypto.randomBytes(32).toString('base64url')}`;
/** The same id for the same event every time it is heard (events are redelivered). */
const eventIdOf = (type: string, jobId: string) =>
  `evt_${crypto.createHash('sha256').update(`${type}:${jobId}`).digest('hex').slice(0, 32)}`;
/** A delivery's id from its event and target, so a redelivered event makes no second delivery. */
const deliveryIdOf = (eventId: string, target: string) => {
  const h = crypto.createHash('sha256').update(`${eventId}|${target}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
};

/**
 * Webhooks: endpoints per account, and for each job fact one signed delivery per subscribed
 * endpoint (created before the fact) and to the job's callback_url. Deliveries are sent from the
 * WEBHOOKS work queue and tried again with exponential back-off on a non-2xx answer or no answer.
 */
export class WebhooksService {
  private readonly maxAttempts: number;
  constructor(
    private readonly repo: WebhookRepository,
    private readonly sender: WebhookSender,
    private readonly queue: DeliveryQueue,
    private readonly opts: WebhookOptions,
  ) {
    this.maxAttempts = opts.maxAttempts ?? WEBHOOK_BACKOFF.maxAttempts;
  }

  private now() {
    return (this.opts.clock ?? (() => new Date()))();
  }

  /** INVALID_ARGUMENT (invalid_webhook_url) unless the URL passes the SSRF guard. */
  checkUrl(url: string): void {
    checkWebhookUrl(url, this.opts.allowPrivate);
  }

  async createEndpoint(ownerId: string, url: string, events: readonly string[]): Promise<{ endpoint: EndpointRecord; secret: string }> {
    this.checkUrl(url);
    const unknown = events.filter((e) => !(WEBHOOK_EVENTS as readonly string[]).includes(e));
    if (!events.length || unknown.length)
      throw new DomainError(
        ErrorCode.INVALID_ARGUMENT,
        unknown.length ? `Unknown event: ${unknown.join(', ')}.` : 'Choose at least one event.',
        'invalid_webhook_events',
      );
    if ((await this.repo.endpoints(ownerId)).length >= MAX_WEBHOOK_ENDPOINTS)
      throw new DomainError(
        ErrorCode.RESOURCE_EXHAUSTED,
        `An account can have ${MAX_WEBHOOK_ENDPOINTS} webhook endpoints at most. Delete one first.`,
        'too_many_webhook_endpoints',
      );
    const endpoint: EndpointRecord = {
      id: crypto.randomUUID(),
      ownerId,
      url,
      events: [...new Set(events)],
      secret: secret(),
      createdAt: this.now(),
    };
    await this.repo.insertEndpoint(endpoint);
    return { endpoint, secret: endpoint.secret };
  }

  async listEndpoints(ownerId: string) {
    return { endpoints: await this.repo.endpoints(ownerId), callbackSecret: await this.repo.callbackSecret(ownerId, secret) };
  }

  async deleteEndpoint(ownerId: string, id: string) {
    if (!(await this.repo.deleteEndpoint(ownerId, id, this.now())))
      throw new DomainError(ErrorCode.NOT_FOUND, 'No such webhook endpoint.', 'webhook_endpoint_not_found');
  }

  listDeliveries(ownerId: string, limit: number) {
    return this.repo.deliveries(ownerId, Math.min(Math.max(limit || 20, 1), 100));
  }

  private payload(eventId: string, type: string, at: Date, data: Record<string, unknown>) {
    return JSON.stringify({ id: eventId, type, created: Math.floor(at.getTime() / 1000), data });
  }

  private dataOf(f: JobFact): Record<string, unknown> {
    const base = { job_id: f.jobId };
    if (f.type === 'job.completed')
      return {
        ...base,
        reel_id: f.jobId,
        download_url: `${this.opts.publicUrl.replace(/\/$/, '')}/api/v1/downloads/${f.jobId}`,
        duration_sec: f.durationSec,
        size_bytes: f.sizeBytes,
      };
    if (f.type === 'job.failed') return { ...base, reason: f.reason };
    return base;
  }

  /** A job fact: one delivery per endpoint subscribed to it since before it, and one to the job's callback_url. */
  async onJobFact(f: JobFact): Promise<number> {
    const eventId = eventIdOf(f.type, f.jobId);
    const payload = this.payload(eventId, f.type, f.at, this.dataOf(f));
    const targets: Array<{ endpointId: string | null; url: string }> = (await this.repo.endpoints(f.ownerId))
      .filter((e) => e.events.includes(f.type) && e.createdAt <= f.at)
      .map((e) => ({ endpointId: e.id, url: e.url }));
    const callback = await this.repo.jobCallback(f.jobId);
    if (callback?.url && callback.ownerId === f.ownerId) targets.push({ endpointId: null, url: callback.url });
    for (const t of targets) {
      const d = this.newDelivery(
        f.ownerId,
        eventId,
        f.type,
        f.jobId,
        t.endpointId,
        t.url,
        payload,
        deliveryIdOf(eventId, t.endpointId ?? 'callback'),
      );
      await this.repo.insertDelivery(d);
      await this.queue.enqueue(d.id, 0);
    }
    return targets.length;
  }

  private newDelivery(
    ownerId: string,
    eventId: string,
    eventType: string,
    jobId: string,
    endpointId: string | null,
    url: string,
    payload: string,
    id: string,
  ): DeliveryRecord {
    return {
      id,
      ownerId,
      eventId,
      eventType,
      jobId,
      endpointId,
      url,
      payload,
      status: 'pending',
      attempts: 0,
      round: 0,
      lastStatusCode: 0,
      lastError: '',
      nextAttemptAt: this.now(),
      createdAt: this.now(),
    };
  }

  /** A `test` event to one of the account's endpoints. */
  async sendTest(ownerId: string, endpointId: string): Promise<DeliveryRecord> {
    const e = await this.repo.endpoint(ownerId, endpointId);
    if (!e) throw new DomainError(ErrorCode.NOT_FOUND, 'No such webhook endpoint.', 'webhook_endpoint_not_found');
    const eventId = `evt_${crypto.randomBytes(16).toString('hex')}`;
    const payload = this.payload(eventId, 'test', this.now(), { message: 'A test event from Reelsmith: your endpoint receives webhooks.' });
    const d = this.newDelivery(ownerId, eventId, 'test', '', e.id, e.url, payload, crypto.randomUUID());
    await this.repo.insertDelivery(d);
    await this.queue.enqueue(d.id, 0);
    return d;
  }

  /** Sends one of the account's deliveries again now, with a fresh round of tries. */
  async resend(ownerId: string, id: string): Promise<DeliveryRecord> {
    const d = await this.repo.resend(ownerId, id, this.now());
    if (!d) throw new DomainError(ErrorCode.NOT_FOUND, 'No such webhook delivery.', 'webhook_delivery_not_found');
    await this.queue.enqueue(d.id, d.round);
    return d;
  }

  /** One try of a delivery (from the work queue): sent signed, its outcome logged; a failure is tried again later. */
  async deliver(id: string, round: number): Promise<DeliverOutcome> {
    const d = await this.repo.delivery(id);
    // Delivered, given up, or superseded by a resend (a newer round has its own message).
    if (!d || d.status !== 'pending' || d.round !== round) return { done: true };
    const signingSecret = d.endpointId
      ? (await this.repo.endpoint(d.ownerId, d.endpointId))?.secret
      : await this.repo.callbackSecret(d.ownerId, secret);
    const attempts = d.attempts + 1;
    if (!signingSecret) {
      await this.repo.recordAttempt(id, {
        status: 'failed',
        attempts: d.attempts,
        lastStatusCode: 0,
        lastError: 'The endpoint was deleted.',
        nextAttemptAt: null,
      });
      return { done: true };
    }
    let result: SendResult;
    try {
      checkWebhookUrl(d.url, this.opts.allowPrivate);
      const t = Math.floor(this.now().getTime() / 1000);
      result = await this.sender.post(
        d.url,
        {
          'content-type': 'application/json',
          'user-agent': 'Reelsmith-Webhooks/1',
          [SIGNATURE_HEADER.toLowerCase()]: signHeader(signingSecret, t, d.payload),
          'reelsmith-event-id': d.eventId,
          'reelsmith-event-type': d.eventType,
        },
        d.payload,
      );
    } catch (e) {
      result = { error: e instanceof Error ? e.message : String(e) };
    }
    const code = 'status' in result ? result.status : 0;
    if (code >= 200 && code < 300) {
      await this.repo.recordAttempt(id, { status: 'delivered', attempts, lastStatusCode: code, lastError: '', nextAttemptAt: null });
      return { done: true };
    }
    const lastError = 'error' in result ? result.error.slice(0, 300) : `The endpoint answered HTTP ${code}.`;
    if (attempts >= this.maxAttempts) {
      await this.repo.recordAttempt(id, { status: 'failed', attempts, lastStatusCode: code, lastError, nextAttemptAt: null });
      return { done: true };
    }
    const retryInMs = retryDelayMs(attempts, this.opts.backoff);
    await this.repo.recordAttempt(id, {
      status: 'pending',
      attempts,
      lastStatusCode: code,
      lastError,
      nextAttemptAt: new Date(this.now().getTime() + retryInMs),
    });
    return { done: false, retryInMs };
  }
}
