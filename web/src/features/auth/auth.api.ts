import { api } from '../../app/api';

export interface User {
  id: string;
  email: string;
  is_admin: boolean;
  is_guest: boolean;
  email_verified: boolean;
  credits: number;
  subscription: { plan: string; status: string; next_billing: string | null; billing_cycle: string | null };
  last_free_use: string | null;
  daily_free_used: boolean;
}

export interface SessionReply {
  session_token: string;
  user: User;
}

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
  }),
});

export const {
  useMeQuery,
  useLoginMutation,
  useRegisterMutation,
  useVerifyEmailMutation,
  useResendVerificationMutation,
  useLogoutMutation,
} = authApi;
