import { messages } from '../../src/domain/rules';
import { IP, setup, failure, type Sent } from './identity.fakes';

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
