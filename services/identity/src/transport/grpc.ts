import { bind, describeHandler } from '@reelsmith/kit';
import { identity } from '@reelsmith/proto';
import type { IdentityService, Session, UserView } from '../domain/identity.service.js';
import type { ApiKeyHandlers } from './api-keys.grpc.js';
import type { ContactHandlers } from './contact.grpc.js';

export const user = (u: UserView) => ({
  id: u.id,
  email: u.email,
  isAdmin: u.isAdmin,
  emailVerified: u.emailVerified,
  isGuest: u.isGuest,
  unlimited: u.unlimited,
  displayName: u.displayName,
  createdAtUnixMs: BigInt(u.createdAt.getTime()),
});
const session = (s: Session) => ({ sessionToken: s.token, user: user(s.user), expiresAtUnixMs: BigInt(s.expiresAt.getTime()) });
const ip = (c?: { ip: string }) => c?.ip || 'unknown';

/** gRPC handlers of identity: thin, one call into the domain per handler. */
export const grpcBinding = (svc: IdentityService, contact: ContactHandlers, apiKeys: ApiKeyHandlers) =>
  bind(identity.IdentityService, {
    ...contact,
    ...apiKeys,
    describe: describeHandler('identity'),
    register: async (req) => svc.register(req.email, req.password, ip(req.client)),
    login: async (req) => session(await svc.login(req.email, req.password, ip(req.client))),
    verifyEmail: async (req) => session(await svc.verifyEmail({ token: req.token, email: req.email, code: req.code }, ip(req.client))),
    resendVerification: async (req) => {
      await svc.resendVerification(req.email, ip(req.client));
      return {};
    },
    authenticate: async (req) => ({ user: user(await svc.authenticate(req.sessionToken)) }),
    logout: async (req) => {
      await svc.logout(req.sessionToken);
      return {};
    },
    getUser: async (req) => ({ user: user(await svc.user(req.userId)) }),
    getGuestPass: async () => svc.guestPass(),
    setGuestPass: async (req) => svc.setGuestPass(req.enabled, req.adminUserId),
    forgotPassword: async (req) => {
      await svc.forgotPassword(req.email, ip(req.client));
      return {};
    },
    resetPassword: async (req) => svc.resetPassword(req.token, req.password, ip(req.client)),
    changePassword: async (req) => {
      await svc.changePassword(req.userId, req.currentPassword, req.newPassword, req.sessionToken);
      return {};
    },
    endAllSessions: async (req) => {
      await svc.endAllSessions(req.userId);
      return {};
    },
    checkPassword: async (req) => {
      await svc.checkPassword(req.userId, req.password);
      return {};
    },
    deleteAccount: async (req) => svc.deleteAccount(req.userId, req.password),
    setAdmin: async (req) => svc.setAdmin(req.email, req.isAdmin, req.by || 'cli'),
    setDisplayName: async (req) => ({ user: user(await svc.setDisplayName(req.userId, req.displayName)) }),
    getPublicNames: async (req) => ({
      names: [...(await svc.publicNames(req.userIds))].map(([userId, displayName]) => ({ userId, displayName })),
    }),
  });
