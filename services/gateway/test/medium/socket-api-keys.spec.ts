import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { io as connect } from 'socket.io-client';
import { quietLogger } from '@reelsmith/kit/testing';
import type { Peers } from '../../src/repositories/clients';
import { SessionVerifier, type Caller } from '../../src/domain/sessions';
import { mountSocket } from '../../src/transport/socket';

/** The job socket takes an API key only as GET /jobs/{id}/status does: jobs:read, on a plan with API access. */
describe('job socket with an API key', () => {
  const callers: Record<string, Caller> = {
    session: { id: 'u1', email: 'a@example.com', isAdmin: false, isGuest: false, unlimited: false },
    reader: {
      id: 'u2',
      email: 'b@example.com',
      isAdmin: false,
      isGuest: false,
      unlimited: false,
      apiKey: { id: 'k1', scopes: ['jobs:read'], planAllows: true },
    },
    writer: {
      id: 'u3',
      email: 'c@example.com',
      isAdmin: false,
      isGuest: false,
      unlimited: false,
      apiKey: { id: 'k2', scopes: ['jobs:write', 'uploads:write'], planAllows: true },
    },
    downgraded: {
      id: 'u4',
      email: 'd@example.com',
      isAdmin: false,
      isGuest: false,
      unlimited: false,
      apiKey: { id: 'k3', scopes: ['jobs:read'], planAllows: false },
    },
  };
  let server: http.Server;
  let base: string;
  beforeAll(async () => {
    server = http.createServer();
    const sessions = new SessionVerifier(async (token) => callers[token]!, { maxEntries: 100, ttlMs: 60_000 });
    const peers = { identity: { authenticate: async () => ({}) } } as unknown as Peers;
    mountSocket(server, { log: quietLogger(), allowedOrigins: [], peers, sessions, revalidateMs: 3600_000 });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  const open = (token: string) =>
    new Promise<{ ok: boolean; error?: string; data?: unknown }>((resolve) => {
      const socket = connect(base, { path: '/ws', transports: ['websocket'], auth: { token }, reconnection: false });
      socket.on('connect', () => {
        socket.disconnect();
        resolve({ ok: true });
      });
      socket.on('connect_error', (e: Error & { data?: unknown }) => {
        socket.disconnect();
        resolve({ ok: false, error: e.message, data: e.data });
      });
    });

  it('a session and a key with jobs:read connect; a key without jobs:read or without API access in its plan is refused', async () => {
    expect(await open('session')).toEqual({ ok: true });
    expect(await open('reader')).toEqual({ ok: true });
    expect(await open('writer')).toMatchObject({ ok: false, error: 'forbidden', data: { code: 'missing_scope' } });
    expect(await open('downgraded')).toMatchObject({ ok: false, error: 'forbidden', data: { code: 'api_access_not_in_plan' } });
  });
});
