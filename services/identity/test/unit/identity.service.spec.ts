import { publicTokenHash } from '../../src/domain/identity.service';
import { messages } from '../../src/domain/rules';
import { GUEST_EMAIL, SESSION_TTL_MS, IP, setup, failure } from './identity.fakes';

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
