// In-memory fakes of the identity service's ports, its settings and the set-up the identity service specs share.
import type { DomainError } from '@reelsmith/kit';
import { domainFailure } from '@reelsmith/kit/testing';
import {
  IdentityService,
  type IdentityRepository,
  type Mailer,
  type PasswordHasher,
  type RateLimiter,
  type Secrets,
  type UserRecord,
  type VerificationKind,
} from '../../src/domain/identity.service';

/** The identity tables as the SQL keeps them: lower-cased unique e-mails, single-use verifications. */
export class MemoryIdentity implements IdentityRepository {
  users = new Map<string, UserRecord>();
  sessions = new Map<string, { userId: string; expiresAt: Date; revokedAt: Date | null; loginType: string }>();
  verifications: Array<{ userId: string; kind: VerificationKind; tokenHash: string; expiresAt: Date; usedAt: Date | null }> = [];
  pass = { enabled: false, userId: null as string | null };

  async findUserByEmail(email: string) {
    return [...this.users.values()].find((u) => u.email === email.toLowerCase()) ?? null;
  }
  async findUserById(id: string) {
    return this.users.get(id) ?? null;
  }
  async createUser(u: { id: string; email: string; passwordHash: string; isGuest?: boolean; verifiedAt?: Date | null }) {
    if (await this.findUserByEmail(u.email)) return false;
    this.users.set(u.id, {
      id: u.id,
      email: u.email.toLowerCase(),
      passwordHash: u.passwordHash,
      isAdmin: false,
      isGuest: u.isGuest ?? false,
      emailVerifiedAt: u.verifiedAt ?? null,
      createdAt: new Date('2026-01-01T00:00:00Z'),
    });
    return true;
  }
  async markVerified(userId: string, at: Date) {
    const u = this.users.get(userId);
    if (u && !u.emailVerifiedAt) u.emailVerifiedAt = at;
  }
  async setPassword(userId: string, passwordHash: string) {
    this.users.get(userId)!.passwordHash = passwordHash;
  }
  async setAdmin(email: string, isAdmin: boolean) {
    const u = [...this.users.values()].find((x) => x.email === email.toLowerCase() && !x.isGuest);
    if (!u) return null;
    u.isAdmin = isAdmin;
    return { id: u.id, email: u.email };
  }
  async retireUser(userId: string, email: string, passwordHash: string, at: Date) {
    const u = this.users.get(userId);
    if (!u || u.isGuest) return false;
    Object.assign(u, { email: email.toLowerCase(), passwordHash });
    await this.revokeUserSessions(userId, at);
    this.verifications = this.verifications.filter((v) => v.userId !== userId || v.usedAt);
    return true;
  }
  async createSession(s: { userId: string; tokenHash: string; expiresAt: Date; loginType: string }) {
    this.sessions.set(s.tokenHash, { userId: s.userId, expiresAt: s.expiresAt, revokedAt: null, loginType: s.loginType });
  }
  async findSession(tokenHash: string) {
    return this.sessions.get(tokenHash) ?? null;
  }
  async revokeSession(tokenHash: string, at: Date) {
    const s = this.sessions.get(tokenHash);
    if (s && !s.revokedAt) s.revokedAt = at;
  }
  async revokeUserSessions(userId: string, at: Date) {
    for (const s of this.sessions.values()) if (s.userId === userId && !s.revokedAt) s.revokedAt = at;
  }
  async revokeOtherSessions(userId: string, keep: string, at: Date) {
    let n = 0;
    for (const [h, s] of this.sessions)
      if (s.userId === userId && !s.revokedAt && h !== keep) {
        s.revokedAt = at;
        n++;
      }
    return n;
  }
  async replaceReset(userId: string, tokenHash: string, expiresAt: Date) {
    this.verifications = this.verifications.filter((v) => v.userId !== userId || v.usedAt || v.kind !== 'reset');
    this.verifications.push({ userId, kind: 'reset', tokenHash, expiresAt, usedAt: null });
  }
  async deleteUser(userId: string) {
    this.users.delete(userId);
    for (const [h, s] of this.sessions) if (s.userId === userId) this.sessions.delete(h);
    this.verifications = this.verifications.filter((v) => v.userId !== userId);
  }
  async replaceVerifications(userId: string, items: { kind: VerificationKind; tokenHash: string }[], expiresAt: Date) {
    this.verifications = this.verifications.filter((v) => v.userId !== userId || v.usedAt || v.kind === 'reset');
    for (const i of items) this.verifications.push({ userId, ...i, expiresAt, usedAt: null });
  }
  async consumeVerification(kind: VerificationKind, tokenHash: string, now: Date) {
    const v = this.verifications.find((x) => x.kind === kind && x.tokenHash === tokenHash && !x.usedAt && x.expiresAt > now);
    if (!v) return null;
    v.usedAt = now;
    return v.userId;
  }
  async setDisplayName(userId: string, displayName: string | null) {
    const u = this.users.get(userId);
    if (!u) return null;
    u.displayName = displayName;
    return u;
  }
  async publicNames(userIds: string[]) {
    const out = new Map<string, string>();
    for (const id of userIds) {
      const name = this.users.get(id)?.displayName;
      if (name) out.set(id, name);
    }
    return out;
  }
  async guestPass() {
    return { ...this.pass };
  }
  async setGuestPass(enabled: boolean, userId: string | null) {
    this.pass = { enabled, userId };
  }
}

/** Fixed windows, counted per key, as the database limiter counts them. */
export class MemoryLimiter implements RateLimiter {
  private counts = new Map<string, number>();
  constructor(private readonly clock: () => Date) {}
  async hit(key: string, limit: number, windowMs: number) {
    const now = this.clock().getTime();
    const k = `${key}@${now - (now % windowMs)}`;
    const n = (this.counts.get(k) ?? 0) + 1;
    this.counts.set(k, n);
    return n <= limit;
  }
}

export interface Sent {
  kind: 'verification' | 'already' | 'reset' | 'changed' | 'deleted';
  to: string;
  link?: string;
  code?: string;
}

export const ADMIN_EMAIL = 'boss@reelsmith.test';
export const GUEST_EMAIL = 'guest@reelsmith.test';
export const PUBLIC_URL = 'https://reels.example/';
export const SESSION_TTL_MS = 3600_000;
export const IP = '203.0.113.7';

export function setup() {
  let now = new Date('2026-03-01T12:00:00Z');
  let counter = 0;
  const repo = new MemoryIdentity();
  const mail: Sent[] = [];
  const hasher: PasswordHasher = {
    hash: async (p) => `hashed(${p})`,
    verify: async (h, p) => h === `hashed(${p})`,
  };
  const secrets: Secrets = {
    token: () => `token${++counter}`,
    // Distinct 6-digit codes, so an old code differs from a new one.
    code: () => String(100000 + ++counter),
    hash: (v) => `hmac(${v})`,
    password: () => `guest-password-${++counter}`,
  };
  const mailer: Mailer = {
    sendVerification: async (to, link, code) => void mail.push({ kind: 'verification', to, link, code }),
    sendAlreadyRegistered: async (to) => void mail.push({ kind: 'already', to }),
    sendPasswordReset: async (to, link) => void mail.push({ kind: 'reset', to, link }),
    sendPasswordChanged: async (to) => void mail.push({ kind: 'changed', to }),
    sendAccountDeleted: async (to) => void mail.push({ kind: 'deleted', to }),
  };
  const ended: Array<{ tokenHashes: string[]; userId?: string; sessionsRemain?: boolean }> = [];
  const service = new IdentityService(repo, hasher, secrets, mailer, new MemoryLimiter(() => now), {
    privilegedEmails: new Set([ADMIN_EMAIL]),
    publicUrl: PUBLIC_URL,
    guestEmail: GUEST_EMAIL,
    sessionTtlMs: SESSION_TTL_MS,
    clock: () => now,
    onSessionsEnded: (r) => void ended.push(r),
  });
  const lastMail = (to: string) => mail.filter((m) => m.to === to).at(-1);
  const tokenOf = (m: Sent | undefined) => new URL(m!.link!).searchParams.get('token')!;
  /** Signs up and verifies by code; returns the session of the verification. */
  const verifiedUser = async (email: string, password = 'secret-pw') => {
    const { email: normalized } = await service.register(email, password, IP);
    return service.verifyEmail({ email, code: lastMail(normalized)!.code }, IP);
  };
  return {
    service,
    ended,
    repo,
    mail,
    lastMail,
    tokenOf,
    verifiedUser,
    advance: (ms: number) => void (now = new Date(now.getTime() + ms)),
  };
}

/** Runs `fn` and returns the DomainError it rejects with. */
export const failure = (fn: () => Promise<unknown>): Promise<DomainError> => domainFailure(fn());
