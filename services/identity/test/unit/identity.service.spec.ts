import type { DomainError } from '@reelsmith/kit';
import { domainFailure } from '@reelsmith/kit/testing';
import {
  IdentityService,
  publicTokenHash,
  type IdentityRepository,
  type Mailer,
  type PasswordHasher,
  type RateLimiter,
  type Secrets,
  type UserRecord,
  type VerificationKind,
} from '../../src/domain/identity.service';
import { messages } from '../../src/domain/rules';

/** The identity tables as the SQL keeps them: lower-cased unique e-mails, single-use verifications. */
class MemoryIdentity implements IdentityRepository {
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
class MemoryLimiter implements RateLimiter {
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

interface Sent {
  kind: 'verification' | 'already' | 'reset' | 'changed' | 'deleted';
  to: string;
  link?: string;
  code?: string;
}

const ADMIN_EMAIL = 'boss@reelsmith.test';
const GUEST_EMAIL = 'guest@reelsmith.test';
const PUBLIC_URL = 'https://reels.example/';
const SESSION_TTL_MS = 3600_000;
const IP = '203.0.113.7';

function setup() {
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
const failure = (fn: () => Promise<unknown>): Promise<DomainError> => domainFailure(fn());

describe('sign-up', () => {
  it('sends a link and a 6-digit code to the normalised address, and the account cannot sign in yet', async () => {
    const t = setup();
    expect(await t.service.register('  New.User@Example.COM ', 'secret-pw', IP)).toEqual({ email: 'new.user@example.com' });

    expect(t.mail).toHaveLength(1);
    const sent = t.mail[0]!;
    expect(sent.to).toBe('new.user@example.com');
    expect(sent.code).toMatch(/^\d{6}$/);
    expect(sent.link).toMatch(/^https:\/\/reels\.example\/verify-email\?token=[^&]+$/); // no double slash
    const e = await failure(() => t.service.login('new.user@example.com', 'secret-pw', IP));
    expect(e).toMatchObject({ code: 'FAILED_PRECONDITION', reason: 'email_not_verified', message: messages.notVerified });
  });

  it('refuses an invalid e-mail or a short password with the form message, storing and sending nothing', async () => {
    const t = setup();
    expect(await failure(() => t.service.register('not-an-email', 'secret-pw', IP))).toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: 'Please enter a valid email address.',
    });
    expect(await failure(() => t.service.register('ann@example.com', '12345', IP))).toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: 'Password must be at least 6 characters',
    });
    expect(t.repo.users.size).toBe(0);
    expect(t.mail).toEqual([]);
  });

  it('answers the same for a taken address, mails its owner instead, and keeps their password', async () => {
    const t = setup();
    await t.verifiedUser('ann@example.com', 'first-pw');
    t.mail.length = 0;

    expect(await t.service.register('ANN@example.com', 'second-pw', IP)).toEqual({ email: 'ann@example.com' });

    expect(t.mail).toEqual([{ kind: 'already', to: 'ann@example.com' }]);
    expect(t.repo.users.size).toBe(1);
    await expect(t.service.login('ann@example.com', 'first-pw', IP)).resolves.toMatchObject({ user: { email: 'ann@example.com' } });
    expect(await failure(() => t.service.login('ann@example.com', 'second-pw', IP))).toMatchObject({ reason: 'invalid_credentials' });
  });

  it('signing up again before verifying sends a new code and the old one stops working', async () => {
    const t = setup();
    await t.service.register('ann@example.com', 'secret-pw', IP);
    const first = t.lastMail('ann@example.com')!;
    await t.service.register('ann@example.com', 'secret-pw', IP);
    const second = t.lastMail('ann@example.com')!;
    expect(second.code).not.toBe(first.code);

    expect(await failure(() => t.service.verifyEmail({ email: 'ann@example.com', code: first.code }, IP))).toMatchObject({
      reason: 'invalid_code',
      message: messages.invalidCode,
    });
    expect(await failure(() => t.service.verifyEmail({ token: t.tokenOf(first) }, IP))).toMatchObject({ reason: 'invalid_token' });
    await expect(t.service.verifyEmail({ email: 'ann@example.com', code: second.code }, IP)).resolves.toMatchObject({
      user: { emailVerified: true },
    });
  });
});

describe('reserved addresses', () => {
  it.each([
    'guest@reelsmith.local',
    'GUEST@ReelSmith.Local',
    ' Guest@REELSMITH.LOCAL ',
    'anyone@reelsmith.local',
    'x@eu.reelsmith.local',
    'guest@reelsmith.local.',
    GUEST_EMAIL.toUpperCase(),
  ])('refuses to sign up %j with a clear 400, storing and sending nothing', async (email) => {
    const t = setup();
    const e = await failure(() => t.service.register(email, 'secret-pw', IP));
    expect(e).toMatchObject({ code: 'INVALID_ARGUMENT', reason: 'reserved_email', message: messages.reservedEmail });
    expect(e.message).toContain('reelsmith.local');
    expect(t.repo.users.size).toBe(0);
    expect(t.mail).toEqual([]);
  });

  it('still signs up look-alike domains that are not reserved', async () => {
    const t = setup();
    for (const email of ['guest@reelsmith.local.example.com', 'guest@notreelsmith.local', 'guest@reelsmith.locals'])
      await expect(t.service.register(email, 'secret-pw', IP)).resolves.toEqual({ email });
    expect(t.repo.users.size).toBe(3);
  });
});

describe('e-mail verification', () => {
  it('the link signs the user in, and works once', async () => {
    const t = setup();
    await t.service.register('ann@example.com', 'secret-pw', IP);
    const token = t.tokenOf(t.lastMail('ann@example.com'));

    const session = await t.service.verifyEmail({ token }, IP);
    expect(session.user).toMatchObject({ email: 'ann@example.com', emailVerified: true });
    expect(await t.service.authenticate(session.token)).toMatchObject({ email: 'ann@example.com' });

    expect(await failure(() => t.service.verifyEmail({ token }, IP))).toMatchObject({
      code: 'INVALID_ARGUMENT',
      reason: 'invalid_token',
      message: messages.invalidLink,
    });
    await expect(t.service.login('ann@example.com', 'secret-pw', IP)).resolves.toMatchObject({ user: { emailVerified: true } });
  });

  it('using the code spends the link from the same e-mail', async () => {
    const t = setup();
    await t.service.register('ann@example.com', 'secret-pw', IP);
    const sent = t.lastMail('ann@example.com')!;
    await t.service.verifyEmail({ email: 'Ann@Example.com', code: ` ${sent.code} ` }, IP);
    expect(await failure(() => t.service.verifyEmail({ token: t.tokenOf(sent) }, IP))).toMatchObject({ reason: 'invalid_token' });
  });

  it('a code works only for the address it was sent to, and only as 6 digits', async () => {
    const t = setup();
    await t.service.register('ann@example.com', 'secret-pw', IP);
    await t.service.register('bob@example.com', 'secret-pw', IP);
    const annCode = t.lastMail('ann@example.com')!.code!;

    for (const attempt of [
      { email: 'bob@example.com', code: annCode },
      { email: 'nobody@example.com', code: annCode },
      { email: 'ann@example.com', code: `${annCode}0` },
      { email: 'ann@example.com', code: 'abcdef' },
    ])
      expect(await failure(() => t.service.verifyEmail(attempt, IP))).toMatchObject({
        reason: 'invalid_code',
        message: messages.invalidCode,
      });
    expect(await failure(() => t.service.verifyEmail({ email: 'ann@example.com' }, IP))).toMatchObject({
      reason: 'code_required',
      message: 'Email and code are required',
    });
    expect((await t.repo.findUserByEmail('bob@example.com'))!.emailVerifiedAt).toBeNull();
  });

  it('link and code expire after 24 hours', async () => {
    const t = setup();
    await t.service.register('ann@example.com', 'secret-pw', IP);
    const sent = t.lastMail('ann@example.com')!;
    t.advance(24 * 3600_000 + 1);
    expect(await failure(() => t.service.verifyEmail({ email: 'ann@example.com', code: sent.code }, IP))).toMatchObject({
      reason: 'invalid_code',
    });
    expect(await failure(() => t.service.verifyEmail({ token: t.tokenOf(sent) }, IP))).toMatchObject({ reason: 'invalid_token' });
  });

  it('resending mails only unverified accounts, and answers the same for every address', async () => {
    const t = setup();
    await t.service.register('ann@example.com', 'secret-pw', IP);
    await t.verifiedUser('bob@example.com');
    t.mail.length = 0;

    await expect(t.service.resendVerification('ann@example.com', IP)).resolves.toBeUndefined();
    await expect(t.service.resendVerification('bob@example.com', IP)).resolves.toBeUndefined();
    await expect(t.service.resendVerification('nobody@example.com', IP)).resolves.toBeUndefined();
    expect(t.mail.map((m) => [m.kind, m.to])).toEqual([['verification', 'ann@example.com']]);
  });
});

describe('sign-in', () => {
  it('a wrong password, an unknown address and a malformed one get the same message', async () => {
    const t = setup();
    await t.verifiedUser('ann@example.com', 'secret-pw');
    for (const [email, password] of [
      ['ann@example.com', 'wrong-pw'],
      ['nobody@example.com', 'secret-pw'],
      ['not an email', 'secret-pw'],
    ] as const)
      expect(await failure(() => t.service.login(email, password, IP))).toMatchObject({
        code: 'UNAUTHENTICATED',
        reason: 'invalid_credentials',
        message: 'Invalid email or password.',
      });
  });

  it('opens a session that authenticates until it expires', async () => {
    const t = setup();
    await t.verifiedUser('ann@example.com', 'secret-pw');
    const s = await t.service.login('ANN@example.com', 'secret-pw', IP);
    expect(s.expiresAt.getTime() - Date.parse('2026-03-01T12:00:00Z')).toBe(SESSION_TTL_MS);
    expect(await t.service.authenticate(s.token)).toMatchObject({ email: 'ann@example.com', isAdmin: false, unlimited: false });

    t.advance(SESSION_TTL_MS);
    expect(await failure(() => t.service.authenticate(s.token))).toMatchObject({
      code: 'UNAUTHENTICATED',
      reason: 'session_expired',
      message: messages.sessionExpired,
    });
  });

  it('after logout the session no longer authenticates; other sessions of the user still do', async () => {
    const t = setup();
    await t.verifiedUser('ann@example.com', 'secret-pw');
    const a = await t.service.login('ann@example.com', 'secret-pw', IP);
    const b = await t.service.login('ann@example.com', 'secret-pw', IP);
    await t.service.logout(a.token);
    // Announced to every gateway replica, by the hash they key their cache by.
    expect(t.ended).toEqual([{ tokenHashes: [publicTokenHash(a.token)], userId: undefined }]);
    expect(publicTokenHash(a.token)).toMatch(/^[0-9a-f]{64}$/);
    expect(await failure(() => t.service.authenticate(a.token))).toMatchObject({ reason: 'session_expired' });
    expect(await t.service.authenticate(b.token)).toMatchObject({ email: 'ann@example.com' });
    expect(await failure(() => t.service.authenticate(''))).toMatchObject({ reason: 'session_expired' });
  });
});

describe('rate limits', () => {
  const rateLimited = { code: 'RESOURCE_EXHAUSTED', reason: 'rate_limited', message: messages.rateLimited };

  it('the 11th sign-in to one account in 15 minutes is refused even with the right password, and allowed after the window', async () => {
    const t = setup();
    await t.verifiedUser('ann@example.com', 'secret-pw');
    for (let i = 0; i < 10; i++)
      await expect(t.service.login('ann@example.com', 'wrong-pw', IP)).rejects.toMatchObject({ reason: 'invalid_credentials' });
    // The lockout offers the way back in: the reset link.
    expect(await failure(() => t.service.login('ann@example.com', 'secret-pw', IP))).toMatchObject({
      code: 'RESOURCE_EXHAUSTED',
      reason: 'rate_limited',
      message: messages.loginLocked,
    });
    expect(messages.loginLocked).toContain('Forgot password?');
    // Another account from the same address is not affected.
    await t.verifiedUser('bob@example.com', 'secret-pw');
    await expect(t.service.login('bob@example.com', 'secret-pw', IP)).resolves.toBeDefined();

    t.advance(15 * 60_000);
    await expect(t.service.login('ann@example.com', 'secret-pw', IP)).resolves.toMatchObject({ user: { email: 'ann@example.com' } });
  });

  it('one client address gets 100 sign-in attempts per 15 minutes across accounts', async () => {
    const t = setup();
    for (let i = 0; i < 100; i++)
      await expect(t.service.login(`user${i}@example.com`, 'secret-pw', IP)).rejects.toMatchObject({ reason: 'invalid_credentials' });
    expect(await failure(() => t.service.login('other@example.com', 'secret-pw', IP))).toMatchObject(rateLimited);
    await expect(t.service.login('other@example.com', 'secret-pw', '198.51.100.1')).rejects.toMatchObject({
      reason: 'invalid_credentials',
    });
  });

  it('sign-up: 5 per address per hour, 20 per client per hour', async () => {
    const t = setup();
    for (let i = 0; i < 5; i++) await t.service.register('ann@example.com', 'secret-pw', IP);
    expect(await failure(() => t.service.register('ann@example.com', 'secret-pw', IP))).toMatchObject(rateLimited);

    for (let i = 0; i < 14; i++) await t.service.register(`user${i}@example.com`, 'secret-pw', IP);
    // 5 + 1 refused + 14 = 20 attempts from this client so far.
    expect(await failure(() => t.service.register('late@example.com', 'secret-pw', IP))).toMatchObject(rateLimited);
    await expect(t.service.register('late@example.com', 'secret-pw', '198.51.100.1')).resolves.toEqual({ email: 'late@example.com' });

    t.advance(3600_000);
    await expect(t.service.register('ann@example.com', 'secret-pw', IP)).resolves.toEqual({ email: 'ann@example.com' });
  });

  it('code guessing stops after 10 tries per account in 15 minutes, even for the right code', async () => {
    const t = setup();
    await t.service.register('ann@example.com', 'secret-pw', IP);
    const code = t.lastMail('ann@example.com')!.code!;
    const wrong = code === '000000' ? '000001' : '000000';
    for (let i = 0; i < 10; i++)
      await expect(t.service.verifyEmail({ email: 'ann@example.com', code: wrong }, `198.51.100.${i}`)).rejects.toMatchObject({
        reason: 'invalid_code',
      });
    expect(await failure(() => t.service.verifyEmail({ email: 'ann@example.com', code }, IP))).toMatchObject(rateLimited);
  });

  it('resending: 3 per account per 15 minutes', async () => {
    const t = setup();
    await t.service.register('ann@example.com', 'secret-pw', IP);
    for (let i = 0; i < 3; i++) await t.service.resendVerification('ann@example.com', IP);
    expect(await failure(() => t.service.resendVerification('ann@example.com', IP))).toMatchObject(rateLimited);
    expect(t.mail.filter((m) => m.kind === 'verification')).toHaveLength(1 + 3);
  });
});

describe('who is unlimited', () => {
  it('a privileged e-mail is admin and unlimited, whatever case it signed up with', async () => {
    const t = setup();
    const s = await t.verifiedUser('Boss@Reelsmith.test');
    expect(s.user).toMatchObject({ email: ADMIN_EMAIL, isAdmin: true, isGuest: false, unlimited: true });
    expect(await t.service.authenticate(s.token)).toMatchObject({ isAdmin: true, unlimited: true });
  });

  it('an admin flagged in the database is unlimited; a regular user is not', async () => {
    const t = setup();
    const ann = await t.verifiedUser('ann@example.com');
    const bob = await t.verifiedUser('bob@example.com');
    t.repo.users.get(ann.user.id)!.isAdmin = true;
    expect(await t.service.user(ann.user.id)).toMatchObject({ isAdmin: true, unlimited: true });
    expect(await t.service.user(bob.user.id)).toMatchObject({ isAdmin: false, isGuest: false, unlimited: false });
  });

  it('an unknown user id is NOT_FOUND', async () => {
    const t = setup();
    expect(await failure(() => t.service.user('00000000-0000-4000-8000-000000000000'))).toMatchObject({ code: 'NOT_FOUND' });
  });
});

describe('guest pass', () => {
  it('is off until an admin enables it; enabling gives a password once, and the guest is unlimited but not admin', async () => {
    const t = setup();
    expect(await t.service.guestPass()).toEqual({ enabled: false, email: GUEST_EMAIL });
    const admin = await t.verifiedUser(ADMIN_EMAIL);

    const on = await t.service.setGuestPass(true, admin.user.id);
    expect(on).toMatchObject({ enabled: true, email: GUEST_EMAIL, password: expect.any(String) });
    expect(await t.service.guestPass()).toEqual({ enabled: true, email: GUEST_EMAIL });

    const s = await t.service.login(GUEST_EMAIL, on.password!, IP);
    expect(s.user).toMatchObject({ email: GUEST_EMAIL, isGuest: true, isAdmin: false, unlimited: true, emailVerified: true });
    expect(t.repo.sessions.get(`hmac(session:${s.token})`)?.loginType).toBe('guest');
  });

  it('disabling signs the guest out everywhere and refuses new guest sign-ins', async () => {
    const t = setup();
    const admin = await t.verifiedUser(ADMIN_EMAIL);
    const { password } = await t.service.setGuestPass(true, admin.user.id);
    const s = await t.service.login(GUEST_EMAIL, password!, IP);

    expect(await t.service.setGuestPass(false, admin.user.id)).toEqual({ enabled: false, email: GUEST_EMAIL });
    expect(await failure(() => t.service.authenticate(s.token))).toMatchObject({ reason: 'session_expired' });
    expect(await failure(() => t.service.login(GUEST_EMAIL, password!, IP))).toMatchObject({ reason: 'invalid_credentials' });
  });

  it('enabling again rotates the password: the old one and its sessions stop working', async () => {
    const t = setup();
    const admin = await t.verifiedUser(ADMIN_EMAIL);
    const first = await t.service.setGuestPass(true, admin.user.id);
    const s = await t.service.login(GUEST_EMAIL, first.password!, IP);
    const second = await t.service.setGuestPass(true, admin.user.id);

    expect(second.password).not.toBe(first.password);
    expect([...t.repo.users.values()].filter((u) => u.isGuest)).toHaveLength(1);
    expect(await failure(() => t.service.authenticate(s.token))).toMatchObject({ reason: 'session_expired' });
    expect(await failure(() => t.service.login(GUEST_EMAIL, first.password!, IP))).toMatchObject({ reason: 'invalid_credentials' });
    await expect(t.service.login(GUEST_EMAIL, second.password!, IP)).resolves.toMatchObject({ user: { isGuest: true } });
  });

  it('enabling retires a regular account that holds the guest address: renamed, locked, signed out; a fresh guest takes the address', async () => {
    const t = setup();
    const admin = await t.verifiedUser(ADMIN_EMAIL);
    // Signed up before the address was reserved (sign-up refuses it now), then signed in.
    const squatterId = '99999999-9999-4999-8999-999999999999';
    await t.repo.createUser({
      id: squatterId,
      email: GUEST_EMAIL.toUpperCase(),
      passwordHash: 'hashed(squatter-pw)',
      verifiedAt: new Date(),
    });
    const squatter = await t.service.login(GUEST_EMAIL, 'squatter-pw', IP);
    await t.repo.replaceVerifications(squatterId, [{ kind: 'code', tokenHash: 'pending' }], new Date('2027-01-01T00:00:00Z'));

    const on = await t.service.setGuestPass(true, admin.user.id);

    expect(on).toMatchObject({ enabled: true, email: GUEST_EMAIL, password: expect.any(String) });
    const guest = await t.service.login(GUEST_EMAIL, on.password!, IP);
    expect(guest.user).toMatchObject({ email: GUEST_EMAIL, isGuest: true, isAdmin: false });
    expect(guest.user.id).not.toBe(squatterId);
    // The old account keeps its data under a reserved address, and nobody can use it any more.
    const retired = t.repo.users.get(squatterId)!;
    expect(retired).toMatchObject({ isGuest: false, email: `retired-${squatterId}@retired.reelsmith.local` });
    expect(await failure(() => t.service.authenticate(squatter.token))).toMatchObject({ reason: 'session_expired' });
    expect(await failure(() => t.service.login(retired.email, 'squatter-pw', IP))).toMatchObject({ reason: 'invalid_credentials' });
    expect(t.repo.verifications.filter((v) => v.userId === squatterId && !v.usedAt)).toEqual([]);
    expect(await failure(() => t.service.register(retired.email, 'another-pw', IP))).toMatchObject({ reason: 'reserved_email' });
  });

  it('disabling while a regular account holds the guest address leaves that account alone', async () => {
    const t = setup();
    const admin = await t.verifiedUser(ADMIN_EMAIL);
    await t.repo.createUser({ id: 'squatter', email: GUEST_EMAIL, passwordHash: 'hashed(squatter-pw)', verifiedAt: new Date() });
    expect(await t.service.setGuestPass(false, admin.user.id)).toEqual({ enabled: false, email: GUEST_EMAIL });
    expect(t.repo.pass).toEqual({ enabled: false, userId: null });
    expect(t.repo.users.get('squatter')!.email).toBe(GUEST_EMAIL);
  });
});

describe('password reset and account features', () => {
  const resetTokenOf = (m: Sent | undefined) => new URL(m!.link!).searchParams.get('token')!;

  it('forgot password: a single-use link valid 1 hour; the new password works, every session ends; the same answer for unknown e-mails', async () => {
    const t = setup();
    await t.verifiedUser('ann@example.com', 'old-password');
    const a = await t.service.login('ann@example.com', 'old-password', IP);
    const b = await t.service.login('ann@example.com', 'old-password', IP);
    t.ended.length = 0;

    expect(await t.service.forgotPassword('Ann@Example.com', IP)).toBeUndefined();
    expect(await t.service.forgotPassword('nobody@example.com', IP)).toBeUndefined(); // no enumeration: same answer
    expect(t.mail.filter((m) => m.to === 'nobody@example.com')).toEqual([]);
    const mail = t.lastMail('ann@example.com')!;
    expect(mail.kind).toBe('reset');
    expect(mail.link).toMatch(/^https:\/\/reels\.example\/reset-password\?token=[\w-]+$/);

    // A too-short password is refused without spending the link.
    expect(await failure(() => t.service.resetPassword(resetTokenOf(mail), '123', IP))).toMatchObject({ reason: 'password_too_short' });
    expect(await t.service.resetPassword(resetTokenOf(mail), 'new-password', IP)).toEqual({ email: 'ann@example.com' });
    for (const s of [a, b]) expect(await failure(() => t.service.authenticate(s.token))).toMatchObject({ reason: 'session_expired' });
    expect(t.ended).toContainEqual({ tokenHashes: [], userId: a.user.id });
    expect(await failure(() => t.service.login('ann@example.com', 'old-password', IP))).toMatchObject({ reason: 'invalid_credentials' });
    await t.service.login('ann@example.com', 'new-password', IP);
    // Single use.
    expect(await failure(() => t.service.resetPassword(resetTokenOf(mail), 'other-password', IP))).toMatchObject({
      code: 'INVALID_ARGUMENT',
      reason: 'invalid_reset_token',
    });
  });

  it('a reset link expires after 1 hour, and a newer link replaces an older one', async () => {
    const t = setup();
    await t.verifiedUser('ann@example.com', 'old-password');
    await t.service.forgotPassword('ann@example.com', IP);
    const first = resetTokenOf(t.lastMail('ann@example.com'));
    await t.service.forgotPassword('ann@example.com', IP);
    const second = resetTokenOf(t.lastMail('ann@example.com'));
    expect(await failure(() => t.service.resetPassword(first, 'new-password', IP))).toMatchObject({ reason: 'invalid_reset_token' });
    t.advance(3600_000 + 1);
    expect(await failure(() => t.service.resetPassword(second, 'new-password', IP))).toMatchObject({ reason: 'invalid_reset_token' });
  });

  it('forgot password is rate limited per account', async () => {
    const t = setup();
    await t.verifiedUser('ann@example.com', 'pw-123456');
    for (let i = 0; i < 3; i++) await t.service.forgotPassword('ann@example.com', IP);
    expect(await failure(() => t.service.forgotPassword('ann@example.com', IP))).toMatchObject({ reason: 'rate_limited' });
  });

  it('change password needs the current one; other sessions end, this one stays', async () => {
    const t = setup();
    const mine = await t.verifiedUser('ann@example.com', 'old-password');
    const other = await t.service.login('ann@example.com', 'old-password', IP);
    expect(await failure(() => t.service.changePassword(mine.user.id, 'wrong', 'new-password', mine.token))).toMatchObject({
      code: 'PERMISSION_DENIED',
      reason: 'wrong_password',
      message: messages.wrongPassword,
    });
    await t.service.changePassword(mine.user.id, 'old-password', 'new-password', mine.token);
    expect(await t.service.authenticate(mine.token)).toMatchObject({ email: 'ann@example.com' });
    expect(await failure(() => t.service.authenticate(other.token))).toMatchObject({ reason: 'session_expired' });
    expect(t.lastMail('ann@example.com')!.kind).toBe('changed');
    await t.service.login('ann@example.com', 'new-password', IP);
  });

  it('sign out everywhere ends every session and tells the gateways', async () => {
    const t = setup();
    const a = await t.verifiedUser('ann@example.com', 'pw-123456');
    const b = await t.service.login('ann@example.com', 'pw-123456', IP);
    await t.service.endAllSessions(a.user.id);
    for (const s of [a, b]) expect(await failure(() => t.service.authenticate(s.token))).toMatchObject({ reason: 'session_expired' });
    expect(t.ended.at(-1)).toEqual({ tokenHashes: [], userId: a.user.id });
  });

  it('admin:grant and admin:revoke take effect in the gateways at once: cached verifications dropped, sessions kept', async () => {
    const t = setup();
    const a = await t.verifiedUser('ann@example.com', 'pw-123456');
    t.ended.length = 0;
    expect(await t.service.setAdmin('Ann@Example.com', true, 'cli')).toEqual({ found: true, email: 'ann@example.com' });
    expect(t.ended).toEqual([{ tokenHashes: [], userId: a.user.id, sessionsRemain: true }]);
    expect(await t.service.authenticate(a.token)).toMatchObject({ isAdmin: true, unlimited: true });
    await t.service.setAdmin('ann@example.com', false, 'cli');
    expect(t.ended.at(-1)).toEqual({ tokenHashes: [], userId: a.user.id, sessionsRemain: true });
    expect(await t.service.authenticate(a.token)).toMatchObject({ isAdmin: false });
    expect(await t.service.setAdmin('nobody@example.com', true, 'cli')).toEqual({ found: false, email: 'nobody@example.com' });
    expect(t.ended).toHaveLength(2);
  });

  it('delete account: only with the password; the account and its sessions are gone and a mail confirms', async () => {
    const t = setup();
    const s = await t.verifiedUser('ann@example.com', 'pw-123456');
    expect(await failure(() => t.service.deleteAccount(s.user.id, 'wrong'))).toMatchObject({ reason: 'wrong_password' });
    expect(await t.service.deleteAccount(s.user.id, 'pw-123456')).toEqual({ email: 'ann@example.com' });
    expect(await failure(() => t.service.authenticate(s.token))).toMatchObject({ reason: 'session_expired' });
    expect(await t.repo.findUserByEmail('ann@example.com')).toBeNull();
    expect(t.lastMail('ann@example.com')!.kind).toBe('deleted');
    // The address is free again.
    expect(await t.service.register('ann@example.com', 'pw-123456', IP)).toEqual({ email: 'ann@example.com' });
  });
});

describe('public display name', () => {
  it('is trimmed and stored in NFC; clearing it takes the account off the list; the gateways drop the cached user', async () => {
    const t = setup();
    const s = await t.verifiedUser('ann@example.com');
    expect(s.user.displayName).toBe('');
    const set = await t.service.setDisplayName(s.user.id, '  Cafe\u0301 Ann  ');
    expect(set.displayName).toBe('Caf\u00e9 Ann');
    expect((await t.service.authenticate(s.token)).displayName).toBe('Caf\u00e9 Ann');
    expect(t.ended.at(-1)).toEqual({ tokenHashes: [], userId: s.user.id, sessionsRemain: true });
    expect(await t.service.publicNames([s.user.id, 'not-a-uuid'])).toEqual(new Map([[s.user.id, 'Caf\u00e9 Ann']]));
    expect((await t.service.setDisplayName(s.user.id, '')).displayName).toBe('');
    expect(await t.service.publicNames([s.user.id])).toEqual(new Map());
  });

  it('takes 1 to 40 characters (code points, so 40 emoji fit)', async () => {
    const t = setup();
    const s = await t.verifiedUser('ann@example.com');
    expect((await t.service.setDisplayName(s.user.id, 'x'.repeat(40))).displayName).toHaveLength(40);
    expect((await t.service.setDisplayName(s.user.id, '\u{1F3AC}'.repeat(40))).displayName).toBe('\u{1F3AC}'.repeat(40));
    const long = await failure(() => t.service.setDisplayName(s.user.id, 'x'.repeat(41)));
    expect([long.code, long.reason]).toEqual(['INVALID_ARGUMENT', 'invalid_display_name']);
    expect(long.message).toBe('The public name must be at most 40 characters');
  });

  it.each([
    ['only spaces', '   '],
    ['a NUL', 'Ann\u0000'],
    ['a line break', 'Ann\nSmith'],
    ['a tab', 'Ann\tSmith'],
    ['a C1 control', 'Ann\u0085'],
    ['a line separator', 'Ann\u2028'],
    ['a right-to-left override', 'Ann\u202egpj.exe'],
    ['a zero-width space', 'A\u200bnn'],
    ['a byte order mark', '\ufeffAnn'],
    ['a lone surrogate', 'Ann\ud800'],
  ])('refuses %s, and keeps the name it had', async (_what, raw) => {
    const t = setup();
    const s = await t.verifiedUser('ann@example.com');
    await t.service.setDisplayName(s.user.id, 'Ann');
    const e = await failure(() => t.service.setDisplayName(s.user.id, raw));
    expect([e.code, e.reason]).toEqual(['INVALID_ARGUMENT', 'invalid_display_name']);
    expect((await t.service.user(s.user.id)).displayName).toBe('Ann');
  });

  it('is never the e-mail by default, and an unknown account cannot set one', async () => {
    const t = setup();
    const s = await t.verifiedUser('ann@example.com');
    expect(await t.service.publicNames([s.user.id])).toEqual(new Map());
    const e = await failure(() => t.service.setDisplayName('00000000-0000-4000-8000-000000000000', 'Ghost'));
    expect(e.code).toBe('UNAUTHENTICATED');
  });
});
