import crypto from 'node:crypto';

/** The header every delivery carries: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`. */
export const SIGNATURE_HEADER = 'Reelsmith-Signature';
/** A receiver refuses a delivery signed longer ago than this (replays). */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

export const signatureOf = (secret: string, t: number, body: string) =>
  crypto.createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');

/** The Reelsmith-Signature header's value for `body` signed at `t` (unix seconds). */
export const signHeader = (secret: string, t: number, body: string) => `t=${t},v1=${signatureOf(secret, t, body)}`;

/**
 * Whether a delivery is genuine: a v1 signature of the raw body under the secret, signed at most
 * `toleranceSeconds` ago (or ahead). Compared in constant time. The same rule as @reelsmith/sdk's verifier.
 */
export function verifySignature(
  secret: string,
  header: string,
  body: string,
  nowSeconds = Math.floor(Date.now() / 1000),
  toleranceSeconds = SIGNATURE_TOLERANCE_SECONDS,
): boolean {
  const parts = header.split(',').map((p) => p.trim().split('='));
  const t = Number(parts.find(([k]) => k === 't')?.[1]);
  if (!Number.isInteger(t) || Math.abs(nowSeconds - t) > toleranceSeconds) return false;
  const expected = Buffer.from(signatureOf(secret, t, body), 'hex');
  return parts
    .filter(([k, v]) => k === 'v1' && v && /^[0-9a-f]{64}$/.test(v))
    .some(([, v]) => crypto.timingSafeEqual(Buffer.from(v!, 'hex'), expected));
}
