import { createHash } from 'node:crypto';
import { DomainError, ErrorCode } from '@reelsmith/kit';
import { displayNameProblem, normaliseDisplayName, SYSTEM_ACCOUNT } from '@reelsmith/proto';
import {
  checkPassword,
  errors,
  isReservedEmail,
  LIMITS,
  normalizeEmail,
  RESET_TTL_MS,
  retiredEmail,
  VERIFICATION_TTL_MS,
} from './rules.js';

export interface UserRecord {
  id: string;
  email: string;
  passwordHash: string;
  isAdmin: boolean;
  isGuest: boolean;
  /** The public name for the Hall of Fame; null (or absent): none. */
  displayName?: string | null;
  emailVerifiedAt: Date | null;
  createdAt: Date;
}

export interface UserView {
  id: string;
  email: string;
  isAdmin: boolean;
  isGuest: boolean;
  /** Admins and the guest pass (enterprise access) are never charged or limited by billing. */
  unlimited: boolean;
  emailVerified: boolean;
  createdAt: Date;
  /** Empty: none. */
  displayName: string;
}

export interface Session {
  token: string;
  expiresAt: Date;
  user: UserView;
}

export type VerificationKind = 'link' | 'code' | 'reset';

export interface IdentityRepository {
  findUserByEmail(email: string): Promise<UserRecord | null>;
  findUserById(id: string): Promise<UserRecord | null>;
  /** False when the e-mail is taken (a concurrent sign-up won). */
  createUser(u: { id: string; email: string; passwordHash: string; isGuest?: boolean; verifiedAt?: Date | null }): Promise<boolean>;
  markVerified(userId: string, at: Date): Promise<void>;
  setPassword(userId: string, passwordHash: string): Promise<void>;
  /**
   * In one transaction, a regular (non-guest) account gets a new address and password hash, its
   * sessions are revoked and its unused verifications dropped. False when no such regular account.
   */
  retireUser(userId: string, email: string, passwordHash: string, at: Date): Promise<boolean>;
  /** Sets the stored admin flag of a regular account and records the change; null when none has the e-mail. */
  setAdmin?(email: string, isAdmin: boolean, by: string): Promise<{ id: string; email: string } | null>;
  /** Records a refused sign-in (for the admin's activity feed). */
  loginFailed?(email: string, userId: string | null, reason: string): Promise<void>;
  /** Stores the session and records the login fact in the same transaction. */
  createSession(s: { userId: string; tokenHash: string; expiresAt: Date; loginType: string; email: string }): Promise<void>;
  findSession(tokenHash: string): Promise<{ userId: string; expiresAt: Date; revokedAt: Date | null } | null>;
  revokeSession(tokenHash: string, at: Date): Promise<void>;
  revokeUserSessions(userId: string, at: Date): Promise<void>;
  /** Every session of the user but `keepTokenHash`; returns the revoked sessions' count. */
  revokeOtherSessions(userId: string, keepTokenHash: string, at: Date): Promise<number>;
  /** Replaces the user's unused reset links with this one. */
  replaceReset(userId: string, tokenHash: string, expiresAt: Date): Promise<void>;
  /** Deletes the account, its sessions and its verifications, in one transaction. */
  deleteUser(userId: string): Promise<void>;
  /** Invalidates the user's unused verifications and stores the new ones (none: just invalidate). */
  replaceVerifications(userId: string, items: { kind: VerificationKind; tokenHash: string }[], expiresAt: Date): Promise<void>;
  /** Marks a matching unused, unexpired verification used and returns its user; once only. */
  consumeVerification(kind: VerificationKind, tokenHash: string, now: Date): Promise<string | null>;
  /** Sets (or, null, clears) the public name; the updated user, null when there is no such account. */
  setDisplayName(userId: string, displayName: string | null): Promise<UserRecord | null>;
  /** The public names of those of `userIds` that have one. */
  publicNames(userIds: string[]): Promise<Map<string, string>>;
  guestPass(): Promise<{ enabled: boolean; userId: string | null }>;
  setGuestPass(enabled: boolean, userId: string | null, adminUserId: string): Promise<void>;
}

export interface PasswordHasher {
  hash(password: string): Promise<string>;
  verify(hash: string, password: string): Promise<boolean>;
}

export interface Secrets {
  /** >= 128 random bits, URL-safe. */
  token(): string;
  /** A random 6-digit code. */
  code(): string;
  /** Keyed hash for storage: a stolen table gives neither tokens nor codes. */
  hash(value: string): string;
  /** A random password for the guest account. */
  password(): string;
}

export interface Mailer {
  sendVerification(to: string, link: string, code: string): Promise<void>;
  sendAlreadyRegistered(to: string, signInUrl: string): Promise<void>;
  sendPasswordReset(to: string, link: string): Promise<void>;
  sendPasswordChanged(to: string): Promise<void>;
  sendAccountDeleted(to: string): Promise<void>;
}

export interface RateLimiter {
  /** Counts one attempt; false when the key is over its limit in the current window. */
  hit(key: string, limit: number, windowMs: number): Promise<boolean>;
}

export interface IdentityOptions {
  privilegedEmails: ReadonlySet<string>;
  publicUrl: string;
  guestEmail: string;
  sessionTtlMs: number;
  clock?: () => Date;
  /** Sessions just ended (by token hash, or all of a user's): published for the gateways' caches. */
  onSessionsEnded?: (r: { tokenHashes: string[]; userId?: string; sessionsRemain?: boolean }) => void;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The hash the gateways key their session cache by (sha256 hex of the token; not the stored keyed hash). */
export const publicTokenHash = (token: string) => createHash('sha256').update(token).digest('hex');

/**
 * Accounts: sign-up with e-mail verification, sessions, roles, the guest pass.
 * Sign-up and sign-in answer the same for known and unknown e-mails; tokens and codes are random,
 * stored only as keyed hashes, expire, and work once.
 */
export class IdentityService {
  private readonly now: () => Date;
  private dummy?: Promise<string>;

  constructor(
    private readonly repo: IdentityRepository,
    private readonly hasher: PasswordHasher,
    private readonly secrets: Secrets,
    private readonly mailer: Mailer,
    private readonly limiter: RateLimiter,
    private readonly opts: IdentityOptions,
  ) {
    this.now = opts.clock ?? (() => new Date());
  }

  view(u: UserRecord): UserView {
    const isAdmin = u.isAdmin || this.opts.privilegedEmails.has(u.email.toLowerCase());
    return {
      id: u.id,
      email: u.email,
      isAdmin,
      isGuest: u.isGuest,
      unlimited: isAdmin || u.isGuest || u.id === SYSTEM_ACCOUNT.id,
      emailVerified: u.emailVerifiedAt !== null,
      createdAt: u.createdAt,
      displayName: u.displayName ?? '',
    };
  }

  private async limit(pairs: Array<[string, { limit: number; windowMs: number }]>): Promise<void> {
    for (const [key, l] of pairs) if (!(await this.limiter.hit(key, l.limit, l.windowMs))) throw errors.rateLimited();
  }

  private codeHash(userId: string, code: string) {
    return this.secrets.hash(`code:${userId}:${code}`);
  }

  private async sendVerification(user: UserRecord): Promise<void> {
    const token = this.secrets.token();
    const code = this.secrets.code();
    await this.repo.replaceVerifications(
      user.id,
      [
        { kind: 'link', tokenHash: this.secrets.hash(`link:${token}`) },
        { kind: 'code', tokenHash: this.codeHash(user.id, code) },
      ],
      new Date(this.now().getTime() + VERIFICATION_TTL_MS),
    );
    await this.mailer.sendVerification(user.email, `${this.opts.publicUrl.replace(/\/$/, '')}/verify-email?token=${token}`, code);
  }

  /** The answer is the same whether the e-mail was new, unverified or taken. */
  async register(rawEmail: string, password: string, ip: string): Promise<{ email: string }> {
    const email = normalizeEmail(rawEmail);
    // Known from the address alone, so refusing it reveals nothing about any account.
    if (isReservedEmail(email, this.opts.guestEmail)) throw errors.reservedEmail();
    checkPassword(password);
    await this.limit([
      [`register:ip:${ip}`, LIMITS.registerIp],
      [`register:acct:${email}`, LIMITS.registerAccount],
    ]);
    // Always hash, so a taken e-mail does not answer faster than a new one.
    const passwordHash = await this.hasher.hash(password);
    const existing = await this.repo.findUserByEmail(email);
    if (existing) {
      if (existing.emailVerifiedAt) await this.mailer.sendAlreadyRegistered(email, this.opts.publicUrl);
      else await this.sendVerification(existing);
      return { email };
    }
    const id = crypto.randomUUID();
    if (!(await this.repo.createUser({ id, email, passwordHash }))) return { email };
    await this.sendVerification((await this.repo.findUserById(id))!);
    return { email };
  }

  private async openSession(user: UserRecord, loginType: string): Promise<Session> {
    const token = this.secrets.token();
    const expiresAt = new Date(this.now().getTime() + this.opts.sessionTtlMs);
    await this.repo.createSession({
      userId: user.id,
      tokenHash: this.secrets.hash(`session:${token}`),
      expiresAt,
      loginType,
      email: user.email,
    });
    return { token, expiresAt, user: this.view(user) };
  }

  private dummyHash(): Promise<string> {
    return (this.dummy ??= this.hasher.hash(this.secrets.token()));
  }

  async login(rawEmail: string, password: string, ip: string): Promise<Session> {
    let email: string;
    try {
      email = normalizeEmail(rawEmail);
    } catch {
      throw errors.invalidCredentials();
    }
    await this.limit([[`login:ip:${ip}`, LIMITS.loginIp]]);
    // The account's lockout says how to get back in: the reset link.
    if (!(await this.limiter.hit(`login:acct:${email}`, LIMITS.loginAccount.limit, LIMITS.loginAccount.windowMs)))
      throw errors.loginLocked();
    const user = await this.repo.findUserByEmail(email);
    // An unknown e-mail is checked against a dummy hash, so both paths take as long.
    const ok = await this.hasher.verify(user?.passwordHash ?? (await this.dummyHash()), password);
    if (!user || !ok || (user.isGuest && !(await this.repo.guestPass()).enabled)) {
      await this.repo.loginFailed?.(email, user?.id ?? null, 'invalid_credentials');
      throw errors.invalidCredentials();
    }
    if (!user.emailVerifiedAt) {
      await this.repo.loginFailed?.(email, user.id, 'email_not_verified');
      throw errors.notVerified();
    }
    return this.openSession(user, user.isGuest ? 'guest' : 'password');
  }

  async verifyEmail(input: { token?: string; email?: string; code?: string }, ip: string): Promise<Session> {
    await this.limit([[`verify:ip:${ip}`, LIMITS.verifyIp]]);
    let userId: string | null;
    if (input.token) {
      userId = await this.repo.consumeVerification('link', this.secrets.hash(`link:${input.token}`), this.now());
      if (!userId) throw errors.invalidLink();
    } else {
      if (!input.email || !input.code) throw new DomainError(ErrorCode.INVALID_ARGUMENT, 'Email and code are required', 'code_required');
      const email = normalizeEmail(input.email);
      await this.limit([[`verify:acct:${email}`, LIMITS.verifyAccount]]);
      const user = await this.repo.findUserByEmail(email);
      const code = input.code.trim();
      if (!user || !/^\d{6}$/.test(code)) throw errors.invalidCode();
      userId = await this.repo.consumeVerification('code', this.codeHash(user.id, code), this.now());
      if (!userId) throw errors.invalidCode();
    }
    const user = (await this.repo.findUserById(userId))!;
    const verifiedAt = user.emailVerifiedAt ?? this.now();
    if (!user.emailVerifiedAt) await this.repo.markVerified(user.id, verifiedAt);
    // The link and the code came in one message: using one spends the other.
    await this.repo.replaceVerifications(user.id, [], this.now());
    return this.openSession({ ...user, emailVerifiedAt: verifiedAt }, 'verification');
  }

  /** Same answer for every e-mail; only unverified accounts get a message. */
  async resendVerification(rawEmail: string, ip: string): Promise<void> {
    const email = normalizeEmail(rawEmail);
    await this.limit([
      [`resend:ip:${ip}`, LIMITS.resendIp],
      [`resend:acct:${email}`, LIMITS.resendAccount],
    ]);
    const user = await this.repo.findUserByEmail(email);
    if (user && !user.emailVerifiedAt) await this.sendVerification(user);
  }

  async authenticate(token: string): Promise<UserView> {
    if (!token) throw errors.sessionExpired();
    const s = await this.repo.findSession(this.secrets.hash(`session:${token}`));
    if (!s || s.revokedAt || s.expiresAt <= this.now()) throw errors.sessionExpired();
    const user = await this.repo.findUserById(s.userId);
    if (!user) throw errors.sessionExpired();
    return this.view(user);
  }

  async logout(token: string): Promise<void> {
    if (!token) return;
    await this.repo.revokeSession(this.secrets.hash(`session:${token}`), this.now());
    this.ended({ tokenHashes: [publicTokenHash(token)] });
  }

  /** Every gateway replica drops ended sessions from its cache at once (sessions.revoked). */
  private ended(r: { tokenHashes?: string[]; userId?: string }) {
    this.opts.onSessionsEnded?.({ tokenHashes: r.tokenHashes ?? [], userId: r.userId });
  }

  /**
   * Mails a single-use reset link valid 1 hour to a known, non-guest account. The answer is the
   * same whether or not the e-mail is known.
   */
  async forgotPassword(rawEmail: string, ip: string): Promise<void> {
    const email = normalizeEmail(rawEmail);
    await this.limit([
      [`forgot:ip:${ip}`, LIMITS.forgotIp],
      [`forgot:acct:${email}`, LIMITS.forgotAccount],
    ]);
    const user = await this.repo.findUserByEmail(email);
    if (!user || user.isGuest) return;
    const token = this.secrets.token();
    await this.repo.replaceReset(user.id, this.secrets.hash(`reset:${token}`), new Date(this.now().getTime() + RESET_TTL_MS));
    await this.mailer.sendPasswordReset(user.email, `${this.opts.publicUrl.replace(/\/$/, '')}/reset-password?token=${token}`);
  }

  /** Sets a new password from a reset link (once); every session of the account ends. */
  async resetPassword(token: string, password: string, ip: string): Promise<{ email: string }> {
    await this.limit([[`reset:ip:${ip}`, LIMITS.resetIp]]);
    checkPassword(password);
    if (!token) throw errors.invalidResetLink();
    const userId = await this.repo.consumeVerification('reset', this.secrets.hash(`reset:${token}`), this.now());
    if (!userId) throw errors.invalidResetLink();
    const user = (await this.repo.findUserById(userId))!;
    await this.repo.setPassword(user.id, await this.hasher.hash(password));
    // The link came to the mailbox: the address is proven.
    if (!user.emailVerifiedAt) await this.repo.markVerified(user.id, this.now());
    await this.endSessions(user.id);
    await this.mailer.sendPasswordChanged(user.email);
    return { email: user.email };
  }

  private async checkOwnPassword(userId: string, password: string): Promise<UserRecord> {
    await this.limit([[`password:acct:${userId}`, LIMITS.passwordAccount]]);
    const user = await this.repo.findUserById(userId);
    if (!user) throw errors.sessionExpired();
    if (!(await this.hasher.verify(user.passwordHash, password))) throw errors.wrongPassword();
    return user;
  }

  /** Current + new password; every other session of the account ends, this one stays. */
  async changePassword(userId: string, current: string, next: string, sessionToken: string): Promise<void> {
    checkPassword(next);
    const user = await this.checkOwnPassword(userId, current);
    if (user.isGuest) throw new DomainError(ErrorCode.PERMISSION_DENIED, 'The guest pass password cannot be changed here.', 'guest');
    await this.repo.setPassword(user.id, await this.hasher.hash(next));
    await this.repo.revokeOtherSessions(user.id, this.secrets.hash(`session:${sessionToken}`), this.now());
    // The caches drop every session of the user; the one kept is verified again on its next use.
    this.ended({ userId: user.id });
    await this.mailer.sendPasswordChanged(user.email);
  }

  /** Sign out everywhere. */
  async endAllSessions(userId: string): Promise<void> {
    await this.endSessions(userId);
  }

  private async endSessions(userId: string) {
    await this.repo.revokeUserSessions(userId, this.now());
    this.ended({ userId });
  }

  async checkPassword(userId: string, password: string): Promise<void> {
    await this.checkOwnPassword(userId, password);
  }

  /** Deletes the account (confirmed by its password) with its sessions; a mail confirms. */
  async deleteAccount(userId: string, password: string): Promise<{ email: string }> {
    const user = await this.checkOwnPassword(userId, password);
    if (user.isGuest) throw new DomainError(ErrorCode.PERMISSION_DENIED, 'The guest pass account cannot be deleted.', 'guest');
    await this.repo.deleteUser(user.id);
    this.ended({ userId: user.id });
    await this.mailer.sendAccountDeleted(user.email);
    return { email: user.email };
  }

  async user(id: string): Promise<UserView> {
    const u = await this.repo.findUserById(id);
    if (!u) throw new DomainError(ErrorCode.NOT_FOUND, 'user not found');
    return this.view(u);
  }

  /**
   * Sets the account's public name for the Hall of Fame (empty: clears it). 1-40 characters of
   * single-line visible text once trimmed, stored in NFC (the rule of @reelsmith/proto's
   * displayName). The gateways' session caches drop the user, so the next request shows it.
   */
  async setDisplayName(userId: string, raw: string): Promise<UserView> {
    let name: string | null = null;
    if (raw !== '') {
      const problem = displayNameProblem(raw);
      if (problem) throw new DomainError(ErrorCode.INVALID_ARGUMENT, problem, 'invalid_display_name');
      name = normaliseDisplayName(raw);
    }
    const u = await this.repo.setDisplayName(userId, name);
    if (!u) throw errors.sessionExpired();
    this.opts.onSessionsEnded?.({ tokenHashes: [], userId: u.id, sessionsRemain: true });
    return this.view(u);
  }

  /** Public names of those accounts that chose one (at most 100 asked at once); nothing else about them. */
  async publicNames(userIds: string[]): Promise<Map<string, string>> {
    const ids = [...new Set(userIds)].filter((id) => UUID.test(id)).slice(0, 100);
    return ids.length ? this.repo.publicNames(ids) : new Map();
  }

  async guestPass(): Promise<{ enabled: boolean; email: string }> {
    return { enabled: (await this.repo.guestPass()).enabled, email: this.opts.guestEmail };
  }

  /**
   * Enabling creates the shared guest account, or rotates its password, and returns the new
   * password once. Disabling revokes every guest session.
   *
   * A regular account holding the guest address (signed up before that address was reserved) is
   * retired when enabling: moved to a reserved address nobody can sign up with, given a random
   * password nobody knows, and signed out everywhere; its reels and billing stay with it for an
   * admin to look at. It is never turned into the guest account: that would hand whatever its
   * owner left in it (uploads, reels, purchases) to everyone given the guest password, and leave
   * its owner a way back in.
   */
  /** npm run admin:grant / admin:revoke: the stored flag (PRIVILEGED_EMAILS are admins anyway). */
  async setAdmin(rawEmail: string, isAdmin: boolean, by: string): Promise<{ found: boolean; email: string }> {
    const email = normalizeEmail(rawEmail);
    if (!this.repo.setAdmin) throw new DomainError(ErrorCode.INTERNAL, 'admin flag cannot be stored');
    const r = await this.repo.setAdmin(email, isAdmin, by);
    // The gateways' session caches hold the old flag for up to their TTL: a new admin would be
    // refused (and a revoked one let in) until then. They drop this user's verifications now.
    if (r) this.opts.onSessionsEnded?.({ tokenHashes: [], userId: r.id, sessionsRemain: true });
    return { found: Boolean(r), email: r?.email ?? email };
  }

  async setGuestPass(enabled: boolean, adminUserId: string): Promise<{ enabled: boolean; email: string; password?: string }> {
    const email = this.opts.guestEmail;
    let guest = await this.repo.findUserByEmail(email);
    if (!enabled) {
      if (guest?.isGuest) {
        await this.repo.revokeUserSessions(guest.id, this.now());
        this.ended({ userId: guest.id });
      }
      await this.repo.setGuestPass(false, guest?.isGuest ? guest.id : null, adminUserId);
      return { enabled: false, email };
    }
    if (guest && !guest.isGuest) {
      await this.repo.retireUser(guest.id, retiredEmail(guest.id), await this.hasher.hash(this.secrets.password()), this.now());
      this.ended({ userId: guest.id });
      guest = null;
    }
    const password = this.secrets.password();
    const passwordHash = await this.hasher.hash(password);
    if (!guest && (await this.repo.createUser({ id: crypto.randomUUID(), email, passwordHash, isGuest: true, verifiedAt: this.now() }))) {
      guest = (await this.repo.findUserByEmail(email))!;
    } else {
      // Existing, or created a moment ago by a concurrent enable: this call's password wins.
      guest = (await this.repo.findUserByEmail(email))!;
      if (!guest.isGuest) throw new DomainError(ErrorCode.FAILED_PRECONDITION, 'The guest e-mail belongs to a regular account.');
      await this.repo.setPassword(guest.id, passwordHash);
      await this.repo.revokeUserSessions(guest.id, this.now());
      this.ended({ userId: guest.id });
    }
    await this.repo.setGuestPass(true, guest.id, adminUserId);
    return { enabled: true, email, password };
  }
}
