import crypto from 'node:crypto';
import { DomainError, ErrorCode, isDomainError } from '@reelsmith/kit';
import { OVERLOADED_DETAIL } from './admission.js';
import type { ApiKeyGrant } from './api-access.js';
import { evict } from './evict.js';

/** The caller as the gateway knows it after checking the bearer token. */
export interface Caller {
  id: string;
  email: string;
  isAdmin: boolean;
  isGuest: boolean;
  /** Never charged or limited by billing (identity decides: admins and the guest pass). */
  unlimited: boolean;
  /** The public name for the Hall of Fame; empty or absent: none. */
  displayName?: string;
  /** Set when the bearer is an API key rather than a session (see domain/api-access.ts). */
  apiKey?: ApiKeyGrant;
}

export interface SessionCacheLimits {
  /** Sessions kept; the least recently used goes first. */
  maxEntries: number;
  /** A cached verification is trusted this long (revocation events end it sooner). */
  ttlMs: number;
}

export const SESSION_CACHE_DEFAULTS: SessionCacheLimits = { maxEntries: 10_000, ttlMs: 30_000 };

/** Identity's answer for a token: the user, or an error (UNAUTHENTICATED when the token is invalid). */
export type VerifyWithIdentity = (token: string) => Promise<Caller>;

export interface VerificationObserver {
  verified(seconds: number, outcome: 'valid' | 'invalid' | 'unavailable'): void;
  cache(hit: boolean): void;
}

/** The SHA-256 of a token (one-shot: it runs on every signed-in request). */
export const tokenHash = (token: string): string => crypto.hash('sha256', token, 'hex');

/** What a caller hears when identity could not answer: retry, never "signed out". */
export const identityUnavailable = () => new DomainError(ErrorCode.UNAVAILABLE, OVERLOADED_DETAIL, 'identity_unavailable');

interface Entry {
  caller: Caller;
  expires: number;
  /** Read since it last reached the back of the eviction order (see `evict`). */
  read: boolean;
}

/**
 * Session verification in the gateway: a bounded LRU of recent verifications with a short TTL,
 * one call to identity for any number of concurrent verifications of the same token, and
 * revocation (by token or by user) that takes effect at once.
 *
 * `verify` resolves to the caller, or to null only when identity said the token is invalid; any
 * other failure (timeout, overload, identity unreachable) rejects with UNAVAILABLE, so no caller is
 * ever told they are signed out because the system was busy.
 */
export class SessionVerifier {
  private readonly cache = new Map<string, Entry>();
  private readonly pending = new Map<string, Promise<Caller | null>>();
  /** Bumped on every revocation: a verification that started before it is not cached. */
  private epoch = 0;

  constructor(
    private readonly identity: VerifyWithIdentity,
    private readonly limits: SessionCacheLimits,
    private readonly observer?: VerificationObserver,
    private readonly now: () => number = Date.now,
  ) {}

  get size() {
    return this.cache.size;
  }

  /**
   * The cached caller of a token, if its verification is cached and fresh (no call to identity).
   * `count: false` leaves the cache's hit out of the metrics (a caller that may hand the request on
   * to the auth hook, which looks it up again, counts it with `countHit` once it answers itself).
   */
  cached(token: string, count = true): Caller | undefined {
    return this.lookup(tokenHash(token), count);
  }

  /** Counts a cache hit of a `cached(token, false)` lookup that answered the request. */
  countHit(): void {
    this.observer?.cache(true);
  }

  private lookup(key: string, count = true): Caller | undefined {
    const hit = this.cache.get(key);
    if (hit && hit.expires > this.now()) {
      // Marked, not moved: moving it to the end of the map's order on every request (a delete and
      // a set) made the map rebuild its table every few requests; `evict` moves the marked ones.
      hit.read = true;
      if (count) this.observer?.cache(true);
      return hit.caller;
    }
    if (hit) this.cache.delete(key);
    return undefined;
  }

  async verify(token: string): Promise<Caller | null> {
    const key = tokenHash(token);
    const hit = this.lookup(key);
    if (hit) return hit;
    this.observer?.cache(false);
    const inFlight = this.pending.get(key);
    if (inFlight) return inFlight;
    const call: Promise<Caller | null> = this.ask(key, token).finally(() => {
      if (this.pending.get(key) === call) this.pending.delete(key);
    });
    this.pending.set(key, call);
    return call;
  }

  private async ask(key: string, token: string): Promise<Caller | null> {
    const epoch = this.epoch;
    const started = process.hrtime.bigint();
    const seconds = () => Number(process.hrtime.bigint() - started) / 1e9;
    let caller: Caller;
    try {
      caller = await this.identity(token);
    } catch (e) {
      if (isDomainError(e) && e.code === ErrorCode.UNAUTHENTICATED) {
        this.observer?.verified(seconds(), 'invalid');
        return null;
      }
      this.observer?.verified(seconds(), 'unavailable');
      throw identityUnavailable();
    }
    this.observer?.verified(seconds(), 'valid');
    if (epoch === this.epoch) {
      this.cache.set(key, { caller, expires: this.now() + this.limits.ttlMs, read: false });
      evict(this.cache, this.limits.maxEntries);
    }
    return caller;
  }

  /** Ends cached sessions at once: the given token hashes, and every session of `userId` if set. */
  revoke(tokenHashes: readonly string[], userId?: string): number {
    this.epoch++;
    let n = 0;
    for (const h of tokenHashes) if (this.cache.delete(h)) n++;
    // Pending verifications of these tokens must not hand out the old answer to later callers.
    for (const h of tokenHashes) this.pending.delete(h);
    if (userId)
      for (const [k, e] of this.cache)
        if (e.caller.id === userId) {
          this.cache.delete(k);
          n++;
        }
    return n;
  }
}
