// The Socket.IO client protocol (Engine.IO v4 over one WebSocket), as much as a progress
// subscriber needs: open, connect to the default namespace with an auth payload, answer pings,
// emit events and receive them. No k6 imports, so Node tests can drive it against socket.io.
// Packets: Engine.IO 0 open, 2 ping, 3 pong, 4 message; inside 4, Socket.IO 0 connect, 2 event,
// 4 connect error. So "40" is connect, "42[...]" an event, "44{...}" a refused connection.

export interface SocketIoHandlers {
  /** The namespace accepted the connection (after the auth payload was checked). */
  connected(): void;
  /** The server refused the connection (e.g. "unauthorized"). */
  refused(message: string): void;
  event(name: string, payload: unknown): void;
}

/** The WebSocket URL of a Socket.IO server mounted at `path` on `baseUrl` (http/https). */
export const socketIoUrl = (baseUrl: string, path = '/ws') =>
  `${baseUrl.replace(/\/$/, '').replace(/^http/, 'ws')}${path}/?EIO=4&transport=websocket`;

export function socketIoClient(send: (frame: string) => void, auth: Record<string, unknown>, on: SocketIoHandlers) {
  return {
    /** Feed every text frame received from the WebSocket. */
    receive(frame: string): void {
      if (frame === '2') return send('3');
      if (frame.startsWith('0')) return send(`40${JSON.stringify(auth)}`);
      if (frame.startsWith('40')) return on.connected();
      if (frame.startsWith('44')) {
        let message = frame.slice(2);
        try {
          message = String((JSON.parse(message) as { message?: string }).message ?? message);
        } catch {
          // not JSON: keep the raw text
        }
        return on.refused(message);
      }
      if (frame.startsWith('42')) {
        const [name, payload] = JSON.parse(frame.slice(2)) as [string, unknown];
        on.event(name, payload);
      }
    },
    emit(name: string, ...args: unknown[]): void {
      send(`42${JSON.stringify([name, ...args])}`);
    },
  };
}
