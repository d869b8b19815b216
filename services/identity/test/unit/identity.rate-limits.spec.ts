import { messages } from '../../src/domain/rules';
import { IP, setup, failure } from './identity.fakes';

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
