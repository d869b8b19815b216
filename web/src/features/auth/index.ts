/** What the rest of the app uses of accounts. */
export { AccountSettings } from './AccountSettings';
export { LazyAuthModal } from './LazyAuthModal';
export { useCurrentUser } from './useCurrentUser';
export { useLazyMeQuery, useLogoutMutation, useResetPasswordMutation, useVerifyEmailMutation } from './auth.api';
