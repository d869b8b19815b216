import { createApi, fetchBaseQuery, type BaseQueryFn, type FetchArgs, type FetchBaseQueryError } from '@reduxjs/toolkit/query/react';
import type { ApiErrorBody } from '../api/types';
import { plainWords } from './plain-words';
import { signedOut } from './session';

const raw = fetchBaseQuery({
  baseUrl: '/api/v1',
  prepareHeaders: (headers, { getState }) => {
    const token = (getState() as { session: { token: string | null } }).session.token;
    if (token) headers.set('authorization', `Bearer ${token}`);
    return headers;
  },
});

/**
 * A 401 clears the stored session token (spec section 7) and, as signing out does, the cached
 * answers, so none of the previous user's data (API keys, webhook secret) outlives the session.
 */
const baseQuery: BaseQueryFn<string | FetchArgs, unknown, FetchBaseQueryError> = async (args, store, extra) => {
  const result = await raw(args, store, extra);
  if (result.error?.status === 401 && (store.getState() as { session: { token: string | null } }).session.token) {
    store.dispatch(signedOut());
    store.dispatch(api.util.resetApiState());
  }
  return result;
};

/** The one API of the web client; each feature folder injects its endpoints. */
export const api = createApi({
  reducerPath: 'api',
  baseQuery,
  tagTypes: ['Health', 'User', 'Reel', 'Job', 'GuestPass', 'MusicLibrary'],
  endpoints: () => ({}),
});

/** The text to show for a failed call: the server's `detail` (in plain words, no API field names), else the given fallback. */
export function errorDetail(error: unknown, fallback: string): string {
  const data = (error as { data?: Partial<ApiErrorBody> } | undefined)?.data;
  return typeof data?.detail === 'string' && data.detail ? plainWords(data.detail) : fallback;
}

export function errorCode(error: unknown): string | undefined {
  return (error as { data?: Partial<ApiErrorBody> } | undefined)?.data?.code;
}
