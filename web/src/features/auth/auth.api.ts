import { api } from '../../base/api';
import type { SessionReply, User } from '../../api/types';

export type { User };

const authApi = api.injectEndpoints({
  endpoints: (build) => ({
    me: build.query<User, void>({ query: () => '/auth/me', transformResponse: (r: { user: User }) => r.user, providesTags: ['User'] }),
    login: build.mutation<SessionReply, { email: string; password: string }>({
      query: (body) => ({ url: '/auth/login', method: 'POST', body }),
      invalidatesTags: ['User'],
    }),
    register: build.mutation<{ message: string; email: string }, { email: string; password: string }>({
      query: (body) => ({ url: '/auth/register', method: 'POST', body }),
    }),
    verifyEmail: build.mutation<SessionReply, { token: string } | { email: string; code: string }>({
      query: (body) => ({ url: '/auth/verify-email', method: 'POST', body }),
      invalidatesTags: ['User'],
    }),
    resendVerification: build.mutation<{ message: string }, { email: string }>({
      query: (body) => ({ url: '/auth/resend-verification', method: 'POST', body }),
    }),
    logout: build.mutation<{ message: string }, void>({ query: () => ({ url: '/auth/logout', method: 'POST' }) }),
    forgotPassword: build.mutation<{ message: string }, { email: string }>({
      query: (body) => ({ url: '/auth/forgot-password', method: 'POST', body }),
    }),
    resetPassword: build.mutation<{ message: string; email: string }, { token: string; password: string }>({
      query: (body) => ({ url: '/auth/reset-password', method: 'POST', body }),
    }),
    changePassword: build.mutation<{ message: string }, { current_password: string; new_password: string }>({
      query: (body) => ({ url: '/auth/change-password', method: 'POST', body }),
    }),
    logoutAll: build.mutation<{ message: string }, void>({ query: () => ({ url: '/auth/logout-all', method: 'POST' }) }),
    /** Sets (a name) or clears (null) the public name shown on the Hall of Fame. */
    setDisplayName: build.mutation<User, { display_name: string | null }>({
      query: (body) => ({ url: '/auth/me', method: 'PATCH', body }),
      transformResponse: (r: { user: User }) => r.user,
      invalidatesTags: ['User'],
    }),
    deleteAccount: build.mutation<{ message: string }, { password: string }>({
      query: (body) => ({ url: '/auth/delete-account', method: 'POST', body }),
    }),
  }),
});

export const {
  useMeQuery,
  useLazyMeQuery,
  useLoginMutation,
  useRegisterMutation,
  useVerifyEmailMutation,
  useResendVerificationMutation,
  useLogoutMutation,
  useForgotPasswordMutation,
  useResetPasswordMutation,
  useChangePasswordMutation,
  useLogoutAllMutation,
  useDeleteAccountMutation,
  useSetDisplayNameMutation,
} = authApi;
