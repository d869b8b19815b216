import crypto from 'node:crypto';
import { DomainError, ErrorCode, isDomainError } from '@reelsmith/kit';
import { API_KEY_PREFIX, isApiKeyScope, isApiKeySecret } from '@reelsmith/proto';
import type { IdentityService, UserView } from './identity.service.js';

export interface ApiKeyRecord {
  id: string;
  userId: string;
  name: string;
  prefix: string;
  scopes: string[];
  /** Keyed hash (HMAC under the server's key) of the secret: the lookup column. */
  secretHash: string;
  /** sha256 hex of the secret: what the gateways key their caches by (told on revocation). */
  publicHash: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

export interface ApiKeyRepository {
  insert(k: ApiKeyRecord): Promise<void>;
  /** The user's keys that are not revoked, newest first. */
  listActive(userId: string): Promise<ApiKeyRecord[]>;
  countActive(userId: string): Promise<number>;
  bySecretHash(secretHash: string): Promise<ApiKeyRecord | null>;
  /** Marks the user's key revoked; the record as it was, null when none (or already revoked). */
  revoke(userId: string, keyId: string, at: Date): Promise<ApiKeyRecord | null>;
  touch(keyId: string, at: Date): Promise<void>;
}

/** A user's keys at most; past it, revoke one first. */
export const MAX_API_KEYS = 25;
/** last_used_at is written at most this often per key (a gateway verifies a key once per cache TTL). */
export const LAST_USED_RESOLUTION_MS = 60_000;

const invalidKey = () => new DomainError(ErrorCode.UNAUTHENTICATED, 'This API key is not valid or was revoked.', 'invalid_api_key');
const sha256 = (s: string) => crypto.createHash('sha256').update(s).digest('hex');

export interface ApiKeyDeps {
  repo: ApiKeyRepository;
  users: Pick<IdentityService, 'user'>;
  /** Keyed hash for storage (identity's TOKEN_SECRET HMAC). */
  hash: (value: string) => string;
  /** Every gateway drops the key from its cache at once (sessions.revoked with its sha256). */
  onRevoked: (publicHashes: string[]) => void;
  clock?: () => Date;
  random?: (bytes: number) => Buffer;
}

/**
 * API keys: `rs_live_` + 256 random bits (base64url), answered once, stored only as hashes.
 * Scopes come from the shared list; the plan is checked by the caller (the gateway asks billing).
 */
export class ApiKeysService {
  constructor(private readonly d: ApiKeyDeps) {}

  private now() {
    return (this.d.clock ?? (() => new Date()))();
  }

  async create(userId: string, rawName: string, scopes: readonly string[]): Promise<{ key: ApiKeyRecord; secret: string }> {
    const name = rawName.trim();
    if (!name || name.length > 60 || /\p{Cc}/u.test(name))
      throw new DomainError(ErrorCode.INVALID_ARGUMENT, 'Give the key a name of 1 to 60 characters on one line.', 'invalid_api_key_name');
    const unknown = scopes.filter((s) => !isApiKeyScope(s));
    if (!scopes.length || unknown.length)
      throw new DomainError(
        ErrorCode.INVALID_ARGUMENT,
        unknown.length ? `Unknown scope: ${unknown.join(', ')}.` : 'Choose at least one scope for the key.',
        'invalid_scopes',
      );
    await this.d.users.user(userId);
    if ((await this.d.repo.countActive(userId)) >= MAX_API_KEYS)
      throw new DomainError(
        ErrorCode.RESOURCE_EXHAUSTED,
        `An account can have ${MAX_API_KEYS} API keys at most. Revoke one you no longer use first.`,
        'too_many_api_keys',
      );
    const secret = API_KEY_PREFIX + (this.d.random ?? crypto.randomBytes)(32).toString('base64url');
    const key: ApiKeyRecord = {
      id: crypto.randomUUID(),
      userId,
      name,
      prefix: secret.slice(0, API_KEY_PREFIX.length + 6),
      scopes: [...new Set(scopes)],
      secretHash: this.d.hash(`apikey:${secret}`),
      publicHash: sha256(secret),
      createdAt: this.now(),
      lastUsedAt: null,
      revokedAt: null,
    };
    await this.d.repo.insert(key);
    return { key, secret };
  }

  list(userId: string): Promise<ApiKeyRecord[]> {
    return this.d.repo.listActive(userId);
  }

  /** Revokes the key; its public hash, so the gateway that asked drops it from its own cache at once. */
  async revoke(userId: string, keyId: string): Promise<string> {
    const k = await this.d.repo.revoke(userId, keyId, this.now());
    if (!k) throw new DomainError(ErrorCode.NOT_FOUND, 'No such API key.', 'api_key_not_found');
    this.d.onRevoked([k.publicHash]);
    return k.publicHash;
  }

  /** The key's user and the key; UNAUTHENTICATED unless the secret is a live key of an existing account. */
  async authenticate(secret: string): Promise<{ user: UserView; key: ApiKeyRecord }> {
    if (!isApiKeySecret(secret) || secret.length > 200) throw invalidKey();
    const key = await this.d.repo.bySecretHash(this.d.hash(`apikey:${secret}`));
    if (!key || key.revokedAt) throw invalidKey();
    let user: UserView;
    try {
      user = await this.d.users.user(key.userId);
    } catch (e) {
      // The account is gone: the key is not valid. Any other failure (the database) is not the key's.
      if (isDomainError(e) && e.code === ErrorCode.NOT_FOUND) throw invalidKey();
      throw e;
    }
    const now = this.now();
    if (!key.lastUsedAt || now.getTime() - key.lastUsedAt.getTime() >= LAST_USED_RESOLUTION_MS) {
      await this.d.repo.touch(key.id, now);
      key.lastUsedAt = now;
    }
    return { user, key };
  }
}
