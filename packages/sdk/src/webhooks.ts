import crypto from 'node:crypto';

/** The header every Reelsmith webhook carries. */
export const SIGNATURE_HEADER = 'reelsmith-signature';
/** Deliveries signed longer ago than this are refused (replays). */
export const DEFAULT_TOLERANCE_SECONDS = 300;

export type WebhookEvent =
  | {
      id: string;
      type: 'job.completed';
      created: number;
      data: { job_id: string; reel_id: string; download_url: string; duration_sec: number; size_bytes: number };
    }
  | { id: string; type: 'job.failed'; created: number; data: { job_id: string; reason: string } }
  | { id: string; type: 'job.cancelled'; created: number; data: { job_id: string } }
  | { id: string; type: 'test'; created: number; data: { message: string } };

/**
 * Whether a delivery is genuine: `Reelsmith-Signature: t=<unix seconds>,v1=<hex>` where v1 is the
 * HMAC-SHA256 of "<t>.<raw body>" under the endpoint's secret (whsec_...), signed at most
 * `toleranceSeconds` ago. Pass the body exactly as received (not re-serialised JSON).
 */
export function verifyWebhookSignature(
  secret: string,
  header: string | null | undefined,
  rawBody: string | Buffer,
  opts: { toleranceSeconds?: number; nowSeconds?: number } = {},
): boolean {
  if (!header) return false;
  const now = opts.nowSeconds ?? Math.floor(Date.now() / 1000);
  const parts = header.split(',').map((p) => p.trim().split('='));
  const t = Number(parts.find(([k]) => k === 't')?.[1]);
  if (!Number.isInteger(t) || Math.abs(now - t) > (opts.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS)) return false;
  const expected = crypto.createHmac('sha256', secret).update(`${t}.`).update(rawBody).digest();
  return parts.some(([k, v]) => k === 'v1' && !!v && /^[0-9a-f]{64}$/.test(v) && crypto.timingSafeEqual(Buffer.from(v, 'hex'), expected));
}

/** The event of a verified delivery; throws when the signature is wrong or too old. */
export function constructWebhookEvent(
  secret: string,
  header: string | null | undefined,
  rawBody: string | Buffer,
  toleranceSeconds?: number,
): WebhookEvent {
  if (!verifyWebhookSignature(secret, header, rawBody, { toleranceSeconds }))
    throw new Error("Invalid Reelsmith-Signature: the body was changed, the secret is not this endpoint's, or it is older than 5 minutes");
  return JSON.parse(rawBody.toString()) as WebhookEvent;
}
