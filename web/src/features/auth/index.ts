/** What the rest of the app uses of accounts. */
export { AccountSettings } from './AccountSettings';
export { LazyAuthModal } from './LazyAuthModal';
export { UserMenu } from './UserMenu';
export { useCurrentUser } from './useCurrentUser';
export { useLazyMeQuery, useResetPasswordMutation, useVerifyEmailMutation } from './auth.api';
