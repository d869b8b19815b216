import crypto from 'node:crypto';
import { DomainError, ErrorCode } from '@reelsmith/kit';

/** A stored first answer (status null: its request is still running). */
export interface IdempotencyRecord {
  fingerprint: string;
  status: number | null;
  body: string | null;
  createdAt: Date;
}

export interface IdempotencyStore {
  /**
   * Takes the key for this request when it is free: unknown, expired (created before `expiredBefore`),
   * or left running by a request that died (created before `staleBefore`), recording `claim` (a
   * random token) as its holder. True when taken.
   */
  claim(
    ownerId: string,
    key: string,
    fingerprint: string,
    claim: string,
    now: Date,
    expiredBefore: Date,
    staleBefore: Date,
  ): Promise<boolean>;
  read(ownerId: string, key: string): Promise<IdempotencyRecord | null>;
  /** Keeps the answer, only while `claim` still holds the key (a request taken over saves nothing). */
  complete(ownerId: string, key: string, claim: string, status: number, body: string): Promise<void>;
  /** Forgets a running key held by `claim` (its request failed): a retry runs again. */
  release(ownerId: string, key: string, claim: string): Promise<void>;
  /** Drops keys created before `before`; the count dropped. */
  sweep(before: Date): Promise<number>;
}

export interface IdempotencyOptions {
  /** A key's first answer is kept this long (24 hours). */
  ttlMs: number;
  /** A retry waits this long for the first request to finish, then answers 409. */
  waitMs: number;
  pollMs: number;
  /**
   * A key still running after this long belongs to a request that died: the next one takes it.
   * Longer than any request can take (the largest upload over a slow uplink): 2 hours.
   */
  staleMs: number;
  clock: () => Date;
}

export const IDEMPOTENCY_DEFAULTS: IdempotencyOptions = {
  ttlMs: 24 * 3600_000,
  waitMs: 10_000,
  pollMs: 50,
  staleMs: 2 * 3600_000,
  clock: () => new Date(),
};

/** run: this request holds the key with `claim`, which saving or freeing it must name. */
export type Begin = { run: true; claim: string } | { run: false; status: number; body: string };

/** Seconds a retry told "still running" (409) should wait: its Retry-After. */
export const IN_PROGRESS_RETRY_AFTER_S = 2;

/** Keys clients choose: 1 to 255 visible ASCII characters (a UUID is typical). */
const KEY = /^[\x21-\x7e]{1,255}$/;

/** Objects with their keys sorted, so the same JSON in another order has the same fingerprint. */
export function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (v && typeof v === 'object')
    return `{${Object.keys(v)
      .sort()
      .filter((k) => (v as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(v) ?? 'null';
}

/** What makes two requests "the same": the route and the body (an upload: its size). */
export const fingerprint = (route: string, body: string) =>
  crypto.createHash('sha256').update(route).update('\n').update(body).digest('hex');

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Idempotency-Key, per account: the first request with a key runs; the same key with the same
 * request answers the first answer again (nothing runs twice); with a different request, 409. A
 * retry while the first still runs waits for it, up to `waitMs`, then answers 409 with Retry-After.
 * Only successful answers are kept: a failed request frees its key.
 */
export class Idempotency {
  private readonly opts: IdempotencyOptions;
  constructor(
    private readonly store: IdempotencyStore,
    opts: Partial<IdempotencyOptions> = {},
  ) {
    this.opts = { ...IDEMPOTENCY_DEFAULTS, ...opts };
  }

  static checkKey(key: string) {
    if (!KEY.test(key))
      throw new DomainError(
        ErrorCode.INVALID_ARGUMENT,
        'The Idempotency-Key header must be 1 to 255 visible characters (a UUID, for example).',
        'invalid_idempotency_key',
      );
  }

  async begin(ownerId: string, key: string, print: string): Promise<Begin> {
    Idempotency.checkKey(key);
    const { ttlMs, waitMs, pollMs, staleMs, clock } = this.opts;
    const deadline = clock().getTime() + waitMs;
    for (;;) {
      const now = clock();
      const claim = crypto.randomUUID();
      if (await this.store.claim(ownerId, key, print, claim, now, new Date(now.getTime() - ttlMs), new Date(now.getTime() - staleMs)))
        return { run: true, claim };
      const r = await this.store.read(ownerId, key);
      if (!r) continue; // released or swept between the two statements: claim again
      if (r.fingerprint !== print)
        throw new DomainError(
          ErrorCode.ALREADY_EXISTS,
          'This Idempotency-Key was already used for a different request. Use a new key for a new request.',
          'idempotency_key_reused',
        );
      if (r.status !== null && r.body !== null) return { run: false, status: r.status, body: r.body };
      if (clock().getTime() >= deadline)
        throw new DomainError(
          ErrorCode.FAILED_PRECONDITION,
          'A request with this Idempotency-Key is still running. Retry in a few seconds to get its answer.',
          'idempotency_in_progress',
        );
      await sleep(pollMs);
    }
  }

  complete(ownerId: string, key: string, claim: string, status: number, body: string) {
    return this.store.complete(ownerId, key, claim, status, body);
  }

  release(ownerId: string, key: string, claim: string) {
    return this.store.release(ownerId, key, claim);
  }

  /** Drops the keys past their 24 hours. */
  sweep() {
    return this.store.sweep(new Date(this.opts.clock().getTime() - this.opts.ttlMs));
  }
}
