import { api } from '../../base/api';
import type { ReelList } from '../../api/types';

const reelsApi = api.injectEndpoints({
  endpoints: (build) => ({
    reels: build.query<ReelList, { limit: number; offset: number }>({
      query: ({ limit, offset }) => ({ url: '/library', params: { limit: String(limit), offset: String(offset) } }),
      providesTags: ['Reel'],
    }),
    reelAccess: build.mutation<{ download_url: string }, string>({
      query: (id) => ({ url: `/library/${id}/access`, method: 'POST' }),
    }),
    deleteReel: build.mutation<{ message: string }, string>({
      query: (id) => ({ url: `/library/${id}`, method: 'DELETE' }),
      invalidatesTags: ['Reel'],
    }),
  }),
});

export const { useReelsQuery, useReelAccessMutation, useDeleteReelMutation } = reelsApi;
