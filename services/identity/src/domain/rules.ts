import { DomainError, ErrorCode } from '@reelsmith/kit';

/** Sign-up rules (spec section 5) as the server enforces them. */
export const PASSWORD_MIN = 6;
export const PASSWORD_MAX = 1024;
const EMAIL = /^[^\s@]{1,64}@[^\s@]+\.[^\s@]{2,}$/;

export function normalizeEmail(raw: string): string {
  const email = raw.trim().toLowerCase();
  if (!email) throw new DomainError(ErrorCode.INVALID_ARGUMENT, 'Email is required', 'email_required');
  if (email.length > 254 || !EMAIL.test(email))
    throw new DomainError(ErrorCode.INVALID_ARGUMENT, 'Please enter a valid email address.', 'invalid_email');
  return email;
}

/**
 * Addresses nobody may sign up with: the guest account's own domain (and its subdomains), where
 * the shared guest account and retired accounts live, and the configured guest address itself.
 * Whoever registered such an address before the guest pass was enabled would own the guest
 * account's address and block the pass.
 */
export const RESERVED_DOMAIN = 'reelsmith.local';

/** `email` is normalised (lower-cased, trimmed). A trailing dot names the same domain. */
export function isReservedEmail(email: string, guestEmail: string): boolean {
  const address = email.toLowerCase().replace(/\.+$/, '');
  const domain = address.slice(address.lastIndexOf('@') + 1);
  return address === guestEmail.toLowerCase() || domain === RESERVED_DOMAIN || domain.endsWith(`.${RESERVED_DOMAIN}`);
}

/** Where an account that held the guest address before the guest pass existed is moved to. */
export const retiredEmail = (userId: string) => `retired-${userId}@retired.${RESERVED_DOMAIN}`;

export function checkPassword(password: string): void {
  if (!password) throw new DomainError(ErrorCode.INVALID_ARGUMENT, 'Password is required', 'password_required');
  if (password.length < PASSWORD_MIN)
    throw new DomainError(ErrorCode.INVALID_ARGUMENT, 'Password must be at least 6 characters', 'password_too_short');
  if (password.length > PASSWORD_MAX) throw new DomainError(ErrorCode.INVALID_ARGUMENT, 'Password is too long', 'password_too_long');
}

/** How often each action may be tried: per account and per client IP, in fixed windows. */
export const LIMITS = {
  loginAccount: { limit: 10, windowMs: 15 * 60_000 },
  loginIp: { limit: 100, windowMs: 15 * 60_000 },
  registerIp: { limit: 20, windowMs: 60 * 60_000 },
  registerAccount: { limit: 5, windowMs: 60 * 60_000 },
  verifyAccount: { limit: 10, windowMs: 15 * 60_000 },
  verifyIp: { limit: 50, windowMs: 15 * 60_000 },
  resendAccount: { limit: 3, windowMs: 15 * 60_000 },
  resendIp: { limit: 20, windowMs: 60 * 60_000 },
  forgotAccount: { limit: 3, windowMs: 15 * 60_000 },
  forgotIp: { limit: 20, windowMs: 60 * 60_000 },
  resetIp: { limit: 30, windowMs: 15 * 60_000 },
  passwordAccount: { limit: 10, windowMs: 15 * 60_000 },
} as const;

/** A password reset link works once, for this long. */
export const RESET_TTL_MS = 3600_000;

export const VERIFICATION_TTL_MS = 24 * 3600_000;

export const messages = {
  invalidCredentials: 'Invalid email or password.',
  notVerified: 'Please verify your email address before signing in. Enter the code we sent you, or ask for a new one.',
  rateLimited: 'Too many attempts. Please wait a few minutes and try again.',
  loginLocked:
    'Too many sign-in attempts. Please wait a few minutes and try again, or reset your password with "Forgot password?" in the sign-in dialog.',
  invalidResetLink: 'This password reset link is invalid, has already been used, or has expired. Please ask for a new one.',
  wrongPassword: 'The password is not correct.',
  invalidLink: 'This verification link is invalid, has already been used, or has expired.',
  invalidCode: 'That code is not valid or has expired. Check the latest email or ask for a new code.',
  sessionExpired: 'Your session has expired. Please sign in again.',
  reservedEmail: `Addresses at ${RESERVED_DOMAIN} are reserved and cannot be used to sign up. Please use your own email address.`,
};

export const errors = {
  invalidCredentials: () => new DomainError(ErrorCode.UNAUTHENTICATED, messages.invalidCredentials, 'invalid_credentials'),
  notVerified: () => new DomainError(ErrorCode.FAILED_PRECONDITION, messages.notVerified, 'email_not_verified'),
  rateLimited: () => new DomainError(ErrorCode.RESOURCE_EXHAUSTED, messages.rateLimited, 'rate_limited'),
  loginLocked: () => new DomainError(ErrorCode.RESOURCE_EXHAUSTED, messages.loginLocked, 'rate_limited'),
  invalidResetLink: () => new DomainError(ErrorCode.INVALID_ARGUMENT, messages.invalidResetLink, 'invalid_reset_token'),
  wrongPassword: () => new DomainError(ErrorCode.PERMISSION_DENIED, messages.wrongPassword, 'wrong_password'),
  invalidLink: () => new DomainError(ErrorCode.INVALID_ARGUMENT, messages.invalidLink, 'invalid_token'),
  invalidCode: () => new DomainError(ErrorCode.INVALID_ARGUMENT, messages.invalidCode, 'invalid_code'),
  sessionExpired: () => new DomainError(ErrorCode.UNAUTHENTICATED, messages.sessionExpired, 'session_expired'),
  reservedEmail: () => new DomainError(ErrorCode.INVALID_ARGUMENT, messages.reservedEmail, 'reserved_email'),
};
