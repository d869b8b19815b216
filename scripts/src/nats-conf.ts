/**
 * The configuration of the nats-server that `npm start` runs as a child: loopback only, JetStream
 * in DATA_DIR, and a token, kept in a file only this user can read (on the command line, `ps`
 * would show it to every local user).
 */
export interface NatsServerSettings {
  port: number;
  storeDir: string;
  token: string;
  /**
   * Seconds a client has to answer the server's INFO with its CONNECT (nats-server's default is
   * 2). Nine services opening their databases at once on two cores can take longer than that to
   * read it; the server then closes the connection under the client, whose connect hangs until
   * its own timeout and the service restarts from scratch (start-ups took 85-95 s instead of 20).
   */
  authTimeoutSec?: number;
}

export const NATS_AUTH_TIMEOUT_SEC = 30;

export function natsServerConfig(s: NatsServerSettings): string {
  return [
    `listen: "127.0.0.1:${s.port}"`,
    `jetstream { store_dir: ${JSON.stringify(s.storeDir)} }`,
    `authorization { token: ${JSON.stringify(s.token)}, timeout: ${s.authTimeoutSec ?? NATS_AUTH_TIMEOUT_SEC} }`,
    '',
  ].join('\n');
}
