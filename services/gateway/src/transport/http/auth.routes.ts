import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { plainText } from '@reelsmith/proto';
import { z } from 'zod';
import type { Peers } from '../../repositories/clients.js';
import { endSessionSockets } from '../socket.js';
import { bearer, callerOf } from './auth.js';
import { errors, message, sessionReply, user } from './schemas.js';
import { userBody } from './user.view.js';

const credentials = z
  .object({ email: plainText(320, 'Email'), password: plainText(1024, 'Password') })
  .strict()
  .meta({ id: 'Credentials' });

/** POST /auth/register, /auth/login, /auth/verify-email, /auth/resend-verification, /auth/logout; GET /auth/me. */
export const authRoutes: FastifyPluginAsyncZod<{ peers: Peers }> = async (app, { peers }) => {
  const client = (ip: string) => ({ ip });

  app.post(
    '/auth/register',
    {
      schema: {
        summary: 'Sign up; answers the same whether or not the e-mail is known',
        body: credentials,
        response: { 201: z.object({ message: z.string(), email: z.string() }), ...errors(400, 429) },
      },
    },
    async (req, reply) => {
      const res = await peers.identity.register(
        { email: req.body.email, password: req.body.password, client: client(req.ip) },
        { requestId: req.id },
      );
      return reply.status(201).send({ message: 'Registration successful. Check your email for a verification code.', email: res.email });
    },
  );

  app.post(
    '/auth/login',
    { schema: { summary: 'Sign in', body: credentials, response: { 200: sessionReply, ...errors(400, 401, 403, 429) } } },
    async (req) => {
      const s = await peers.identity.login(
        { email: req.body.email, password: req.body.password, client: client(req.ip) },
        { requestId: req.id },
      );
      return { session_token: s.sessionToken, user: await userBody(peers, s.user!, req.id) };
    },
  );

  app.post(
    '/auth/verify-email',
    {
      schema: {
        summary: 'Verify an e-mail with the link token, or with the e-mail and its 6-digit code',
        body: z
          .object({
            token: plainText(200, 'Token').optional(),
            email: plainText(320, 'Email').optional(),
            code: plainText(12, 'Code').optional(),
          })
          .strict(),
        response: { 200: sessionReply, ...errors(400, 429) },
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

  app.post(
    '/auth/resend-verification',
    {
      schema: {
        summary: 'Send the verification mail again',
        body: z.object({ email: plainText(320, 'Email') }).strict(),
        response: { 200: message, ...errors(400, 429) },
      },
    },
    async (req) => {
      await peers.identity.resendVerification({ email: req.body.email, client: client(req.ip) }, { requestId: req.id });
      return { message: 'If that account still needs verification, a new email is on its way.' };
    },
  );

  app.get(
    '/auth/me',
    {
      config: { access: 'user' },
      schema: { summary: 'The signed-in user', response: { 200: z.object({ user }), ...errors(401) } },
    },
    async (req) => {
      const caller = callerOf(req);
      const { user: u } = await peers.identity.getUser({ userId: caller.id }, { requestId: req.id });
      return { user: await userBody(peers, u!, req.id) };
    },
  );

  app.post(
    '/auth/logout',
    { config: { access: 'user' }, schema: { summary: 'End this session', response: { 200: message, ...errors(401) } } },
    async (req) => {
      const token = bearer(req);
      await peers.identity.logout({ sessionToken: token }, { requestId: req.id });
      endSessionSockets(app.server, token); // other replicas drop theirs at their next session check
      return { message: 'Signed out' };
    },
  );
};
