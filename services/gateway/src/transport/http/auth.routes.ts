import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { plainText } from '@reelsmith/proto';
import { z } from 'zod';
import type { AccountDeletion } from '../../domain/account-deletion.js';
import type { Checkout } from '../../domain/checkout.js';
import { tokenHash, type SessionVerifier } from '../../domain/sessions.js';
import type { ShortCache } from '../../domain/short-cache.js';
import type { Peers } from '../../repositories/clients.js';
import { endSessionSockets, revokeSessionSockets } from '../socket.js';
import { bearer, callerOf } from './auth.js';
import { paymentIntent, toPaymentIntent } from './payments.schemas.js';
import { mirrored } from './errors.js';
import { displayName, email } from './input-text.js';
import { errors, message, sessionReply, user, type UserBody } from './schemas.js';
import { RATE_LIMITS } from './security.js';
import { userBody } from './user.view.js';

const credentials = z
  .object({ email: email(), password: plainText(1024, 'Password') })
  .strict()
  .meta({ id: 'Credentials' });

/** A new password as identity takes it: 6 to 1024 characters (identity's message and reason when shorter). */
const newPassword = (what: string) =>
  plainText(1024, what).min(6, mirrored('Password must be at least 6 characters', 'password_too_short'));

const registration = z
  .object({ email: email(), password: newPassword('Password') })
  .strict()
  .meta({ id: 'Registration' });

/**
 * POST /auth/register, /auth/login, /auth/verify-email, /auth/resend-verification, /auth/logout,
 * /auth/forgot-password, /auth/reset-password, /auth/change-password, /auth/logout-all,
 * /auth/delete-account; GET and PATCH /auth/me; POST /auth/purchase-credits and /auth/upgrade-subscription
 * (they start a payment).
 */
export interface AuthRoutesDeps {
  peers: Peers;
  sessions: SessionVerifier;
  accounts: ShortCache<UserBody>;
  deletion: AccountDeletion;
  checkout: Checkout;
}

export const authRoutes: FastifyPluginAsyncZod<AuthRoutesDeps> = async (app, { peers, sessions, accounts, deletion, checkout }) => {
  const client = (ip: string) => ({ ip });

  app.post(
    '/auth/register',
    {
      schema: {
        summary: 'Sign up; answers the same whether or not the e-mail is known',
        body: registration,
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
        body: z.union(
          [
            z
              .object({
                token: plainText(200, 'Token').min(1, 'Token must not be empty').describe('The token of the link in the mail'),
                email: email().optional().describe('Ignored with a token'),
                code: plainText(12, 'Code').optional().describe('Ignored with a token'),
              })
              .strict(),
            z
              .object({
                email: email(),
                code: plainText(12, 'Code').min(1, 'Code must not be empty').describe('The 6-digit code in the mail'),
                token: z.literal('').optional().describe('Empty or absent: the e-mail and code are used'),
              })
              .strict(),
          ],
          { error: mirrored('Email and code are required', 'code_required') },
        ),
        response: { 200: sessionReply, ...errors(400, 429) },
      },
    },
    async (req) => {
      const b = req.body;
      const s = await peers.identity.verifyEmail(
        { token: b.token ?? '', email: 'email' in b ? b.email : '', code: 'code' in b ? b.code : '', client: client(req.ip) },
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
        body: z.object({ email: email() }).strict(),
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
      // The verified session says who this is (sessions exist only for verified accounts): no
      // second call to identity; billing adds the credits and plan, reused for a moment (billing's
      // facts and the routes that change them end it at once).
      const c = callerOf(req);
      const u = { id: c.id, email: c.email, isAdmin: c.isAdmin, isGuest: c.isGuest, unlimited: c.unlimited, emailVerified: true };
      // The public name comes with the session (identity's answer), not with billing's cached part.
      return { user: { ...(await accounts.get(c.id, () => userBody(peers, u, req.id))), display_name: c.displayName || null } };
    },
  );

  app.patch(
    '/auth/me',
    {
      config: { access: 'user' },
      schema: {
        summary: 'Set or clear (null) the public name shown on the Hall of Fame next to your featured reels',
        body: z.object({ display_name: displayName().nullable() }).strict(),
        response: { 200: z.object({ user }), ...errors(400, 401) },
      },
    },
    async (req) => {
      const c = callerOf(req);
      const r = await peers.identity.setDisplayName({ userId: c.id, displayName: req.body.display_name ?? '' }, { requestId: req.id });
      // This replica's cached verifications of the user end now, so the next request sees the new
      // name (identity tells the other replicas; the sessions stay).
      sessions.revoke([], c.id);
      return { user: await userBody(peers, r.user!, req.id) };
    },
  );

  app.post(
    '/auth/logout',
    { config: { access: 'user' }, schema: { summary: 'End this session', response: { 200: message, ...errors(401) } } },
    async (req) => {
      const token = bearer(req);
      await peers.identity.logout({ sessionToken: token }, { requestId: req.id });
      // This replica at once; every replica (this one again) through identity's sessions.revoked.
      sessions.revoke([tokenHash(token)]);
      endSessionSockets(app.server, token);
      return { message: 'Signed out' };
    },
  );

  /** Ends every cached session of the user on this replica at once, and its sockets (identity tells the others). */
  const endUserHere = (userId: string) => {
    sessions.revoke([], userId);
    revokeSessionSockets(app.server, [], userId);
  };

  app.post(
    '/auth/forgot-password',
    {
      config: { rateLimit: RATE_LIMITS.passwordReset },
      schema: {
        summary: 'Mail a password reset link (valid 1 hour, single use); the same answer whether or not the e-mail is known',
        body: z.object({ email: email() }).strict(),
        response: { 200: message, ...errors(400, 429) },
      },
    },
    async (req) => {
      await peers.identity.forgotPassword({ email: req.body.email, client: client(req.ip) }, { requestId: req.id });
      return { message: 'If an account exists for that email, a link to reset its password is on its way.' };
    },
  );

  app.post(
    '/auth/reset-password',
    {
      config: { rateLimit: RATE_LIMITS.passwordReset },
      schema: {
        summary: 'Set a new password with the token of a reset link; every session of the account ends',
        body: z.object({ token: plainText(200, 'Token'), password: newPassword('Password') }).strict(),
        response: { 200: z.object({ message: z.string(), email: z.string() }), ...errors(400, 429) },
      },
    },
    async (req) => {
      const r = await peers.identity.resetPassword(
        { token: req.body.token, password: req.body.password, client: client(req.ip) },
        { requestId: req.id },
      );
      return { message: 'Your password has been changed. Please sign in with your new password.', email: r.email };
    },
  );

  app.post(
    '/auth/change-password',
    {
      config: { access: 'user' },
      schema: {
        summary: 'Change the password (current + new); every other session ends',
        body: z.object({ current_password: plainText(1024, 'Current password'), new_password: newPassword('New password') }).strict(),
        response: { 200: message, ...errors(400, 401, 403, 429) },
      },
    },
    async (req) => {
      const caller = callerOf(req);
      await peers.identity.changePassword(
        {
          userId: caller.id,
          currentPassword: req.body.current_password,
          newPassword: req.body.new_password,
          sessionToken: bearer(req),
          client: client(req.ip),
        },
        { requestId: req.id },
      );
      endUserHere(caller.id);
      return { message: 'Your password has been changed. Your other devices have been signed out.' };
    },
  );

  app.post(
    '/auth/logout-all',
    {
      config: { access: 'user' },
      schema: { summary: 'Sign out everywhere: every session of the account ends', response: { 200: message, ...errors(401) } },
    },
    async (req) => {
      const caller = callerOf(req);
      await peers.identity.endAllSessions({ userId: caller.id }, { requestId: req.id });
      endUserHere(caller.id);
      return { message: 'Signed out everywhere' };
    },
  );

  app.post(
    '/auth/delete-account',
    {
      config: { access: 'user' },
      schema: {
        summary: 'Delete the account, confirmed by its password: uploads, reels and sessions are deleted, the ledger keeps anonymised rows',
        body: z.object({ password: plainText(1024, 'Password') }).strict(),
        response: { 200: message, ...errors(400, 401, 403, 429) },
      },
    },
    async (req) => {
      const caller = callerOf(req);
      await deletion.delete({ userId: caller.id, isGuest: caller.isGuest, password: req.body.password, ip: req.ip, requestId: req.id });
      endUserHere(caller.id);
      return { message: 'Your account has been deleted.' };
    },
  );

  // The spec's two account routes start the same payment flow as /payments/create-intent; they
  // never grant anything by themselves (confirm with POST /payments/confirm).
  app.post(
    '/auth/purchase-credits',
    {
      config: { access: 'user' },
      schema: {
        summary: 'Start buying the credit pack that costs `amount` dollars (returns a payment intent to confirm)',
        body: z.object({ amount: z.number().positive().describe('US dollars: 10, 20, 40 or 80') }).strict(),
        response: { 200: paymentIntent, ...errors(400, 401, 403) },
      },
    },
    async (req) => {
      return toPaymentIntent(await checkout.buyPackCosting(callerOf(req), req.body.amount, req.id));
    },
  );

  app.post(
    '/auth/upgrade-subscription',
    {
      config: { access: 'user' },
      schema: {
        summary: 'Start subscribing to a plan (returns a payment intent to confirm)',
        body: z
          .object({ plan: z.enum(['standard', 'mid-tier', 'corporate']), billing_cycle: z.enum(['monthly', 'yearly']).default('monthly') })
          .strict(),
        response: { 200: paymentIntent, ...errors(400, 401, 403, 409) },
      },
    },
    async (req) => {
      return toPaymentIntent(await checkout.subscribe(callerOf(req), req.body.plan, req.body.billing_cycle, req.id));
    },
  );
};
