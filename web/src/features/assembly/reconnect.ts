/**
 * When the job socket tries again: the spec's 5 attempts 3 s apart, each spread by a random share
 * so that pages which lost the socket together (a gateway restart or deploy) do not come back in
 * lockstep. A server that answered `busy` names a retry hint; the client waits at least that long.
 */
export const RECONNECT_ATTEMPTS = 5;
export const RECONNECT_DELAY_MS = 3000;
/** Each delay is the base delay +- half this share of it. */
export const RECONNECT_SPREAD = 0.5;

export function reconnectDelay(random: () => number = Math.random, hintMs = 0): number {
  const spread = RECONNECT_DELAY_MS * RECONNECT_SPREAD;
  const jittered = RECONNECT_DELAY_MS - spread / 2 + spread * random();
  return Math.round(Math.max(jittered, hintMs > 0 ? hintMs * (1 + random() * RECONNECT_SPREAD) : 0));
}

/** What a failed socket handshake means for the page: signed out only when the server said so. */
export type HandshakeFailure = 'signed_out' | 'retry';

export const handshakeFailure = (message: string): HandshakeFailure => (message === 'unauthorized' ? 'signed_out' : 'retry');
