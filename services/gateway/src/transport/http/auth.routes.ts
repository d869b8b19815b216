import type { FastifyPluginAsync } from 'fastify';
import type { Peers } from '../../repositories/clients.js';
import { bearer, callerOf } from './auth.js';
import { userBody, userSchema } from './user.view.js';

const credentials = {
  type: 'object',
  required: ['email', 'password'],
  additionalProperties: false,
  properties: { email: { type: 'string', maxLength: 320 }, password: { type: 'string', maxLength: 1024 } },
} as const;

const sessionReply = { 200: { type: 'object', properties: { session_token: { type: 'string' }, user: userSchema } } };

/** POST /auth/register, /auth/login, /auth/verify-email, /auth/resend-verification, /auth/logout; GET /auth/me. */
export const authRoutes: FastifyPluginAsync<{ peers: Peers }> = async (app, { peers }) => {
  const client = (ip: string) => ({ ip });

  app.post<{ Body: { email: string; password: string } }>('/auth/register', { schema: { body: credentials } }, async (req, reply) => {
    const res = await peers.identity.register(
      { email: req.body.email, password: req.body.password, client: client(req.ip) },
      { requestId: req.id },
    );
    return reply.status(201).send({ message: 'Registration successful. Check your email for a verification code.', email: res.email });
  });

  app.post<{ Body: { email: string; password: string } }>(
    '/auth/login',
    { schema: { body: credentials, response: sessionReply } },
    async (req) => {
      const s = await peers.identity.login(
        { email: req.body.email, password: req.body.password, client: client(req.ip) },
        { requestId: req.id },
      );
      return { session_token: s.sessionToken, user: await userBody(peers, s.user!, req.id) };
    },
  );

  app.post<{ Body: { token?: string; email?: string; code?: string } }>(
    '/auth/verify-email',
    {
      schema: {
        body: {
          type: 'object',
          additionalProperties: false,
          properties: {
            token: { type: 'string', maxLength: 200 },
            email: { type: 'string', maxLength: 320 },
            code: { type: 'string', maxLength: 12 },
          },
        },
        response: sessionReply,
      },
    },
    async (req) => {
      const s = await peers.identity.verifyEmail(
        { token: req.body.token ?? '', email: req.body.email ?? '', code: req.body.code ?? '', client: client(req.ip) },
        { requestId: req.id },
      );
      return { session_token: s.sessionToken, user: await userBody(peers, s.user!, req.id) };
    },
  );

  app.post<{ Body: { email: string } }>(
    '/auth/resend-verification',
    {
      schema: {
        body: {
          type: 'object',
          required: ['email'],
          additionalProperties: false,
          properties: { email: { type: 'string', maxLength: 320 } },
        },
      },
    },
    async (req) => {
      await peers.identity.resendVerification({ email: req.body.email, client: client(req.ip) }, { requestId: req.id });
      return { message: 'If that account still needs verification, a new email is on its way.' };
    },
  );

  app.get(
    '/auth/me',
    { config: { access: 'user' }, schema: { response: { 200: { type: 'object', properties: { user: userSchema } } } } },
    async (req) => {
      const caller = callerOf(req);
      const { user } = await peers.identity.getUser({ userId: caller.id }, { requestId: req.id });
      return { user: await userBody(peers, user!, req.id) };
    },
  );

  app.post('/auth/logout', { config: { access: 'user' } }, async (req) => {
    await peers.identity.logout({ sessionToken: bearer(req) }, { requestId: req.id });
    return { message: 'Signed out' };
  });
};
