/** 'x minutes ago' style relative times for the activity feed; 'Invalid date' for a bad one. */
export function relativeTime(timestamp: string, now: number = Date.now()): string {
  const t = Date.parse(timestamp);
  if (Number.isNaN(t)) return 'Invalid date';
  const s = Math.round((now - t) / 1000);
  if (s < 0) return 'just now';
  if (s < 45) return 'a few seconds ago';
  const units: [number, string][] = [
    [60, 'minute'],
    [3600, 'hour'],
    [86_400, 'day'],
    [2_592_000, 'month'],
    [31_536_000, 'year'],
  ];
  let unit = units[0]!;
  for (const u of units) if (s >= u[0] * 0.75) unit = u;
  const n = Math.max(1, Math.round(s / unit[0]));
  return n === 1 ? `${unit[1] === 'hour' ? 'an' : 'a'} ${unit[1]} ago` : `${n} ${unit[1]}s ago`;
}

/** The spec's health colours: healthy green, warning yellow, unhealthy or critical red, else grey. */
export function statusColour(status: string | undefined): 'green' | 'yellow' | 'red' | 'grey' {
  if (status === 'healthy') return 'green';
  if (status === 'warning') return 'yellow';
  if (status === 'unhealthy' || status === 'critical') return 'red';
  return 'grey';
}

/** Error rate above this (percent) shows red. */
export const ERROR_RATE_THRESHOLD = 5;
/** The dashboard refreshes this long after the previous refresh finished. */
export const REFRESH_MS = 30_000;

/**
 * The refresh interval: 30 s, or `?refresh=SECONDS` on /admin (2 to 3600) for an operator who
 * wants a livelier or a quieter screen (the browser test uses it so it need not wait 30 s).
 */
export function refreshInterval(search: string): number {
  const raw = new URLSearchParams(search).get('refresh');
  const s = raw !== null && /^\d+$/.test(raw) ? Number(raw) : NaN;
  return Number.isFinite(s) && s >= 2 && s <= 3600 ? s * 1000 : REFRESH_MS;
}

const LABELS: Record<string, string> = {
  login: 'Login',
  login_failed: 'Failed login',
  signup: 'Sign-up',
  email_verified: 'E-mail verified',
  job_submitted: 'Reel submitted',
  project_completed: 'Project completed',
  job_failed: 'Reel failed',
  dead_lettered: 'Render given up',
  payment_succeeded: 'Payment',
  offer_made: 'Offer made',
  offer_answered: 'Offer answered',
  admin_granted: 'Admin granted',
  admin_revoked: 'Admin revoked',
};
export const activityLabel = (type: string) => LABELS[type] ?? type;
