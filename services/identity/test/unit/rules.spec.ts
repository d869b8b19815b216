import { DomainError } from '@reelsmith/kit';
import { checkPassword, normalizeEmail } from '../../src/domain/rules';

/** The error a rule throws, for asserting its code, reason and message together. */
function thrown(fn: () => unknown): DomainError {
  try {
    fn();
  } catch (e) {
    if (e instanceof DomainError) return e;
    throw e;
  }
  throw new Error('expected a DomainError, nothing was thrown');
}

describe('sign-up e-mail', () => {
  it('is trimmed and lower-cased, so Ann@Example.COM and ann@example.com are one account', () => {
    expect(normalizeEmail('  Ann@Example.COM ')).toBe('ann@example.com');
  });

  it('asks for an e-mail when the field is empty or blank', () => {
    for (const raw of ['', '   '])
      expect(thrown(() => normalizeEmail(raw))).toMatchObject({
        code: 'INVALID_ARGUMENT',
        reason: 'email_required',
        message: 'Email is required',
      });
  });

  it.each([['ann'], ['ann@example'], ['ann@example.c'], ['a b@example.com'], ['ann@exa mple.com'], ['@example.com'], ['ann@@example.com']])(
    'refuses %p with the form message',
    (raw) => {
      expect(thrown(() => normalizeEmail(raw))).toMatchObject({
        code: 'INVALID_ARGUMENT',
        reason: 'invalid_email',
        message: 'Please enter a valid email address.',
      });
    },
  );

  it('refuses a local part over 64 characters and an address over 254', () => {
    expect(normalizeEmail(`${'a'.repeat(64)}@example.com`)).toBe(`${'a'.repeat(64)}@example.com`);
    expect(thrown(() => normalizeEmail(`${'a'.repeat(65)}@example.com`)).reason).toBe('invalid_email');
    const at254 = `ann@${'d'.repeat(246)}.com`;
    expect(normalizeEmail(at254)).toBe(at254);
    expect(thrown(() => normalizeEmail(`ann@${'d'.repeat(247)}.com`)).reason).toBe('invalid_email');
  });
});

describe('sign-up password', () => {
  it('asks for a password when empty', () => {
    expect(thrown(() => checkPassword(''))).toMatchObject({ reason: 'password_required', message: 'Password is required' });
  });

  it('needs at least 6 characters', () => {
    expect(thrown(() => checkPassword('12345'))).toMatchObject({
      code: 'INVALID_ARGUMENT',
      reason: 'password_too_short',
      message: 'Password must be at least 6 characters',
    });
    expect(() => checkPassword('123456')).not.toThrow();
  });

  it('accepts 1024 characters and refuses 1025', () => {
    expect(() => checkPassword('x'.repeat(1024))).not.toThrow();
    expect(thrown(() => checkPassword('x'.repeat(1025)))).toMatchObject({ reason: 'password_too_long', message: 'Password is too long' });
  });
});
