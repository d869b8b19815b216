import type { Server as HttpServer } from 'node:http';
import { Server } from 'socket.io';
import type { Logger } from '@reelsmith/kit';

export interface SocketDeps {
  log: Logger;
  /** Origins allowed to connect; anything else is refused at the handshake. */
  allowedOrigins: string[];
}

/**
 * Socket.IO on the gateway's HTTP server, path /ws. Job rooms and progress forwarding are added
 * by the assembly flow; the connection already answers the client's ping.
 */
export function mountSocket(server: HttpServer, deps: SocketDeps): Server {
  const io = new Server(server, {
    path: '/ws',
    serveClient: false,
    allowRequest: (req, cb) => {
      const origin = req.headers.origin;
      // Non-browser clients send no Origin; browsers must come from an allowed one.
      cb(null, !origin || deps.allowedOrigins.includes(origin));
    },
  });
  io.on('connection', (socket) => {
    socket.on('ping', (ack?: (m: string) => void) => (typeof ack === 'function' ? ack('pong') : socket.emit('pong')));
  });
  return io;
}
